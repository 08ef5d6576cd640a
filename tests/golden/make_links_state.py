"""Golden numbers for the stateful links of fnet.compat.links, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``links_state.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_links_state.py

Every parameter, statistic and input is drawn from one seeded generator and saved with the
results, so the tests set the same values in fnet's links and compare. Keys:

- ``bn.*``: ``L.BatchNormalization(3)`` on ``(4, 3, 2)`` inputs. ``gamma``, ``beta``,
  ``avg_mean0``, ``avg_var0`` are the values set; ``x1``, ``w`` the input and the weights of the
  loss ``sum(w * y)``. Training step: ``y1``, ``avg_mean1``, ``avg_var1``, and the grads
  ``ggamma``, ``gbeta``, ``gx1``. Then two finetuning steps on ``x2``, ``x3`` after
  ``start_finetuning()``: ``avg_mean3``, ``avg_var3``, ``N3``. Then test mode on ``x1``:
  ``ytest``.
- ``bn_lazy.*``: ``L.BatchNormalization(axis=(0, 2))`` on ``x`` ``(4, 3, 2)``, one training
  step: ``y``, ``avg_mean``, ``avg_var``.
- ``lstm.*``: ``L.LSTM(3, 4)`` with its parameters set (``upward_W``, ``upward_b``,
  ``lateral_W``); steps on ``x1`` ``(3, 3)``, ``x2`` ``(2, 3)`` (the batch shrinks) and ``x3``
  ``(2, 3)``: outputs ``y1..y3`` and states ``c1..c3``, ``h1..h3``; the loss ``sum(w1 * y1) +
  sum(w2 * y2) + sum(w3 * y3)`` gives ``g_upward_W``, ``g_upward_b``, ``g_lateral_W``, ``gx1``.
  ``default_b``: the ``upward/b`` of ``L.LSTM(3, 4)`` as built (forget gates at 1).
- ``classifier.*``: ``L.Classifier(L.Linear(3, 4))`` with ``W``, ``b`` set, on ``x`` and labels
  ``t``: ``loss``, ``accuracy``, ``gW``.
- ``sampled.*``: ``L.NegativeSampling(3, counts, 2)`` and ``L.BlackOut(3, counts, 2)`` with ``W``
  set, on ``x`` and labels ``t``, each called right after ``numpy.random.seed(0)`` (their
  samplers draw from it): ``ns_loss``, ``ns_samples`` (``return_samples``), ``bo_loss``.

Chainer is imported inside ``main`` only.
"""

from __future__ import annotations

import pathlib

import numpy

HERE = pathlib.Path(__file__).parent


def main() -> None:
    import chainer
    import chainer.functions as F
    import chainer.links as L

    rng = numpy.random.RandomState(0)
    out: dict[str, numpy.ndarray] = {}

    def uniform(*shape, low=-1.0, high=1.0):
        return rng.uniform(low, high, shape).astype(numpy.float32)

    def save(prefix, **arrays):
        for key, value in arrays.items():
            out[f"{prefix}.{key}"] = numpy.array(getattr(value, "array", value))

    # -- batch normalization ------------------------------------------------------------------
    bn = L.BatchNormalization(3)
    bn.gamma.array[...] = uniform(3, low=0.5, high=1.5)
    bn.beta.array[...] = uniform(3)
    bn.avg_mean[...] = uniform(3)
    bn.avg_var[...] = uniform(3, low=0.5, high=1.5)
    save("bn", gamma=bn.gamma, beta=bn.beta, avg_mean0=bn.avg_mean, avg_var0=bn.avg_var)
    x1, w = chainer.Variable(uniform(4, 3, 2)), uniform(4, 3, 2)
    bn.cleargrads()  # Chainer's parameters start with NaN gradients
    y1 = bn(x1)
    F.sum(w * y1).backward()
    save("bn", x1=x1, w=w, y1=y1, avg_mean1=bn.avg_mean, avg_var1=bn.avg_var)
    save("bn", ggamma=bn.gamma.grad, gbeta=bn.beta.grad, gx1=x1.grad)
    bn.start_finetuning()
    x2, x3 = uniform(4, 3, 2), uniform(4, 3, 2)
    bn(x2, finetune=True)
    bn(x3, finetune=True)
    save("bn", x2=x2, x3=x3, avg_mean3=bn.avg_mean, avg_var3=bn.avg_var, N3=numpy.asarray(bn.N))
    with chainer.using_config("train", False):
        save("bn", ytest=bn(x1.array))

    lazy = L.BatchNormalization(axis=(0, 2))
    x = uniform(4, 3, 2)
    save("bn_lazy", x=x, y=lazy(x), avg_mean=lazy.avg_mean, avg_var=lazy.avg_var)

    # -- LSTM -----------------------------------------------------------------------------------
    save("lstm", default_b=L.LSTM(3, 4).upward.b)
    lstm = L.LSTM(3, 4)
    for name, param in (
        ("upward_W", lstm.upward.W),
        ("upward_b", lstm.upward.b),
        ("lateral_W", lstm.lateral.W),
    ):
        param.array[...] = uniform(*param.shape)
        save("lstm", **{name: param})
    xs = [chainer.Variable(uniform(3, 3)), chainer.Variable(uniform(2, 3)), chainer.Variable(uniform(2, 3))]
    lstm.cleargrads()
    loss = 0
    for step, x in enumerate(xs, 1):
        y = lstm(x)
        w = uniform(*y.shape)
        loss += F.sum(w * y)
        save("lstm", **{f"x{step}": x, f"w{step}": w, f"y{step}": y, f"c{step}": lstm.c, f"h{step}": lstm.h})
    loss.backward()
    save("lstm", g_upward_W=lstm.upward.W.grad, g_upward_b=lstm.upward.b.grad)
    save("lstm", g_lateral_W=lstm.lateral.W.grad, gx1=xs[0].grad)

    # -- classifier -----------------------------------------------------------------------------
    model = L.Classifier(L.Linear(3, 4))
    model.predictor.W.array[...] = uniform(4, 3)
    model.predictor.b.array[...] = uniform(4)
    x, t = uniform(5, 3), numpy.array([0, 1, 2, 3, 1], numpy.int32)
    model.cleargrads()
    loss = model(x, t)
    loss.backward()
    save("classifier", W=model.predictor.W, b=model.predictor.b, x=x, t=t)
    save("classifier", loss=loss, accuracy=model.accuracy, gW=model.predictor.W.grad)

    # -- sampled losses ---------------------------------------------------------------------------
    counts = [3, 1, 4, 1, 5]
    x, t, W = uniform(4, 3), numpy.array([0, 2, 4, 1], numpy.int32), uniform(5, 3)
    ns = L.NegativeSampling(3, counts, 2)
    ns.W.array[...] = W
    numpy.random.seed(0)
    loss, samples = ns(x, t, return_samples=True)
    save("sampled", counts=numpy.array(counts), x=x, t=t, W=W, ns_loss=loss, ns_samples=samples)
    bo = L.BlackOut(3, counts, 2)
    bo.W.array[...] = W
    numpy.random.seed(0)
    save("sampled", bo_loss=bo(x, t))

    numpy.savez_compressed(HERE / "links_state.npz", **out)


if __name__ == "__main__":
    main()
