"""``MultiprocessParallelUpdater``: synchronous data parallelism over worker processes, on the CPU.

Chainer's version runs one process per GPU and sums the gradients with NCCL. fnet's runs one
process per ``'@numpy'`` device: worker ``i`` (a forked copy of the model) reads its own
iterator, computes its gradients and writes them into shared memory; the main process adds them
to its own, updates the model, and writes the new parameters into shared memory, from which the
workers start their next step. The update is the one Chainer's makes: the sum of the devices'
gradients, with the optimizer's learning rate (or ``eps``) rescaled for it at construction.
GPU devices are not supported (they need CuPy with NCCL): use ``ParallelUpdater`` for them.

As in Chainer, only the main iterator's position is saved by ``serialize`` (the workers'
iterators live in their processes), values reported by the workers' models are dropped, and
persistent values (batch-normalization statistics) are not shared between the processes.
"""

from __future__ import annotations

import multiprocessing
import signal
import traceback
import warnings
from collections.abc import Callable

import numpy

from ... import backend
from ...data import convert
from .standard_updater import StandardUpdater
from .updater import _arguments

__all__ = ["MultiprocessParallelUpdater"]

_EPS_SCALED = {"Adam": 1, "AdaGrad": 1, "RMSprop": 1, "RMSpropGraves": 2, "AdaDelta": 2}
_ALIGN = 64  # bytes between the arrays of a shared buffer
_REAP_TIMEOUT = 5.0  # seconds to wait for a worker whose pipe closed to report its exit status


