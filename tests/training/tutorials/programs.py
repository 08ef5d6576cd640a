"""The tutorials as runnable programs, shared by the tests (fnet, through the ``chainer`` alias)
and by Chainer 7.8.1's golden run (tests/golden/make_training_tutorials.py).

Each ``run_*`` function fills the dataset cache named by ``CHAINER_DATASET_ROOT`` with small
files in Chainer's layout, runs a tutorial's samples in order in the current directory with its
settings shrunk (each change made by :func:`shrink`, with the reason beside it), and returns the
program's namespace and what it printed. Each ``record_*`` function reduces a run to what does
not depend on the framework's random draws (the integer columns of PrintReport's rows, the
LogReport entries' keys, epochs and iterations, the files written, the keys of the snapshots,
the counters): the golden run records Chainer's, and the tests compare fnet's with them.

Nothing here imports fnet; ``chainer`` is whichever the caller provides.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import re
import sys
import types

import numpy

from ..._strict_backend import compat_gpu_id
from ...compat.tutorials import namespace, run_code
from ...data import fake_cache
from . import dcgan, glance, mnist_trainer, recurrent_nets, shrink, train_loop

__all__ = [
    "DCGAN_HEADER",
    "MNIST_EPOCHS",
    "OUT_GENERATED_IMAGE",
    "RNN_HEADER",
    "RNN_TRAINER",
    "UNCOMPARED_FILES",
    "learnable_mnist",
    "outline",
    "printed_rows",
    "put_cifar10",
    "put_mnist",
    "put_ptb",
    "read_log",
    "record_dcgan",
    "record_glance",
    "record_mnist_trainer",
    "record_mnist_trainer_resumed",
    "record_recurrent_nets",
    "record_recurrent_nets_trainer",
    "record_train_loop",
    "run_dcgan",
    "run_glance",
    "run_mnist_trainer",
    "run_mnist_trainer_resumed",
    "run_recurrent_nets",
    "run_recurrent_nets_trainer",
    "run_train_loop",
    "snapshot_keys",
    "without_time",
]

# DumpGraph also draws cg.png when Graphviz's ``dot`` is installed: not compared.
UNCOMPARED_FILES = frozenset({"cg.png"})

MNIST_EPOCHS = 2  # the guide's 10, shrunk (PlotReport draws two figures an epoch, the slowest part)


# --- the dataset cache ---------------------------------------------------------------------------


def _root() -> str:
    return os.environ["CHAINER_DATASET_ROOT"]


def learnable_mnist(n: int, seed: int, first_label: int) -> tuple[numpy.ndarray, numpy.ndarray]:
    """``n`` MNIST-shaped uint8 images that a small MLP separates in a few updates: digit k is
    dark noise with bright rows 2k+4 to 2k+6. Example 0 is a ``first_label``."""
    rng = numpy.random.RandomState(seed)
    labels = rng.randint(0, 10, n).astype(numpy.uint8)
    labels[0] = first_label
    images = rng.randint(0, 30, (n, 28, 28)).astype(numpy.uint8)
    for image, label in zip(images, labels):
        image[2 * label + 4 : 2 * label + 7] = rng.randint(200, 256, (3, 28))
    return images.reshape(n, 784), labels


def put_mnist(n_train: int, n_test: int) -> None:
    """The four MNIST downloads; train[0] is a 5 and test[0] a 7, as in the seeds' outputs."""
    splits = {"train": learnable_mnist(n_train, 0, 5), "test": learnable_mnist(n_test, 1, 7)}
    fake_cache.put_mnist_downloads(_root(), "mnist", splits)


def put_cifar10(n_train: int, n_test: int) -> None:
    """CIFAR-10 as Chainer caches it after the download (Chainer's reading of the download
    itself wants batches of 10000 images)."""
    train, test = fake_cache.cifar_arrays(n_train, 2, 10), fake_cache.cifar_arrays(n_test, 3, 10)
    fake_cache.put_cifar_npz(_root(), "cifar-10", train, test)


def put_ptb(n_sentences: int) -> None:
    """PTB downloads made of five fixed four-word phrases (five words with ``<eos>``), so that
    the next word is mostly predictable: 21 words in all."""
    rng = numpy.random.RandomState(4)
    phrases = [" ".join(f"w{4 * p + i}" for i in range(4)) for p in range(5)]
    for split, count in (("train", n_sentences), ("valid", 4), ("test", 4)):
        text = "".join(f" {phrases[i]} \n" for i in rng.randint(0, len(phrases), count))
        fake_cache.put_download(_root(), fake_cache.PTB_URL.format(split), text.encode())


