"""Golden data for the tests of fnet.nn's normalization and recurrent layers, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``nn_norm.npz`` and ``nn_rnn.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_nn_rnn_norm.py

Each case ``<case>`` stores the link's ``namedparams`` names (``<case>.names``, without the
leading ``/``) and shapes (``<case>.shape.<name>``), the parameter values it ran with
(``<case>.param.<name>``, drawn from a seeded generator), its inputs and Chainer's outputs under
case-specific keys documented next to each case. Everything runs in float64 (Chainer's
``dtype`` config), so the tests can compare tightly. Chainer is imported inside ``main`` only:
pytest's doctest collection imports this file in an environment without Chainer.
"""

from __future__ import annotations

import pathlib

import numpy

HERE = pathlib.Path(__file__).parent
DTYPE = numpy.float64


class Recorder:
    """Arrays keyed ``<case>.<name>``, drawn from one seeded generator and saved to one npz."""

    def __init__(self, seed: int) -> None:
        self.rng = numpy.random.RandomState(seed)
        self.data: dict[str, numpy.ndarray] = {}

    def uniform(self, shape, low: float = -1.0, high: float = 1.0) -> numpy.ndarray:
        return self.rng.uniform(low, high, shape).astype(DTYPE)

    def params(self, case: str, link) -> None:
        """Set every parameter of ``link`` to seeded values; save names, shapes and values."""
        names = []
        for name, param in sorted(link.namedparams()):
            name = name.lstrip("/")
            names.append(name)
            self.data[f"{case}.shape.{name}"] = numpy.array(param.shape, numpy.int64)
            if param.array is not None:
                param.array[...] = self.uniform(param.shape)
                self.data[f"{case}.param.{name}"] = param.array
        self.data[f"{case}.names"] = numpy.array(names, dtype=str)

    def save(self, case: str, **arrays) -> None:
        for key, value in arrays.items():
            self.data[f"{case}.{key}"] = numpy.array(getattr(value, "array", value))  # a copy

    def write(self, name: str) -> None:
        numpy.savez_compressed(HERE / name, **self.data)


