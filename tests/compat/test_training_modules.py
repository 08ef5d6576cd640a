"""Chainer's module paths under ``chainer.training.extensions``: the snapshot helpers of
``_snapshot`` and the extension modules as attributes."""

from __future__ import annotations

import os

from fnet.compat.training import extensions
from fnet.compat.training.extensions import _snapshot


def _touch(folder, names):
    for age, name in enumerate(names):
        path = os.path.join(folder, name)
        open(path, "w").close()
        os.utime(path, (1_000_000 + age, 1_000_000 + age))


def test_snapshot_helpers_find_the_latest_and_the_stale_files(tmp_path):
    fmt = "snapshot_iter_{.updater.iteration}"
    _touch(tmp_path, [f"snapshot_iter_{i}" for i in (5, 10, 15)] + ["other_file"])
    assert [name for _, name in _snapshot._find_snapshot_files(fmt, str(tmp_path))] == [
        "snapshot_iter_5",
        "snapshot_iter_10",
        "snapshot_iter_15",
    ]
    assert _snapshot._find_latest_snapshot(fmt, str(tmp_path)) == "snapshot_iter_15"
    assert list(_snapshot._find_stale_snapshots(fmt, str(tmp_path), 2)) == ["snapshot_iter_5"]
    assert _snapshot.snapshot is extensions.snapshot


def test_extension_modules_are_attributes_of_the_package():
    assert extensions.variable_statistics_plot.VariableStatisticsPlot is extensions.VariableStatisticsPlot
    assert extensions.log_report.LogReport is extensions.LogReport


def test_util_progress_bar_redraws_the_lines_of_a_subclass():
    import io

    import pytest

    from fnet.compat.training.extensions import util

    class Two(util.ProgressBar):
        def get_lines(self):
            return ["a\n", "b\n"]

    out = io.StringIO()
    bar = Two(bar_length=10, out=out)
    bar.update()
    bar.close()
    assert out.getvalue() == "\033[Ja\nb\n\033[2A\033[J"
    assert bar._bar_length == 10 and bar.update_speed(0, 0.0) == (float("inf"), float("inf"))
    with pytest.raises(TypeError):
        util.ProgressBar()  # get_lines is for a subclass to give


def test_multiprocess_parallel_updater_packs_gradients_as_chainer():
    import numpy
    import pytest

    import fnet.compat as chainer
    from fnet.compat.training import _gather
    from fnet.compat.training.updaters import multiprocess_parallel_updater as mpu

    model = chainer.Sequential(chainer.links.Linear(3, 2), chainer.links.Linear(2, 1, nobias=True))
    with pytest.raises(RuntimeError, match="expected a link on a GPU"):
        mpu.gather_grads(model)  # as Chainer: these are for GPU links
    with pytest.raises(RuntimeError, match="expected a link on a GPU"):
        mpu.gather_params(model)
    assert mpu.size_num_grads(model) == (3 * 2 + 2 + 2, 3)
    # the packing itself, on the CPU: name order (0/W, 0/b, 1/W), float32, missing grads as zeros
    model.cleargrads()
    model[0].W.grad = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    packed = _gather._gather(model, "grad")
    assert packed.dtype == numpy.float32 and packed.tolist() == [0, 1, 2, 3, 4, 5, 0, 0, 0, 0]
    other = chainer.Sequential(chainer.links.Linear(3, 2), chainer.links.Linear(2, 1, nobias=True))
    other.cleargrads()
    _gather._scatter(other, packed + 1, "grad")
    assert other[0].W.grad.tolist() == [[1, 2, 3], [4, 5, 6]] and other[1].W.grad.tolist() == [[1, 1]]
    _gather._scatter(other, _gather._gather(model, "data"), "data")
    numpy.testing.assert_array_equal(other[0].W.array, model[0].W.array)
