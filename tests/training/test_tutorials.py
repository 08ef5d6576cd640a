"""The seeds' trainer tutorials run unchanged through the ``chainer`` alias (issue #7 acceptance).

Each tutorial's samples (tests/training/tutorials) run in order as one program
(tests/training/tutorials/programs.py), in a working directory under ``tmp_path`` (where the
samples' relative outputs, ``result/``, ``mnist_result/``, ``5.png``, land), against a dataset
cache filled in Chainer's layout and named by ``CHAINER_DATASET_ROOT``; any download fails.
Only settings are shrunk (epochs, batch sizes, unit counts, intervals, examples), each where
``shrink`` is called. A run is compared with Chainer 7.8.1's run of the same program
(tests/golden/make_training_tutorials.py) in all that does not depend on random draws: the
rows PrintReport prints, the LogReport entries, the files written, the snapshots' keys, the
counters. Then what the seeds print and describe is checked: the predictions, a falling loss,
the printed values being the logged ones, a resumed training equal to a straight one.

The "Trainer extensions" guide's custom extensions are tested in
tests/training/extensions/test_guide.py.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator

import numpy
import pytest

from ..compat.test_tutorials import chainer_alias  # noqa: F401 - autouse: ``import chainer`` is fnet.compat
from .tutorials import glance, mnist_trainer, programs, train_loop

REPO = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = json.loads((REPO / "tests" / "golden" / "training_tutorials.json").read_text())
MUSHROOMS = (REPO.parent / "shared" / "data" / "mushrooms.csv",)


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Iterator[pathlib.Path]:
    """An empty working directory, a dataset cache root named by ``CHAINER_DATASET_ROOT``
    (``tmp_path/cache``), and no network: every URL fails at once. The figures the samples
    leave open are closed afterwards."""

    def urlopen(url, *args, **kwargs):
        raise urllib.error.URLError(f"the tutorial tests may not download {url}")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.delenv("FNET_DATASET_ROOT", raising=False)
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def assert_printed_values_are_logged(out: str, header, log: list[dict]) -> None:
    """PrintReport's float columns show the LogReport entries' values."""
    rows = programs.printed_rows(out, header)
    assert len(rows) == len(log)
    for row, entry in zip(rows, log):
        for key, field in zip(header, row):
            if key not in ("epoch", "iteration"):
                assert float(field) == pytest.approx(entry[key], rel=1e-5), key


# --- Chainer at a Glance ------------------------------------------------------------------------


@pytest.fixture
def mushrooms(workdir) -> pathlib.Path:
    """The seed's mushrooms.csv (from ../shared/data), copied into the working directory."""
    source = next((path for path in MUSHROOMS if path.is_file()), None)
    if source is None:
        pytest.skip(f"mushrooms.csv is absent (looked for {' and '.join(map(str, MUSHROOMS))})")
    (workdir / "mushrooms.csv").write_bytes(source.read_bytes())
    return workdir


def test_chainer_at_a_glance(mushrooms):
    # 8124 mushrooms, 70% to train: 57 batches of 100 an epoch; 4 epochs, a snapshot every 2.
    pytest.importorskip("matplotlib")
    ns, out = programs.run_glance()
    assert programs.record_glance(ns, out) == GOLDEN["glance"]

    log = programs.read_log(mushrooms / "result" / "log")
    assert_printed_values_are_logged(out, glance.PRINT_HEADER, log)
    losses = [entry["main/loss"] for entry in log]
    assert losses == sorted(losses, reverse=True), losses
    assert log[-1]["validation/main/accuracy"] > 0.8  # the seed's run: 0.85 after 4 epochs
    assert "digraph" in (mushrooms / "result" / "cg.dot").read_text()
    assert re.search(r"^Predicted (Edible|Poisonous), Actual (Edible|Poisonous)$", out, re.M)


# --- MNIST using Trainer ------------------------------------------------------------------------


def test_mnist_using_trainer(workdir):
    # 1024 training images (8 batches of 128 an epoch), 2 epochs instead of 10.
    pytest.importorskip("matplotlib")
    ns, out = programs.run_mnist_trainer()
    assert programs.record_mnist_trainer(ns, out) == GOLDEN["mnist_trainer"]

    log = programs.read_log(workdir / "mnist_result" / "log")
    assert_printed_values_are_logged(out, mnist_trainer.PRINT_HEADER, log)
    assert log[1]["main/loss"] < log[0]["main/loss"]
    assert log[1]["validation/main/loss"] < log[0]["validation/main/loss"]
    assert log[1]["validation/main/accuracy"] == 1.0
    # Section 8 loads the last epoch's model into a new MLP and predicts test[0] as the seed.
    assert out.endswith(mnist_trainer.EVALUATE_OUTPUT)
    trained = ns["trainer"].updater.get_optimizer("main").target.predictor
    for name, param in trained.namedparams():
        numpy.testing.assert_array_equal(dict(ns["model"].namedparams())[name].array, param.array)


