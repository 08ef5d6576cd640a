"""The reporter: observer naming, scopes, and summaries."""

import numpy
import pytest

from fnet.training import DictSummary, Reporter, Summary, get_current_reporter, report, report_scope


def test_observer_names_prefix_the_keys():
    reporter, observer = Reporter(), object()
    reporter.add_observer("main", observer)
    observation = {}
    with reporter.scope(observation):
        report({"loss": 1.5}, observer)
        report({"plain": 2})
        assert get_current_reporter() is reporter
    assert observation == {"main/loss": 1.5, "plain": 2}


def test_add_observers_with_a_prefix_and_nested_report_scope():
    reporter, a, b = Reporter(), object(), object()
    reporter.add_observers("main/", [("a", a), ("b", b)])
    outer, inner = {}, {}
    with reporter.scope(outer):
        with report_scope(inner):
            report({"x": 1}, b)
        report({"y": 2}, a)
    assert inner == {"main/b/x": 1} and outer == {"main/a/y": 2}


def test_unregistered_observer_and_no_reporter():
    reporter = Reporter()
    with reporter, pytest.raises(KeyError, match="not registered"):
        reporter.report({"x": 1}, object())
    report({"x": 1})  # no current reporter: nothing happens
    with pytest.raises(RuntimeError, match="no reporter is current"):
        get_current_reporter()


def test_summary_mean_and_std_with_weights():
    s = Summary()
    for v, w in [(1.0, 1), (3.0, 3), (numpy.float32(5.0), 1)]:
        s.add(v, weight=w)
    values = numpy.array([1, 3, 3, 3, 5.0])
    assert s.compute_mean() == pytest.approx(values.mean())
    mean, std = s.make_statistics()
    assert (mean, std) == (pytest.approx(values.mean()), pytest.approx(values.std()))


def test_dict_summary_skips_non_scalars_and_takes_weight_pairs():
    d = DictSummary()
    d.add({"a": 1.0, "b": numpy.ones(3), "c": (numpy.array(4.0), 2)})
    d.add({"a": 3.0, "c": 1.0})
    assert d.compute_mean() == {"a": 2.0, "c": pytest.approx(3.0)}
    stats = d.make_statistics()
    assert stats["a.std"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="weight given to c"):
        d.add({"c": (1.0, numpy.ones(2))})


def test_summaries_round_trip_and_load_old_snapshots_with_a_warning(tmp_path):
    from fnet.compat import serializers

    summary = DictSummary()
    summary.add({"a": 3.0, "b": 1.0})
    summary.add({"a": 1.0, "b": 5.0})
    serializers.save_npz(tmp_path / "new.npz", summary)
    loaded = DictSummary()
    loaded.add({"c": 2.0})
    serializers.load_npz(tmp_path / "new.npz", loaded)
    assert loaded.compute_mean() == {"a": 2.0, "b": 3.0}  # the saved names replace the others

    numpy.savez(tmp_path / "old.npz", dummy=0)  # Chainer before v5 saved nothing of a summary
    with pytest.warns(UserWarning, match="holds no names of statistics"):
        serializers.load_npz(tmp_path / "old.npz", loaded)
    loaded.add({"a": 9.0})
    assert loaded.compute_mean() == {"a": 9.0}
    single = Summary()
    with pytest.warns(UserWarning, match="holds no sums"):
        serializers.load_npz(tmp_path / "old.npz", single)
    single.add(2.0)
    single.add(3.0)
    assert single.compute_mean() == 2.5
