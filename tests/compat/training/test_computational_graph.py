"""DumpGraph: the dot file of the reported loss at the first iteration, keep_graph_on_report."""

from __future__ import annotations

import os

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import links as L
from fnet.compat.serializers import DictionarySerializer, NpzDeserializer
from fnet.compat.training.extensions import DumpGraph, dump_graph
from fnet.compat.training.extensions import computational_graph as module


def _loss_step(trainer, model):
    x = numpy.ones((2, 3), numpy.float32)
    t = numpy.zeros(2, numpy.int32)
    trainer.updater.iteration += 1
    trainer.observation = {}
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    with reporter.scope(trainer.observation):
        model(x, t)


@pytest.mark.parametrize("graphviz", [False, True])
def test_graph_of_the_loss_is_written_once_and_the_flag_restored(make_trainer, monkeypatch, graphviz):
    if graphviz and not module.is_graphviz_available():
        pytest.skip("Graphviz's dot is not installed")
    monkeypatch.setattr(module, "is_graphviz_available", lambda: graphviz)
    trainer, model = make_trainer(), L.Classifier(L.Linear(3, 2))
    ext = DumpGraph("main/loss", filename="graph.dot")
    assert ext.default_name == "dump_graph" and dump_graph is DumpGraph
    assert chainer.config.keep_graph_on_report is False
    ext.initialize(trainer)
    assert chainer.config.keep_graph_on_report is True
    _loss_step(trainer, model)
    assert ext.trigger(trainer) is True
    ext(trainer)
    assert ext.trigger(trainer) is False
    assert chainer.config.keep_graph_on_report is False
    with open(os.path.join(trainer.out, "graph.dot")) as f:
        dot = f.read()
    assert dot.startswith("digraph graphname{rankdir=TB;") and 'shape="octagon"' in dot
    assert sorted(os.listdir(trainer.out)) == (["graph.dot", "graph.png"] if graphviz else ["graph.dot"])


def test_styles_and_out_name(make_trainer, monkeypatch):
    monkeypatch.setattr(module, "is_graphviz_available", lambda: False)
    trainer, model = make_trainer(), L.Classifier(L.Linear(3, 2))
    ext = DumpGraph("main/loss", out_name="old.dot", variable_style={"color": "red"}, function_style={})
    ext.initialize(trainer)
    _loss_step(trainer, model)
    ext(trainer)
    with open(os.path.join(trainer.out, "old.dot")) as f:
        assert 'color="red"' in f.read()


def test_a_root_that_is_not_a_variable_is_explained_and_the_flag_restored(make_trainer):
    trainer = make_trainer()
    ext = DumpGraph("main/loss")
    ext.initialize(trainer)
    trainer.observation = {"main/loss": 1.0}
    with pytest.raises(TypeError, match=r"the root value 'main/loss' is not a Variable, got float"):
        ext(trainer)
    assert chainer.config.keep_graph_on_report is False


def test_serialize_keys(make_trainer):
    ext = DumpGraph("main/loss")
    ext.initialize(make_trainer())
    ext.trigger(None)
    saved = DictionarySerializer()
    ext.serialize(saved)
    assert {k: v.item() for k, v in saved.target.items()} == {"_original_flag": False, "_flag_called": True}
    chainer.config.keep_graph_on_report = False
    fresh = DumpGraph("main/loss")
    fresh.serialize(NpzDeserializer(saved.target))
    fresh.initialize(None)  # the graph was written before the snapshot: the flag is left alone
    assert chainer.config.keep_graph_on_report is False and fresh.trigger(None) is False


def test_a_snapshot_loaded_after_initialize_restores_the_flag(make_trainer):
    """With snapshot(autoload=True), the snapshot is loaded after DumpGraph turned the flag on."""
    written = DictionarySerializer()
    done = DumpGraph("main/loss")
    done._original_flag, done._flag_called = False, True
    done.serialize(written)
    ext = DumpGraph("main/loss")
    ext.initialize(make_trainer())
    assert chainer.config.keep_graph_on_report is True
    ext.serialize(NpzDeserializer(written.target))
    assert chainer.config.keep_graph_on_report is False and ext.trigger(None) is False


def test_unknown_keyword():
    with pytest.raises(TypeError, match=r"DumpGraph\(\) got unexpected keyword argument\(s\) 'name'"):
        DumpGraph("main/loss", name="x")
