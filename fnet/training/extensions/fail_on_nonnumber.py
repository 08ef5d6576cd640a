"""``FailOnNonNumber``: stop the training as soon as a parameter becomes NaN or infinite."""

from __future__ import annotations

from ... import backend, tree
from ..extension import Extension

__all__ = ["FailOnNonNumber"]


def _arrays(target):
    """The parameter arrays of an optimizer's target: a Chainer link's, or a params tree's leaves."""
    if hasattr(target, "params"):
        return [param.array for param in target.params() if param.array is not None]
    return [leaf for leaf in tree.leaves(target) if backend.is_array(leaf)]


_HINT = (
    "  hint: lower the learning rate, clip the gradients (optimizer_hooks.GradientClipping) or look "
    "for a log or a division by zero in the loss"
)


def _all_finite(arrays) -> bool:
    return all(backend.xp(array).isfinite(array).all() for array in arrays)


class FailOnNonNumber(Extension):
    """Raise ``RuntimeError`` when a parameter holds a NaN or an infinity, instead of training on
    with diverged parameters. It runs every iteration.

    The parameters are those of the ``target`` of each of the updater's optimizers (a Chainer
    link, or a params tree), and the updater's ``params`` tree when it has one (a
    ``FunctionalUpdater``).
    """

    def __call__(self, trainer) -> None:
        """Check every parameter."""
        updater = trainer.updater
        for name, optimizer in updater.get_all_optimizers().items():
            if not _all_finite(_arrays(optimizer.target)):
                raise RuntimeError(
                    f"Kill the process since parameters in optimizer '{name}' diverge. R.I.P.\n{_HINT}"
                )
        params = getattr(updater, "params", None)
        if params is not None and not _all_finite(_arrays(params)):
            raise RuntimeError(
                f"Kill the process since the parameters of the updater diverge. R.I.P.\n{_HINT}"
            )
