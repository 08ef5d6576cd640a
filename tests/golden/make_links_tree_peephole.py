"""Golden numbers for ``L.ChildSumTreeLSTM``, ``L.NaryTreeLSTM`` and ``L.StatefulPeepholeLSTM``,
made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``links_tree_peephole.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_links_tree_peephole.py

Every parameter and input is drawn from one seeded generator and saved with the results, so the
tests set the same values in fnet's links and compare. For a link ``<link>`` (``childsum``,
``nary``, ``peephole``):

- ``<link>.names``: ``"path shape"`` for each of ``namedparams()`` (in Chainer's order), e.g.
  ``"/W_x/W (16, 3)"``; ``<link>.keys``: the keys ``DictionarySerializer`` writes (the npz layout).
- ``<link>.p:<path>``: the value set to the parameter at ``<path>`` (``/W_x/W``).

Calls of the tree links, ``<case>`` being ``childsum.full`` (two children and x), ``childsum.leaf``
(x only), ``childsum.none`` (``c1, None, h1, None, None``: padding and a zero x),
``childsum.three`` (three children, ``h3`` None), ``nary.full`` (``n_ary=3``, all given),
``nary.none`` (``c2`` and ``h3`` None), ``nary.nox`` (x None):

- ``<case>.in<k>``: the k-th argument (absent when it is None);
- ``<case>.c``, ``<case>.h``: the outputs; ``<case>.wc``, ``<case>.wh``: the weights of the loss
  ``sum(wc * c) + sum(wh * h)``;
- ``<case>.gin<k>``: the grad of the k-th argument; ``<case>.g:<path>``: the grad of each
  parameter (absent when the call did not use it: its grad stays None after ``cleargrads``).

``peephole.*``: ``L.StatefulPeepholeLSTM(3, 4)``, steps on ``x1..x3`` ``(2, 3)``: outputs
``y1..y3``, states ``c1..c3``, ``h1..h3``; the loss ``sum(w1 * y1) + sum(w2 * y2) + sum(w3 *
y3)`` gives ``g:<path>`` and ``gx1``.

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
    from chainer.serializers import DictionarySerializer

    rng = numpy.random.RandomState(0)
    out: dict[str, numpy.ndarray] = {}

    def uniform(*shape):
        return rng.uniform(-1.0, 1.0, shape).astype(numpy.float32)

    def save(key, value):
        out[key] = numpy.array(getattr(value, "array", value))

    def setup(prefix, link):
        """Record the layout of ``link`` and give its parameters drawn values."""
        out[f"{prefix}.names"] = numpy.array([f"{path} {param.shape}" for path, param in link.namedparams()])
        serializer = DictionarySerializer()
        serializer.save(link)
        out[f"{prefix}.keys"] = numpy.array(sorted(serializer.target))
        for path, param in link.namedparams():
            param.array[...] = uniform(*param.shape)
            save(f"{prefix}.p:{path}", param)

    def call(case, link, args):
        """One call on ``args`` (arrays or None) with a weighted loss; its values and grads."""
        link.cleargrads()
        variables = [None if a is None else chainer.Variable(a) for a in args]
        for k, v in enumerate(variables):
            if v is not None:
                save(f"{case}.in{k}", v)
        c, h = link(*variables)
        wc, wh = uniform(*c.shape), uniform(*h.shape)
        (F.sum(wc * c) + F.sum(wh * h)).backward()
        for key, value in dict(c=c, h=h, wc=wc, wh=wh).items():
            save(f"{case}.{key}", value)
        for k, v in enumerate(variables):
            if v is not None:
                save(f"{case}.gin{k}", v.grad)
        for path, param in link.namedparams():
            if param.grad is not None:
                save(f"{case}.g:{path}", param.grad)

    batch, in_size, out_size = 2, 3, 4

    def state():
        return uniform(batch, out_size)

    def x():
        return uniform(batch, in_size)

    childsum = L.ChildSumTreeLSTM(in_size, out_size)
    setup("childsum", childsum)
    call("childsum.full", childsum, [state(), state(), state(), state(), x()])
    call("childsum.leaf", childsum, [x()])
    call("childsum.none", childsum, [state(), None, state(), None, None])
    call("childsum.three", childsum, [state(), state(), state(), state(), state(), None, x()])

    nary = L.NaryTreeLSTM(in_size, out_size, n_ary=3)
    setup("nary", nary)
    call("nary.full", nary, [state(), state(), state(), state(), state(), state(), x()])
    call("nary.none", nary, [state(), None, state(), state(), state(), None, x()])
    call("nary.nox", nary, [state(), state(), state(), state(), state(), state(), None])

    peephole = L.StatefulPeepholeLSTM(in_size, out_size)
    setup("peephole", peephole)
    peephole.cleargrads()
    xs = [chainer.Variable(x()) for _ in range(3)]
    loss = 0
    for step, xk in enumerate(xs, 1):
        y = peephole(xk)
        w = uniform(*y.shape)
        loss = loss + F.sum(w * y)
        for key, value in dict(x=xk, y=y, w=w, c=peephole.c, h=peephole.h).items():
            save(f"peephole.{key}{step}", value)
    loss.backward()
    save("peephole.gx1", xs[0].grad)
    for path, param in peephole.namedparams():
        save(f"peephole.g:{path}", param.grad)

    numpy.savez_compressed(HERE / "links_tree_peephole.npz", **out)


if __name__ == "__main__":
    main()
