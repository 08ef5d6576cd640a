"""Evaluator: Chainer links (test mode, no graph, 'validation/main/...' names), several iterators
and targets, eval_func, eval_hook, converter, device, the progress bar, and pure eval functions."""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet.compat import links as L
from fnet.data.datasets import TupleDataset
from fnet.data.iterators import SerialIterator
from fnet.training import ObserverError, Reporter, report
from fnet.training.extensions import Evaluator

X = numpy.linspace(-1, 1, 21, dtype=numpy.float32).reshape(7, 3)
T = numpy.array([0, 1, 1, 0, 1, 0, 1], numpy.int32)


def _iterator(batch_size=3):
    return SerialIterator(TupleDataset(X, T), batch_size, repeat=False, shuffle=False)


def _evaluate(ext, name="validation"):
    ext.name = name
    observation = {}
    with Reporter().scope(observation):
        result = ext()
    return result, observation


def test_classifier_reports_validation_main_loss_in_test_mode_without_graph():
    model = L.Classifier(L.Linear(3, 2))
    seen = []
    predictor = model.predictor
    original = predictor.forward

    def forward(x):
        y = original(x)
        seen.append((chainer.config.train, chainer.config.enable_backprop, y.creator))
        return y

    predictor.forward = forward
    result, observation = _evaluate(Evaluator(_iterator(), model))
    assert sorted(result) == ["validation/main/accuracy", "validation/main/loss"]
    assert observation == result
    assert seen == [(False, False, None)] * 3  # batches of 3, 3 and 1
    assert chainer.config.train and chainer.config.enable_backprop  # restored
    # the mean over batches, as Chainer (each batch weighs the same)
    losses = []
    for start in (0, 3, 6):
        with chainer.no_backprop_mode():
            losses.append(float(model(X[start : start + 3], T[start : start + 3]).array))
    assert result["validation/main/loss"] == pytest.approx(numpy.mean(losses), rel=1e-6)