def test_mnist_using_trainer_resumes_from_a_snapshot(workdir):
    # Two epochs straight, against one epoch and a new program resuming from its snapshot for
    # the second: the same parameters and the same log, which goes on from the snapshot's; as
    # Chainer's, the resumed PrintReport prints the whole log, the first epoch too.
    pytest.importorskip("matplotlib")
    straight, stopped = workdir / "straight", workdir / "stopped"
    straight.mkdir()
    stopped.mkdir()
    runs = programs.run_mnist_trainer_resumed(straight, stopped)
    record = programs.record_mnist_trainer_resumed(*runs, straight, stopped)
    assert record == GOLDEN["mnist_trainer_resumed"]
    assert record["same_parameters"] and record["same_log"]


# --- MNIST with a Manual Training Loop ----------------------------------------------------------


def test_mnist_with_a_manual_training_loop(workdir):
    # 512 training images (4 batches of 128 an epoch), 10 epochs as in the guide.
    pytest.importorskip("matplotlib")
    ns, printed = programs.run_train_loop()
    assert programs.record_train_loop(ns, printed) == GOLDEN["train_loop"]

    dataset, _, _, _, loop, _, load, predict = printed
    assert dataset == train_loop.DATASET_OUTPUT
    lines = loop.splitlines()
    assert all(re.fullmatch(train_loop.EPOCH_LINE, line) for line in lines), loop
    val_losses = [float(re.search(r"val_loss:(\S+)", line).group(1)) for line in lines]
    assert val_losses[-1] < 0.6 * val_losses[0], loop
    assert float(lines[-1][-6:]) > 0.9  # the last validation accuracy
    assert load == train_loop.LOAD_OUTPUT and predict == train_loop.PREDICT_OUTPUT
    assert {"5.png", "7.png", "my_mnist.model"} <= {path.name for path in workdir.iterdir()}


# --- Recurrent Nets and their Computational Graph -----------------------------------------------


def test_recurrent_nets_full_and_truncated_backprop():
    # One update by full backprop, one through optimizer.update(compute_loss, x_list), then
    # truncated backprop every 30 of the 99 steps: 4 updates.
    ns, steps = programs.run_recurrent_nets()
    assert steps == GOLDEN["recurrent_nets"]["steps"] == [1, 2, 6]
    assert ns["loss"].creator is None  # the history behind the last loss is cut
    assert ns["rnn"].mid.h is not None  # "the last state of model is not lost"


def test_recurrent_nets_truncation_leaves_the_state_a_root():
    ns, steps = programs.run_recurrent_nets()
    assert programs.record_recurrent_nets(ns, steps) == GOLDEN["recurrent_nets"]


def test_recurrent_nets_truncated_bptt_updater(workdir):
    # 400 PTB words (20 steps of 20 words an epoch), bprop_len 5 (4 updates an epoch), 3 epochs.
    ns, out = programs.run_recurrent_nets_trainer()
    assert programs.record_recurrent_nets_trainer(ns, out) == GOLDEN["recurrent_nets_trainer"]

    log = programs.read_log(workdir / "result" / "log")
    assert_printed_values_are_logged(out, programs.RNN_HEADER, log)
    assert log[-1]["main/loss"] < log[0]["main/loss"] - 0.5, [entry["main/loss"] for entry in log]
    with numpy.load(workdir / "result" / "snapshot_iter_8") as saved:  # the guide's iterator's state
        assert int(saved["updater/iterator:main/iteration"]) == 40
        assert int(saved["updater/iterator:main/epoch"]) == 2


# --- DCGAN ---------------------------------------------------------------------------------------


def test_dcgan_updater_with_two_optimizers(workdir):
    # 10 CIFAR-10 images (2 batches of 5 an epoch), 2 epochs, 16 channels instead of 512.
    pytest.importorskip("PIL")
    ns, out = programs.run_dcgan()
    assert programs.record_dcgan(ns, out) == GOLDEN["dcgan"]

    log = programs.read_log(workdir / "result" / "log")
    assert_printed_values_are_logged(out, programs.DCGAN_HEADER, log)
    assert numpy.isfinite([[entry["gen/loss"], entry["dis/loss"]] for entry in log]).all()
    updater = ns["updater"]
    assert updater.get_optimizer("gen") is ns["opt_gen"] and updater.get_optimizer("dis") is ns["opt_dis"]
    for optimizer in (ns["opt_gen"], ns["opt_dis"]):
        with pytest.raises(KeyError):  # the weight decay is in place, under the guide's name
            optimizer.add_hook(ns["chainer"].optimizer_hooks.WeightDecay(0.0001), "hook_dec")
    with numpy.load(workdir / "result" / "gen_iter_4.npz") as saved:
        numpy.testing.assert_array_equal(saved["l0/W"], ns["gen"].l0.W.array)
        numpy.testing.assert_array_equal(saved["bn1/avg_mean"], ns["gen"].bn1.avg_mean)