def normalization(chainer, L) -> None:
    """Batch (re)normalization in train / test / finetune modes, decorrelated, group, layer."""
    rec = Recorder(0)

    def running(case: str, link, **names) -> None:
        """Seed the running statistics of ``link`` (positive variances) and save them."""
        for attr, key in names.items():
            value = getattr(link, attr)
            value[...] = rec.uniform(value.shape, 0.5, 1.5) if "var" in attr else rec.uniform(value.shape)
            rec.save(case, **{key: value})

    # BatchNormalization(3) on (N, C, H, W): two train steps (y1, y2 and the statistics after
    # each), then a test step (y_test); "finetune" does the same with finetune=True (N counts).
    for case, finetune in (("bn", False), ("bn_finetune", True)):
        link = L.BatchNormalization(3, decay=0.8, eps=1e-3)
        rec.params(case, link)
        running(case, link, avg_mean="avg_mean0", avg_var="avg_var0")
        x1, x2, x3 = (rec.uniform((4, 3, 2, 2)) for _ in range(3))
        with chainer.using_config("train", True):
            y1 = link(x1, finetune=finetune)
            rec.save(case, x1=x1, y1=y1, avg_mean1=link.avg_mean, avg_var1=link.avg_var, N1=link.N)
            y2 = link(x2, finetune=finetune)
            rec.save(case, x2=x2, y2=y2, avg_mean2=link.avg_mean, avg_var2=link.avg_var, N2=link.N)
        with chainer.using_config("train", False):
            rec.save(case, x3=x3, y_test=link(x3))

    # gamma spanning two axes (size=(3, 5)), and a lazy link with an explicit axis
    link = L.BatchNormalization((3, 5))
    rec.params("bn_2d", link)
    running("bn_2d", link, avg_mean="avg_mean0", avg_var="avg_var0")
    x = rec.uniform((4, 3, 5, 2))
    with chainer.using_config("train", True):
        rec.save("bn_2d", x=x, y=link(x), avg_mean1=link.avg_mean, avg_var1=link.avg_var)
    link = L.BatchNormalization(axis=(0, 2))
    x = rec.uniform((6, 3, 4))
    with chainer.using_config("train", False):
        link(x)  # the first call sizes the parameters
    rec.params("bn_axis", link)
    running("bn_axis", link, avg_mean="avg_mean0", avg_var="avg_var0")
    with chainer.using_config("train", True):
        rec.save("bn_axis", x=x, y=link(x), avg_mean1=link.avg_mean, avg_var1=link.avg_var)
    with chainer.using_config("train", False):
        rec.save("bn_axis", y_test=link(x))

    # no gamma, no beta: only running statistics; initial values given
    link = L.BatchNormalization(3, use_gamma=False, use_beta=False, initial_avg_mean=0.5, initial_avg_var=2.0)
    rec.params("bn_plain", link)
    rec.save("bn_plain", avg_mean0=link.avg_mean, avg_var0=link.avg_var)
    x = rec.uniform((5, 3))
    with chainer.using_config("train", True):
        rec.save("bn_plain", x=x, y=link(x), avg_mean1=link.avg_mean, avg_var1=link.avg_var)

    # BatchRenormalization: r and d clipped against the seeded running statistics; the gradients
    # (of sum(y * gy)) treat r and d as constants
    for case, finetune in (("brn", False), ("brn_finetune", True)):
        link = L.BatchRenormalization(3, rmax=1.2, dmax=0.3, decay=0.7)
        rec.params(case, link)
        running(case, link, avg_mean="avg_mean0", avg_var="avg_var0")
        x1, x2 = chainer.Variable(rec.uniform((5, 3, 2)) * 3.0), rec.uniform((5, 3, 2))
        with chainer.using_config("train", True):
            y1 = link(x1, finetune=finetune)
            rec.save(case, x1=x1, y1=y1, avg_mean1=link.avg_mean, avg_var1=link.avg_var, N1=link.N)
        gy = rec.uniform(y1.shape)
        link.cleargrads()  # Chainer starts parameter gradients as NaN
        y1.grad = gy
        y1.backward()
        rec.save(case, gy=gy, gx1=x1.grad, ggamma=link.gamma.grad, gbeta=link.beta.grad)
        with chainer.using_config("train", False):
            rec.save(case, x2=x2, y_test=link(x2))

    # DecorrelatedBatchNormalization(4, groups=2): no parameters, only statistics
    for case, finetune in (("dbn", False), ("dbn_finetune", True)):
        link = L.DecorrelatedBatchNormalization(4, groups=2, decay=0.6, dtype=DTYPE)
        rec.params(case, link)
        x1, x2 = rec.uniform((6, 4, 3)), rec.uniform((6, 4, 3))
        with chainer.using_config("train", True):
            y1 = link(x1, finetune=finetune)
            rec.save(
                case,
                x1=x1,
                y1=y1,
                avg_mean1=link.avg_mean,
                avg_projection1=link.avg_projection,
                N1=link.N,
            )
        with chainer.using_config("train", False):
            rec.save(case, x2=x2, y_test=link(x2))

    # GroupNormalization and LayerNormalization, sized and lazy
    link = L.GroupNormalization(2, 4, eps=1e-3)
    rec.params("gn", link)
    x = rec.uniform((3, 4, 2, 2))
    rec.save("gn", x=x, y=link(x))
    link = L.GroupNormalization(3)
    x = rec.uniform((2, 6, 5))
    link(x)
    rec.params("gn_lazy", link)
    rec.save("gn_lazy", x=x, y=link(x))
    link = L.LayerNormalization(5)
    rec.params("ln", link)
    x = rec.uniform((3, 5))
    rec.save("ln", x=x, y=link(x))
    link = L.LayerNormalization()
    x = rec.uniform((4, 6))
    link(x)
    rec.params("ln_lazy", link)
    rec.save("ln_lazy", x=x, y=link(x))

    # initial values of the parameters and statistics (float32, Chainer's default dtype)
    with chainer.using_config("dtype", numpy.float32):
        link = L.BatchNormalization(2, initial_gamma=2.0, initial_beta=-1.0)
        rec.save(
            "bn_init",
            gamma=link.gamma,
            beta=link.beta,
            avg_mean=link.avg_mean,
            avg_var=link.avg_var,
            N=link.N,
        )
        link = L.DecorrelatedBatchNormalization(6, groups=3)
        rec.save("dbn_init", avg_mean=link.avg_mean, avg_projection=link.avg_projection, N=link.N)
    rec.write("nn_norm.npz")