def test_sub_links_report_under_their_paths():
    class Net(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(3, 2)

        def forward(self, x, t):
            h = self.l1(x)
            report({"norm": float((h.array**2).sum())}, self.l1)
            return h

    result, _ = _evaluate(Evaluator(_iterator(), Net()), name="val")
    assert sorted(result) == ["val/main/l1/norm"]


def test_several_iterators_targets_eval_func_hook_and_converter():
    calls = []
    model = L.Linear(3, 2)

    def converter(batch, device):
        calls.append(("convert", device))
        return {"x": numpy.stack([x for x, _ in batch])}

    def eval_func(x):
        report({"mean": float(x.mean())}, model)

    ext = Evaluator(
        {"main": _iterator(7), "other": _iterator()},
        {"main": model, "aux": L.Linear(2, 2)},
        converter=converter,
        device=-1,
        eval_hook=lambda e: calls.append(("hook", e.get_target("aux").out_size)),
        eval_func=eval_func,
    )
    result, _ = _evaluate(ext)
    assert result == {"validation/main/mean": pytest.approx(float(X.mean()))}
    assert calls == [("hook", 2), ("convert", -1)]
    assert ext.get_iterator("other") is ext.get_all_iterators()["other"]
    assert sorted(ext.get_all_targets()) == ["aux", "main"]
    assert str(ext.device) == "@numpy"


def test_two_evaluations_give_the_same_result_and_finalize_finalizes_the_iterators():
    ext = Evaluator(_iterator(), L.Classifier(L.Linear(3, 2)))
    first, _ = _evaluate(ext)
    second, _ = _evaluate(ext)
    assert first == second
    finalized = []
    ext.get_iterator("main").finalize = lambda: finalized.append(True)
    ext.finalize()
    assert finalized == [True]


def test_without_a_name_or_a_reporter():
    result = Evaluator(_iterator(), L.Classifier(L.Linear(3, 2)))()
    assert sorted(result) == ["main/accuracy", "main/loss"]


def test_pure_eval_func_returning_a_dict():
    """The pure path: metrics computed from a params tree (no graph is recorded)."""
    params = {"w": numpy.array([1.0, -1.0, 0.5], numpy.float32)}
    tape_levels = []

    def metrics(x, t):
        score = fnet.ops.matmul(x, params["w"])
        tape_levels.append(type(score).__name__)
        return {"score": float(fnet.ops.mean(score)), "n": float(len(t))}

    result, _ = _evaluate(Evaluator(_iterator(), metrics))
    assert result["validation/main/n"] == pytest.approx((3 + 3 + 1) / 3)
    assert tape_levels == ["ndarray"] * 3


def test_progress_bar(monkeypatch, capsys):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    ext = Evaluator(_iterator(), L.Classifier(L.Linear(3, 2)), progress_bar=True)
    _evaluate(ext)
    out = terminal.getvalue()
    assert "validation [" in out and "/ 7 iterations" in out and "iters/sec" in out
    assert out.endswith("\033[J")
    monkeypatch.undo()

    _evaluate(ext)  # on a stream that is not a terminal: one plain line when the sweep ends
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith("validation: 3 batches in ")
    assert lines[0].endswith(" s") and "\033" not in lines[0]


def test_iterator_warnings_and_errors():
    with pytest.warns(UserWarning, match="the iterator 'main' repeats"):
        Evaluator(SerialIterator(TupleDataset(X, T), 3), L.Linear(3, 2))
    with pytest.raises(TypeError, match="the iterator 'main' must be a dataset iterator, got list"):
        Evaluator([1, 2], L.Linear(3, 2))
    with pytest.raises(KeyError, match="one named 'main'"):
        Evaluator({"test": _iterator()}, L.Linear(3, 2))


def test_an_iterator_without_reset_is_copied_with_a_deprecation_warning():
    class Once:
        def __init__(self):
            self.batches = [[(X[0], T[0])]]

        def __next__(self):
            if not self.batches:
                raise StopIteration
            return self.batches.pop()

        def __iter__(self):
            return self

    ext = Evaluator(Once(), L.Classifier(L.Linear(3, 2)))
    with pytest.warns(DeprecationWarning, match="does not have the reset method"):
        result, _ = _evaluate(ext)
    assert "validation/main/loss" in result


def test_progress_bar_needs_position():
    class Plain:
        def __next__(self):
            raise StopIteration

        def __iter__(self):
            return self

        def reset(self):
            pass

    with pytest.raises(TypeError, match="progress_bar=True needs an iterator with current_position"):
        _evaluate(Evaluator(Plain(), L.Linear(3, 2), progress_bar=True))


# -- an evaluation that cannot be named after its targets is an error --------------------------------


def test_values_reported_without_an_observer_are_an_error_not_empty_columns(tmp_path):
    """A pure eval function that reports without naming its observer: the trainer stops at the
    first evaluation with an error that names what was expected and how to fix it."""
    from fnet import optim
    from fnet.training import Trainer
    from fnet.training.extensions import LogReport
    from fnet.training.updaters import FunctionalUpdater

    def loss_fn(params, state, batch):
        x, _ = batch
        return fnet.ops.mean((x * params["w"]) ** 2), (state, {})

    tx = optim.SGD(lr=0.1)
    params = {"w": numpy.ones(3, numpy.float32)}
    updater = FunctionalUpdater(
        SerialIterator(TupleDataset(X, T), 7), optim.make_train_step(loss_fn, tx), params, tx.init(params)
    )

    def evaluate(x, t):
        report({"loss": float(fnet.ops.mean((x * updater.params["w"]) ** 2))})  # no observer

    trainer = Trainer(updater, (2, "epoch"), out=str(tmp_path))
    trainer.extend(Evaluator(_iterator(), evaluate))
    trainer.extend(LogReport())
    with pytest.raises(ObserverError) as error:
        trainer.run(show_loop_exception_msg=False)
    assert isinstance(error.value, KeyError) and updater.iteration == 1
    assert str(error.value).startswith(
        "Evaluator: expected the evaluation to report values named 'validation/main/...', got values "
        "named ['loss'] (targets {'main': function "
    )
    assert "report({'loss': loss}, target)" in str(error.value)


def test_observer_errors_of_the_targets():
    def silent(x, t):
        pass

    with pytest.raises(ObserverError, match=r"report values named 'validation/main/...', got nothing"):
        _evaluate(Evaluator(_iterator(), silent))
    with pytest.raises(ObserverError, match=r"named after a target, but it has no target, got values"):
        _evaluate(Evaluator(_iterator(), {}, eval_func=lambda x, t: report({"n": len(t)})))
    with pytest.raises(ObserverError, match=r"eval_func returned \['n'\].*the targets are \['aux'\]"):
        _evaluate(Evaluator(_iterator(), {"aux": silent}, eval_func=lambda x, t: {"n": len(t)}))
    stranger = L.Linear(3, 2)
    with pytest.raises(
        ObserverError, match=r"the given observer \(Linear object\) is not registered.*\['validation/main'\]"
    ):
        _evaluate(Evaluator(_iterator(), silent, eval_func=lambda x, t: report({"n": 1}, stranger)))
    # values under one target are enough; an empty validation set reports nothing and is no error
    several = Evaluator(_iterator(), {"main": silent, "aux": L.Linear(3, 2)})
    several.eval_func = lambda x, t: report({"n": 1}, several.get_target("aux"))
    assert _evaluate(several)[0] == {"validation/aux/n": 1.0}

    class Empty:
        def __next__(self):
            raise StopIteration

        def __iter__(self):
            return self

        def reset(self):
            pass

    assert _evaluate(Evaluator(Empty(), silent))[0] == {}


def test_evaluate_alone_reports_to_the_current_reporter_as_in_chainer():
    """Chainer's Evaluator.evaluate() called outside __call__ uses the current reporter's observers."""
    model = L.Classifier(L.Linear(3, 2))
    ext = Evaluator(_iterator(), {}, eval_func=model)
    reporter = Reporter()
    reporter.add_observer("target", model)
    with reporter:
        result = ext.evaluate()
    assert sorted(result) == ["target/accuracy", "target/loss"]
