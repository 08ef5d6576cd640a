"""``get_trainer_with_mock_updater``: a Trainer whose updater only counts, to test extensions."""

from __future__ import annotations

from .. import training
from ._util import availability

__all__ = ["get_trainer_with_mock_updater"]

is_available, check_available, get_error = availability(__name__)  # whether pytest is there


def get_trainer_with_mock_updater(stop_trigger=(10, "iteration"), iter_per_epoch=10, extensions=None):
    """A ``training.Trainer`` running a mock updater (``unittest.mock.Mock``), for testing the
    trainer and its extensions: each ``update()`` calls ``update_core()`` and advances
    ``iteration``, ``epoch``, ``epoch_detail``, ``is_new_epoch`` and ``previous_epoch_detail``
    as an updater over ``iter_per_epoch`` iterations per epoch would.

    >>> trainer = get_trainer_with_mock_updater((3, 'iteration'), iter_per_epoch=2)
    >>> for _ in range(3):  # what trainer.run() does (it also makes the out folder, "result")
    ...     trainer.updater.update()
    >>> trainer.updater.iteration, trainer.updater.epoch, trainer.updater.epoch_detail
    (3, 1, 1.5)
    """
    from unittest import mock

    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update():
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = (updater.iteration - 1) // iter_per_epoch != updater.epoch
        updater.previous_epoch_detail = (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger, extensions=[] if extensions is None else extensions)