# --- running samples -------------------------------------------------------------------------------


class _CurrentStdout:
    """Writes to whatever ``sys.stdout`` is at the time of writing."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


@contextlib.contextmanager
def _captured():
    """Collect what the program prints (yields a StringIO).

    PrintReport and ProgressBar, in Chainer as in fnet, write by default to ``sys.stdout`` as it
    was when their module was imported; while the program runs, that default follows the
    current ``sys.stdout``."""
    from chainer.training import extensions

    classes = (extensions.PrintReport, extensions.ProgressBar)
    saved = [cls.__init__.__defaults__ for cls in classes]
    for cls, defaults in zip(classes, saved):
        cls.__init__.__defaults__ = tuple(_CurrentStdout() if hasattr(d, "write") else d for d in defaults)
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield buffer
    finally:
        for cls, defaults in zip(classes, saved):
            cls.__init__.__defaults__ = defaults


def _run(ns: dict, samples, name: str) -> tuple[dict, str]:
    with _captured() as out:
        for sample in samples:
            run_code(sample, ns, name)
    return ns, out.getvalue()


# --- the tutorials -------------------------------------------------------------------------------


def run_glance() -> tuple[dict, str]:
    """'Chainer at a Glance', with ``mushrooms.csv`` in the current directory."""
    samples = list(glance.SAMPLES)
    # the guide's updater and evaluator on the host (device=-1), or the stand-in GPU's
    samples = [sample.replace("device=-1", f"device={compat_gpu_id()}") for sample in samples]
    # Shrunk: 4 epochs instead of 50, a snapshot every 2 epochs instead of 20.
    samples[samples.index(glance.TRAINER)] = shrink(glance.TRAINER, ("(50, 'epoch')", "(4, 'epoch')"))
    samples[samples.index(glance.SNAPSHOT)] = shrink(glance.SNAPSHOT, ("(20, 'epoch')", "(2, 'epoch')"))
    numpy.random.seed(0)
    return _run({"__name__": "glance"}, samples, glance.__name__)


def _mnist_trainer_samples(max_epoch: int) -> list[str]:
    samples = list(mnist_trainer.SAMPLES)
    # The guide's own note: "Set to -1 if you use CPU" (0 stays with --backend=strict-compat).
    samples[2] = shrink(mnist_trainer.MODEL, ("gpu_id = 0", f"gpu_id = {compat_gpu_id()}"))
    # Shrunk: ``max_epoch`` epochs; section 8 loads the model of the last one.
    samples[3] = shrink(mnist_trainer.UPDATER, ("max_epoch = 10", f"max_epoch = {max_epoch}"))
    samples[7] = shrink(mnist_trainer.EVALUATE, ("model_epoch-10", f"model_epoch-{max_epoch}"))
    return samples


def run_mnist_trainer() -> tuple[dict, str]:
    """'MNIST using Trainer', all of it: 1024 training images (8 batches of 128 an epoch)."""
    put_mnist(1024, 100)
    return _run(namespace(), _mnist_trainer_samples(MNIST_EPOCHS), mnist_trainer.__name__)


def run_mnist_trainer_resumed(straight: pathlib.Path, stopped: pathlib.Path) -> tuple[dict, dict, str]:
    """'MNIST using Trainer' with the MNIST example's progress bar, trained for two epochs in
    ``straight``; then in ``stopped`` for one epoch, and by a new program that resumes from the
    snapshot of that epoch (the seed's ``args.resume`` idiom) for the second. Returns the two
    two-epoch namespaces and what the resumed program printed."""
    put_mnist(512, 100)
    training = _mnist_trainer_samples(MNIST_EPOCHS)[:-2] + [mnist_trainer.PROGRESS_BAR]
    with contextlib.chdir(straight):
        straight_ns, _ = _run(namespace(), training + [mnist_trainer.RUN], mnist_trainer.__name__)
    with contextlib.chdir(stopped):
        first = _mnist_trainer_samples(1)[:-2] + [mnist_trainer.PROGRESS_BAR, mnist_trainer.RUN]
        _run(namespace(), first, mnist_trainer.__name__)
        resumed = namespace()
        resumed["args"] = argparse.Namespace(resume="mnist_result/snapshot_epoch-1")
        resumed, out = _run(
            resumed, training + [mnist_trainer.RESUME, mnist_trainer.RUN], mnist_trainer.__name__
        )
    return straight_ns, resumed, out


def run_train_loop() -> tuple[dict, list[str]]:
    """'MNIST with a Manual Training Loop': 512 training images (4 batches of 128 an epoch),
    10 epochs as in the guide. Returns what each sample printed, sample by sample."""
    put_mnist(512, 100)
    ns, printed = namespace(), []
    for sample in train_loop.SAMPLES:
        if sample is train_loop.NETWORK:
            # The guide's own note: "Set to -1 if you use CPU" (0 stays with --backend=strict-compat).
            sample = shrink(sample, ("gpu_id = 0", f"gpu_id = {compat_gpu_id()}"))
        printed.append(_run(ns, [sample], train_loop.__name__)[1])
    return ns, printed


def run_recurrent_nets() -> tuple[dict, list[int]]:
    """The guide's RNN trained by hand: full backprop, ``optimizer.update(compute_loss, ...)``
    and truncated backprop, on 100 one-word mini-batches ("suppose we have a list of word
    variables x_list"). Returns the namespace and ``optimizer.t`` after each of the three."""
    ns = namespace()
    run_code(recurrent_nets.RNN, ns)
    run_code(recurrent_nets.COMPUTE_LOSS, ns)
    words = numpy.random.RandomState(5).randint(0, 1000, 100).astype(numpy.int32)
    ns["x_list"] = [ns["Variable"](words[i : i + 1]) for i in range(100)]
    steps = []
    for sample in (
        recurrent_nets.FULL_BACKPROP,
        recurrent_nets.UPDATE_WITH_LOSSFUN,
        recurrent_nets.TRUNCATED_BACKPROP,
    ):
        run_code(sample, ns, recurrent_nets.__name__)
        steps.append(ns["optimizer"].t)
    return ns, steps


RNN_HEADER = ("epoch", "iteration", "main/loss", "main/accuracy")

# "The rest of the code for setting up Trainer is almost same as one given in the previous
# tutorial": written here, with the PTB example's learning rate of 1.
RNN_TRAINER = """\
optimizer.lr = 1.0
trainer = training.Trainer(updater, (3, 'epoch'), out='result')
trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'main/loss', 'main/accuracy']),
               trigger=(2, 'iteration'))
trainer.extend(extensions.snapshot(), trigger=(1, 'epoch'))
trainer.run()
"""


def run_recurrent_nets_trainer() -> tuple[dict, str]:
    """The guide's ``ParallelSequentialIterator`` and ``BPTTUpdater`` in a trainer: 400 PTB
    words (20 steps of 20 words an epoch), ``bprop_len`` 5 (4 updates an epoch), 3 epochs."""
    put_ptb(80)
    ns = namespace()
    run_code("train, val, test = chainer.datasets.get_ptb_words()", ns)
    ns["bprop_len"] = 5
    samples = (recurrent_nets.RNN, recurrent_nets.ITERATOR, recurrent_nets.UPDATER, RNN_TRAINER)
    return _run(ns, samples, recurrent_nets.__name__)


# examples/dcgan/visualize.py's ``out_generated_image`` (the seed does not show it), reduced to
# what the trainer needs: an extension that draws rows x cols images from the generator, with a
# fixed seed and outside training mode, and saves them as one PNG under ``<dst>/preview``.
OUT_GENERATED_IMAGE = """\
import os
from PIL import Image
import chainer.backends.cuda


def out_generated_image(gen, dis, rows, cols, seed, dst):
    @chainer.training.make_extension()
    def make_image(trainer):
        state = numpy.random.get_state()
        numpy.random.seed(seed)
        z = Variable(gen.xp.asarray(gen.make_hidden(rows * cols)))
        with chainer.using_config('train', False):
            x = chainer.backends.cuda.to_cpu(gen(z).array)
        numpy.random.set_state(state)
        x = numpy.clip(x * 255, 0, 255).astype(numpy.uint8)
        _, _, h, w = x.shape
        grid = x.reshape(rows, cols, 3, h, w).transpose(0, 3, 1, 4, 2).reshape(rows * h, cols * w, 3)
        os.makedirs(os.path.join(dst, 'preview'), exist_ok=True)
        path = os.path.join(dst, 'preview', 'image{:0>8}.png'.format(trainer.updater.iteration))
        Image.fromarray(grid).save(path)
    return make_image
"""


def _chainerx():
    """``chainerx`` as net.py imports it; fnet has none, and a stand-in module is used: that of
    a Chainer built without ChainerX, which no device's ``xp`` is."""
    try:
        import chainerx
    except ImportError:
        chainerx = types.ModuleType("chainerx")
        chainerx.is_available = lambda: False
    return chainerx


DCGAN_HEADER = ("epoch", "iteration", "gen/loss", "dis/loss")


def run_dcgan() -> tuple[dict, str]:
    """The DCGAN tutorial on 10 CIFAR-10 images (2 batches of 5 an epoch), 2 epochs."""
    put_cifar10(10, 4)
    ns = {"__name__": "dcgan", "chainerx": _chainerx()}
    run_code(dcgan.MODULE_IMPORTS, ns)
    run_code(OUT_GENERATED_IMAGE, ns)
    # train_dcgan.py's arguments, shrunk: batches of 5 (50), 2 epochs (1000), 10 hidden units
    # (100), a snapshot every 2 iterations (1000) and a log line every iteration (100).
    ns["args"] = argparse.Namespace(
        batchsize=5, epoch=2, n_hidden=10, seed=0, snapshot_interval=2, display_interval=1, out="result"
    )
    # as train_dcgan.py does, with its --device default (-1), or the stand-in GPU's
    run_code(f"device = chainer.get_device('{compat_gpu_id()}')\ndevice.use()", ns)
    samples = list(dcgan.SAMPLES)
    # Shrunk: 16 channels in the widest layers instead of 512.
    samples[samples.index(dcgan.MODELS)] = shrink(
        dcgan.MODELS,
        ("Generator(n_hidden=args.n_hidden)", "Generator(n_hidden=args.n_hidden, ch=16)"),
        ("Discriminator()", "Discriminator(ch=16)"),
    )
    # Shrunk: the progress bar is drawn every iteration instead of every 10.
    samples[samples.index(dcgan.TRAINER)] = shrink(
        dcgan.TRAINER, ("ProgressBar(update_interval=10)", "ProgressBar(update_interval=1)")
    )
    numpy.random.seed(0)
    return _run(ns, samples, dcgan.__name__)


# --- what a run leaves -----------------------------------------------------------------------------


def printed_rows(out: str, header) -> list[list[str]]:
    """The rows PrintReport printed under ``header`` (which must have been printed), each a
    list of fields, without the progress bar's lines."""
    lines = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", out).splitlines()  # without the terminal controls
    starts = [i for i, line in enumerate(lines) if line.split() == list(header)]
    if not starts:
        raise AssertionError(f"PrintReport's header {list(header)} was not printed:\n{out}")
    rows = []
    for line in lines[starts[0] + 1 :]:
        fields = line.split()
        if len(fields) == len(header) and fields[0].isdigit():
            rows.append(fields)
    return rows


def outline(out: str, header, directory, integer_columns: int = 1) -> dict:
    """What a run printed and wrote, up to the values that depend on random draws: the integer
    columns of PrintReport's rows, each LogReport entry's keys, epoch and iteration, and the
    files under ``directory`` (the trainer's ``out``)."""
    directory = pathlib.Path(directory)
    log = read_log(directory / "log")
    return {
        "printed": [row[:integer_columns] for row in printed_rows(out, header)],
        "log": [
            {"keys": sorted(entry), "epoch": entry["epoch"], "iteration": entry["iteration"]} for entry in log
        ],
        "files": sorted(
            path.relative_to(directory).as_posix()
            for path in directory.rglob("*")
            if path.is_file() and path.name not in UNCOMPARED_FILES
        ),
    }


def snapshot_keys(path) -> list[str]:
    """The keys of an npz snapshot, but fnet's ``.../order_sampler_state`` (an iterator's random
    state, which Chainer does not save)."""
    with numpy.load(path) as saved:
        return sorted(key for key in saved.files if not key.endswith("/order_sampler_state"))


def read_log(path) -> list[dict]:
    """The entries of a LogReport file."""
    return json.loads(pathlib.Path(path).read_text())


def without_time(log: list[dict]) -> list[dict]:
    """LogReport's entries without ``elapsed_time``."""
    return [{key: value for key, value in entry.items() if key != "elapsed_time"} for entry in log]


def record_glance(ns: dict, out: str) -> dict:
    """What :func:`run_glance` leaves in the current directory and prints."""
    shapes = sorted(list(link.W.shape) for link in ns["model"].predictor.links() if hasattr(link, "W"))
    return {
        "outline": outline(out, glance.PRINT_HEADER, "result"),
        "snapshot_keys": snapshot_keys("result/snapshot_iter_228"),
        "sizes": [len(ns["train"]), len(ns["test"])],
        "shapes": shapes,
    }


def record_mnist_trainer(ns: dict, out: str) -> dict:
    """What :func:`run_mnist_trainer` leaves and prints (the evaluation's two lines last)."""
    return {
        "outline": outline(out, mnist_trainer.PRINT_HEADER, "mnist_result"),
        "snapshot_keys": snapshot_keys(f"mnist_result/snapshot_epoch-{MNIST_EPOCHS}"),
        "model_keys": snapshot_keys(f"mnist_result/model_epoch-{MNIST_EPOCHS}"),
        "evaluate": out.splitlines()[-2:],
    }


def record_mnist_trainer_resumed(straight_ns: dict, resumed: dict, out: str, straight, stopped) -> dict:
    """How the resumed run of :func:`run_mnist_trainer_resumed` compares with the straight one,
    and the epochs its PrintReport printed."""
    straight_params = {name: param.array for name, param in straight_ns["model"].namedparams()}
    resumed_params = {name: param.array for name, param in resumed["model"].namedparams()}
    straight_log = read_log(pathlib.Path(straight, "mnist_result", "log"))
    resumed_log = read_log(pathlib.Path(stopped, "mnist_result", "log"))
    return {
        "printed": [row[0] for row in printed_rows(out, mnist_trainer.PRINT_HEADER)],
        "iteration": resumed["trainer"].updater.iteration,
        "same_parameters": straight_params.keys() == resumed_params.keys()
        and all(numpy.array_equal(straight_params[k], resumed_params[k]) for k in straight_params),
        "same_log": without_time(straight_log) == without_time(resumed_log),
        "elapsed_time_goes_on": resumed_log[1]["elapsed_time"] > resumed_log[0]["elapsed_time"],
    }


def record_train_loop(ns: dict, printed: list[str]) -> dict:
    """What each sample printed, the loop's numbers masked."""
    return {
        "printed": [re.sub(r"\d+\.\d{4}", "#", text) for text in printed],
        "epoch": ns["train_iter"].epoch,
    }


def record_recurrent_nets(ns: dict, steps: list[int]) -> dict:
    """The optimizer's steps in :func:`run_recurrent_nets`, and whether the last loss and the
    LSTM's state have no creator once the graph is unchained."""
    return {
        "steps": steps,
        "loss_is_a_root": ns["loss"].creator is None,
        "state_is_a_root": ns["rnn"].mid.h.creator is None,
    }


def record_recurrent_nets_trainer(ns: dict, out: str) -> dict:
    """What :func:`run_recurrent_nets_trainer` leaves and prints, and where the updater and
    the guide's iterator stopped."""
    updater, train_iter = ns["updater"], ns["train_iter"]
    return {
        "outline": outline(out, RNN_HEADER, "result", integer_columns=2),
        "snapshot_keys": snapshot_keys("result/snapshot_iter_8"),
        "positions": [
            updater.iteration,
            updater.epoch,
            updater.epoch_detail,
            train_iter.iteration,
            train_iter.epoch,
        ],
    }


def record_dcgan(ns: dict, out: str) -> dict:
    """What :func:`run_dcgan` leaves and prints, and the two optimizers' steps."""
    return {
        "outline": outline(out, DCGAN_HEADER, "result", integer_columns=2),
        "snapshot_keys": snapshot_keys("result/snapshot_iter_4.npz"),
        "gen_keys": snapshot_keys("result/gen_iter_4.npz"),
        "dis_keys": snapshot_keys("result/dis_iter_4.npz"),
        "t": [ns["opt_gen"].t, ns["opt_dis"].t],
        # a terminal gets Chainer's bars; a captured stream, plain lines (fnet)
        "progress_bar": re.search(r"iters/sec[.,] [Ee]stimated time to finish:", out) is not None,
    }
