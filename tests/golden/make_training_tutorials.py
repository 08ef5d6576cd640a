"""Chainer's side of the trainer tutorial tests (tests/training/test_tutorials.py), made with
Chainer 7.8.1, which needs matplotlib and Pillow beside it for the tutorials' plots and images::

    pip install --target /tmp/chainer_extra matplotlib pillow   # then remove its numpy
    PYTHONPATH=/tmp/chainer_extra benchmarks/.venvs/chainer/bin/python tests/golden/make_training_tutorials.py

It runs each tutorial program of tests/training/tutorials/programs.py under Chainer itself, in
a temporary directory with a dataset cache made there, and writes ``training_tutorials.json``
next to this file: each run's record (what does not depend on the random draws: PrintReport's
rows, LogReport's entries, the files and snapshot keys written, the counters), which the tests
compare with fnet's. The mushrooms CSV is read from ../shared/data (beside the repository).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import sys
import tempfile

import chainer

assert chainer.__version__ == "7.8.1", chainer.__version__

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.training.tutorials import programs  # noqa: E402

OUT = pathlib.Path(__file__).with_name("training_tutorials.json")
MUSHROOMS = ROOT.parent / "shared" / "data" / "mushrooms.csv"


@contextlib.contextmanager
def fresh_directory():
    """A new working directory with its own dataset cache (Chainer reads CHAINER_DATASET_ROOT
    once, at import: the root is also set with ``set_dataset_root``)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CHAINER_DATASET_ROOT"] = os.path.join(tmp, "cache")
        chainer.dataset.set_dataset_root(os.environ["CHAINER_DATASET_ROOT"])
        work = pathlib.Path(tmp, "work")
        work.mkdir()
        with contextlib.chdir(work):
            yield work


def main():
    golden = {}
    with fresh_directory() as work:
        shutil.copy(MUSHROOMS, work / "mushrooms.csv")
        golden["glance"] = programs.record_glance(*programs.run_glance())
    with fresh_directory():
        golden["mnist_trainer"] = programs.record_mnist_trainer(*programs.run_mnist_trainer())
    with fresh_directory() as work:
        straight, stopped = work / "straight", work / "stopped"
        straight.mkdir()
        stopped.mkdir()
        runs = programs.run_mnist_trainer_resumed(straight, stopped)
        golden["mnist_trainer_resumed"] = programs.record_mnist_trainer_resumed(*runs, straight, stopped)
    with fresh_directory():
        golden["train_loop"] = programs.record_train_loop(*programs.run_train_loop())
    with fresh_directory():
        golden["recurrent_nets"] = programs.record_recurrent_nets(*programs.run_recurrent_nets())
    with fresh_directory():
        golden["recurrent_nets_trainer"] = programs.record_recurrent_nets_trainer(
            *programs.run_recurrent_nets_trainer()
        )
    with fresh_directory():
        golden["dcgan"] = programs.record_dcgan(*programs.run_dcgan())
    OUT.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
