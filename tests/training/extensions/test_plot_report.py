"""PlotReport: a PNG of the means at each trigger, its serialized points, and the behaviour
without matplotlib (a warning, nothing plotted)."""

from __future__ import annotations

import json
import os

import pytest

from fnet.compat.serializers import DictionarySerializer, NpzDeserializer
from fnet.training.extensions import PlotReport, _util

PNG = b"\x89PNG\r\n\x1a\n"


def _run(trainer, ext, n):
    trainer.extend(ext, "PlotReport", trigger=(1, "iteration"))
    for i in range(1, n + 1):
        trainer.step({"main/loss": 1.0 / i, "validation/main/loss": 2.0 / i})


def test_png_is_written_with_the_points(make_trainer):
    pytest.importorskip("matplotlib")
    trainer = make_trainer(iters_per_epoch=2)
    calls = []
    ext = PlotReport(
        ["main/loss", "validation/main/loss", "never"],
        "epoch",
        postprocess=lambda figure, axes, summary: calls.append(axes.get_xlabel()),
        filename="loss.png",
    )
    _run(trainer, ext, 4)
    with open(os.path.join(trainer.out, "loss.png"), "rb") as f:
        assert f.read(8) == PNG
    assert calls == ["epoch", "epoch"]
    assert ext._data["main/loss"] == [(1, 0.75), (2, pytest.approx(7 / 24))]
    assert ext._data["never"] == []
    saved = DictionarySerializer()
    ext.serialize(saved)
    assert json.loads(str(saved.target["_plot_loss.png"]))["validation/main/loss"][0] == [1, 1.5]
    fresh = PlotReport("main/loss", filename="loss.png")
    fresh.serialize(NpzDeserializer(saved.target))
    assert fresh._data["main/loss"] == [[1, 0.75], [2, pytest.approx(7 / 24)]]


def test_file_name_is_the_old_name_and_a_single_key(make_trainer):
    pytest.importorskip("matplotlib")
    trainer = make_trainer()
    _run(
        trainer,
        PlotReport("main/loss", trigger=(2, "iteration"), file_name="old.png", marker=None, grid=False),
        2,
    )
    assert os.listdir(trainer.out) == ["old.png"]


def test_without_matplotlib_warns_and_plots_nothing(make_trainer, monkeypatch):
    monkeypatch.setattr(_util, "matplotlib_found", lambda: False)
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        ext = PlotReport(["main/loss"])
    with pytest.warns(UserWarning, match="pip install matplotlib"):
        assert PlotReport.available() is False
    trainer = make_trainer()
    _run(trainer, ext, 6)
    assert os.listdir(trainer.out) == []


def test_unknown_keyword():
    with pytest.raises(TypeError, match=r"PlotReport\(\) got unexpected keyword argument\(s\) 'y_key'"):
        PlotReport(["a"], y_key="b")