class _Layout:
    """Where each initialized parameter of a model lives in a flat shared buffer (in name order)."""

    def __init__(self, model):
        self.entries = []  # (name, offset, shape, dtype)
        offset = 0
        for name, param in sorted(model.namedparams()):
            array = param.array
            if array is None:
                raise RuntimeError(
                    f"MultiprocessParallelUpdater: the parameter {name} is not initialized\n"
                    "  hint: give the links their input sizes, or run one forward pass before training"
                )
            if array.size == 0:
                continue
            self.entries.append((name, offset, array.shape, array.dtype))
            offset += -(-array.nbytes // _ALIGN) * _ALIGN
        self.nbytes = max(offset, _ALIGN)

    def views(self, raw) -> dict:
        """The parameters' arrays inside the shared buffer ``raw``, by name."""
        flat = numpy.frombuffer(raw, dtype=numpy.uint8)
        return {
            name: flat[offset : offset + int(numpy.prod(shape)) * dtype.itemsize].view(dtype).reshape(shape)
            for name, offset, shape, dtype in self.entries
        }


def _worker_main(conn, model, iterator, converter, device, layout, shared_params, shared_grads) -> None:
    """The loop of a worker process: on 'update', load the parameters, compute the gradients of
    the next batch and write them out; answer ('done', None) or ('error', traceback)."""
    params_in, grads_out = layout.views(shared_params), layout.views(shared_grads)
    named = dict(model.namedparams())
    while True:
        try:
            job = conn.recv()
        except EOFError:  # the main process is gone
            return
        if job != "update":
            return
        try:
            for name, source in params_in.items():
                named[name].array[...] = source
            model.cleargrads()
            args, kwargs = _arguments(convert._call_converter(converter, next(iterator), device))
            loss = model(*args, **kwargs)
            model.cleargrads()
            loss.backward()
            del loss
            for name, target in grads_out.items():
                grad = named[name].grad
                if grad is None:
                    target[...] = 0
                else:
                    target[...] = grad
            conn.send(("done", None))
        except BaseException:
            conn.send(("error", traceback.format_exc()))


class MultiprocessParallelUpdater(StandardUpdater):
    """A ``StandardUpdater`` that computes the gradients of several batches in parallel processes.

    Args:
        iterators: one iterator per device (the first is the main one); their datasets must
            have the same length. Each process reads batches from its own iterator.
        optimizer: the optimizer, set up with the model (the model's ``__call__`` gives the loss).
        converter: ``converter(batch, device) -> arrays``; ``concat_examples`` by default.
        devices: the devices, a list (the first is the main one) or a dict with a ``'main'``
            entry; fnet supports CPU devices only (``['@numpy', '@numpy']``).
        auto_new_epoch: as for ``StandardUpdater``.

    Because the devices' gradients are summed, the constructor rescales the optimizer as
    Chainer does, with a warning: ``eps`` times the number of devices for Adam, AdaGrad and
    RMSprop (its square for RMSpropGraves and AdaDelta), else ``lr`` divided by it. Workers are
    forked at the first update (``setup_workers``) and stopped by ``finalize``; the model's
    parameters must be initialized by then.
    """

    def __init__(
        self,
        iterators,
        optimizer,
        converter: Callable = convert.concat_examples,
        devices=None,
        auto_new_epoch: bool = True,
    ):
        where = "MultiprocessParallelUpdater"
        if isinstance(devices, dict):
            if "main" not in devices:
                raise ValueError(
                    f"{where}: a dict of devices must have a 'main' entry, got {sorted(devices)}"
                )
            devices = [devices["main"], *(d for name, d in devices.items() if name != "main")]
        elif isinstance(devices, (list, tuple)):
            devices = list(devices)
        else:
            raise ValueError(
                f"{where}: devices argument should be either dict, list or tuple, but {type(devices)} was "
                "given\n  hint: e.g. devices=['@numpy', '@numpy'] for two processes"
            )
        if not devices or any(device is None for device in devices):
            raise ValueError(f"{where}: devices must be specified, one per iterator, got {devices}")
        if not isinstance(iterators, (list, tuple)) or len(iterators) != len(devices):
            count = len(iterators) if isinstance(iterators, (list, tuple)) else type(iterators).__name__
            raise ValueError(
                f"{where}: expected a list of one iterator per device ({len(devices)}), got {count}\n"
                "  hint: split the dataset, e.g. with datasets.split_dataset_n_random(train, n)"
            )
        sizes = {len(iterator.dataset) for iterator in iterators if hasattr(iterator, "dataset")}
        if len(sizes) > 1:
            raise ValueError(
                f"{where}: the iterators' datasets must have the same length, got lengths {sorted(sizes)}"
            )
        self._devices = [convert._get_device(device) for device in devices]
        gpus = [str(device) for device in self._devices if not isinstance(device, backend.CpuDevice)]
        if gpus:
            raise RuntimeError(
                f"{where}: fnet runs this updater on CPU devices ('@numpy') only, got {gpus}; on GPUs "
                "Chainer's version needs CuPy with NCCL\n  hint: use training.updaters.ParallelUpdater "
                "for several GPUs in one process"
            )
        _rescale_for_sum(optimizer, len(devices))
        super().__init__(iterators[0], optimizer, converter=converter, auto_new_epoch=auto_new_epoch)
        self._master = optimizer.target
        self._mpu_iterators = list(iterators)
        self._initialized = False
        self._pipes: list = []
        self._workers: list = []
        self._layout: _Layout | None = None
        self._shared_params = None
        self._shared_grads: list = []

    @staticmethod
    def available() -> bool:
        """Whether the updater can run here: always True for CPU devices in fnet (Chainer's
        answers whether NCCL is available)."""
        return True

    def setup_workers(self) -> None:
        """Fork the worker processes (once; ``update_core`` calls it at the first update)."""
        if self._initialized:
            return
        self._initialized = True
        self._master.cleargrads()
        layout = self._layout = _Layout(self._master)
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._shared_params = context.RawArray("b", layout.nbytes)
        for index in range(1, len(self._devices)):
            grads = context.RawArray("b", layout.nbytes)
            here, there = context.Pipe()
            worker = context.Process(
                target=_worker_main,
                args=(
                    there,
                    self._master,
                    self._mpu_iterators[index],
                    self.converter,
                    self._devices[index],
                    layout,
                    self._shared_params,
                    grads,
                ),
                daemon=True,
            )
            worker.start()
            there.close()
            self._shared_grads.append(grads)
            self._pipes.append(here)
            self._workers.append(worker)

    def update_core(self) -> None:
        """One step: every process computes the gradients of its next batch; the main process sums
        them, updates the model and shares the new parameters."""
        self.setup_workers()
        params = dict(self._master.namedparams())
        for name, target in self._layout.views(self._shared_params).items():
            target[...] = params[name].array
        self._start_workers()
        optimizer = self.get_optimizer("main")
        iterator = self._iterators["main"]
        self._master.cleargrads()
        in_arrays = convert._call_converter(self.converter, next(iterator), self._devices[0])
        args, kwargs = _arguments(in_arrays)
        loss = self._master(*args, **kwargs)
        self._master.cleargrads()
        loss.backward()
        del loss
        self._collect_gradients(params)
        optimizer.update()
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def _start_workers(self) -> None:
        """Send every worker its job; a worker found dead is reported (after the others have
        answered, so that no reply is left in a pipe for the next step)."""
        started, deaths = [], []
        for index, (pipe, worker) in enumerate(zip(self._pipes, self._workers), 1):
            try:
                pipe.send("update")
            except OSError:  # BrokenPipeError, ConnectionResetError: nobody reads that pipe
                deaths.append(_how_it_ended(index, worker))
            else:
                started.append(index)
        if deaths:
            more_deaths, errors = self._answers(started)
            _raise_failures(deaths + more_deaths, errors)

    def _answers(self, indexes) -> tuple[list[str], list[str]]:
        """Wait for the answers of the workers ``indexes`` (numbered from 1): how the workers that
        died ended, and the tracebacks of those that failed."""
        deaths, errors = [], []
        for index in indexes:
            pipe, worker = self._pipes[index - 1], self._workers[index - 1]
            try:
                status, detail = pipe.recv()
            except (EOFError, OSError):  # the worker died before it answered
                deaths.append(_how_it_ended(index, worker))
                continue
            if status != "done":
                errors.append(f"worker {index}: {detail}")
        return deaths, errors

    def _collect_gradients(self, params: dict) -> None:
        """Wait for every worker, then add their gradients into the main model's."""
        deaths, errors = self._answers(range(1, len(self._workers) + 1))
        if deaths or errors:
            _raise_failures(deaths, errors)
        for grads in self._shared_grads:
            for name, grad in self._layout.views(grads).items():
                param = params[name]
                if param.grad is None:
                    param.grad = grad.copy()
                else:
                    param.grad += grad

    def finalize(self) -> None:
        """Stop the worker processes, then finalize the iterators."""
        for pipe in self._pipes:
            try:
                pipe.send("finalize")
            except (BrokenPipeError, OSError):
                pass
        for worker in self._workers:
            worker.join(timeout=10)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for pipe in self._pipes:
            pipe.close()
        self._pipes, self._workers, self._shared_grads = [], [], []
        self._initialized = False
        super().finalize()


def _how_it_ended(index: int, worker) -> str:
    """A line saying how worker ``index`` ended: the signal that killed it, or its exit code."""
    worker.join(timeout=_REAP_TIMEOUT)  # the pipe closes as it dies: wait for its exit status
    code, who = worker.exitcode, f"worker {index} (pid {worker.pid})"
    if code is None:
        return f"{who} closed its pipe but is still running\n"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"{who} was killed by signal {-code} ({name})\n"
    return f"{who} exited with code {code}\n"


def _raise_failures(deaths: list[str], errors: list[str]) -> None:
    """Raise the RuntimeError that reports the workers that died and those that failed."""
    hint = (
        "  hint: a worker killed by SIGKILL is often the out-of-memory killer's doing (see dmesg); "
        "call updater.finalize() and start the training again (from a snapshot)\n"
        if deaths
        else ""
    )
    raise RuntimeError(
        "MultiprocessParallelUpdater: a worker process failed to compute its gradients:\n"
        + "".join(deaths + errors)
        + hint
    )


def _rescale_for_sum(optimizer, n_devices: int) -> None:
    """Rescale the optimizer's ``eps`` or ``lr`` for gradients summed over ``n_devices``, as Chainer does."""
    name = type(optimizer).__name__
    power = _EPS_SCALED.get(name)
    if power is not None:
        optimizer.eps *= n_devices**power
        changed = f"optimizer.eps is changed to {optimizer.eps}"
    elif hasattr(optimizer, "lr"):
        optimizer.lr /= n_devices
        changed = f"optimizer.lr is changed to {optimizer.lr}"
    else:
        return
    warnings.warn(f"{changed} by MultiprocessParallelUpdater for new batch size.", stacklevel=3)