def recurrent(chainer, L) -> None:
    """Stateful and stateless cells over a few steps, and the NStep links on unsorted sequences."""
    rec = Recorder(1)

    # LSTM(3, 4): steps of batch 3, 3, then 2 (a shorter batch keeps the last rows of h)
    link = L.LSTM(3, 4)
    rec.params("lstm", link)
    xs = [rec.uniform((3, 3)), rec.uniform((3, 3)), rec.uniform((2, 3))]
    for t, x in enumerate(xs):
        y = link(x)
        rec.save("lstm", **{f"x{t}": x, f"y{t}": y, f"c{t}": link.c, f"h{t}": link.h})
    # the default bias: forget gates at 1, interleaved as Chainer's lstm function reads them
    with chainer.using_config("dtype", numpy.float32):
        rec.save(
            "lstm_init",
            b=L.LSTM(3, 4).upward.b,
            b_custom=L.LSTM(2, 3, bias_init=0.5, forget_bias_init=-2).upward.b,
        )

    # StatelessLSTM: (c, h) = link(None, None, x0), then link(c, h, x1)
    link = L.StatelessLSTM(3, 4)
    rec.params("stateless_lstm", link)
    x0, x1 = rec.uniform((2, 3)), rec.uniform((2, 3))
    c, h = link(None, None, x0)
    rec.save("stateless_lstm", x0=x0, c0=c, h0=h)
    c, h = link(c, h, x1)
    rec.save("stateless_lstm", x1=x1, c1=c, h1=h)

    # StatefulGRU (and GRU, the same link): h from None, then from the state
    for case, cls in (("stateful_gru", L.StatefulGRU), ("gru", L.GRU)):
        link = cls(3, 4)
        rec.params(case, link)
        for t in range(2):
            x = rec.uniform((2, 3))
            rec.save(case, **{f"x{t}": x, f"y{t}": link(x)})
    link = L.StatelessGRU(3, 4)
    rec.params("stateless_gru", link)
    h, x = rec.uniform((2, 4)), rec.uniform((2, 3))
    rec.save("stateless_gru", h=h, x=x, y=link(h, x))

    # MGU
    link = L.StatelessMGU(3, 4)
    rec.params("stateless_mgu", link)
    h, x = rec.uniform((2, 4)), rec.uniform((2, 3))
    rec.save("stateless_mgu", h=h, x=x, y=link(h, x))
    link = L.StatefulMGU(3, 4)
    rec.params("stateful_mgu", link)
    for t in range(2):
        x = rec.uniform((2, 3))
        rec.save("stateful_mgu", **{f"x{t}": x, f"y{t}": link(x)})

    # StatefulZoneoutLSTM in test mode (zoneout passes the new values through)
    link = L.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.6)
    rec.params("zoneout_lstm", link)
    with chainer.using_config("train", False):
        for t in range(2):
            x = rec.uniform((2, 3))
            y = link(x)
            rec.save("zoneout_lstm", **{f"x{t}": x, f"y{t}": y, f"c{t}": link.c, f"h{t}": link.h})

    # NStep links: three sequences of lengths 2, 4, 3 (unsorted), given and zero initial states
    lengths = (2, 4, 3)
    nstep = {
        "nstep_lstm": (L.NStepLSTM, 2, True),
        "nstep_bilstm": (L.NStepBiLSTM, 2, True),
        "nstep_gru": (L.NStepGRU, 2, False),
        "nstep_bigru": (L.NStepBiGRU, 1, False),
        "nstep_rnn_tanh": (L.NStepRNNTanh, 2, False),
        "nstep_rnn_relu": (L.NStepRNNReLU, 1, False),
        "nstep_birnn_tanh": (L.NStepBiRNNTanh, 1, False),
        "nstep_birnn_relu": (L.NStepBiRNNReLU, 2, False),
    }
    for case, (cls, n_layers, cell) in nstep.items():
        link = cls(n_layers, 3, 4, 0.25)  # test mode below: the dropout is off
        rec.params(case, link)
        xs = [rec.uniform((n, 3)) for n in lengths]
        directions = 2 if "bi" in case else 1
        states = [rec.uniform((n_layers * directions, len(xs), 4)) for _ in range(2 if cell else 1)]
        rec.save(case, **{f"xs{i}": x for i, x in enumerate(xs)}, hx=states[0])
        if cell:
            rec.save(case, cx=states[1])
        with chainer.using_config("train", False):
            for tag, given in (("", states), ("_zero", [None] * len(states))):
                *finals, ys = link(*given, xs)
                rec.save(case, **{f"hy{tag}": finals[0]}, **{f"ys{tag}{i}": y for i, y in enumerate(ys)})
                if cell:
                    rec.save(case, **{f"cy{tag}": finals[1]})
    rec.write("nn_rnn.npz")


def main() -> None:
    import chainer
    import chainer.links as L

    assert chainer.__version__ == "7.8.1", chainer.__version__
    with chainer.using_config("dtype", DTYPE):
        normalization(chainer, L)
        recurrent(chainer, L)


if __name__ == "__main__":
    main()
