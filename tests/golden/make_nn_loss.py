"""Golden data for the tests of fnet.nn's Linear, loss links and Classifier, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``nn_loss.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_nn_loss.py

Each case ``<case>.`` stores Chainer's ``namedparams`` names (``names``, without the leading
``/``) and shapes, the parameters it was run with (``param.<name>``, set from fixed seeded
arrays), the inputs, Chainer's outputs and, for the losses, Chainer's gradients.
"""

from __future__ import annotations

import pathlib

import chainer
import chainer.functions as F
import chainer.links as L
import numpy
from chainer.utils import WalkerAlias

assert chainer.__version__ == "7.8.1", chainer.__version__

OUT = pathlib.Path(__file__).with_name("nn_loss.npz")
data: dict[str, numpy.ndarray] = {}
rng = numpy.random.RandomState(0)


def uniform(shape, dtype, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(dtype)


def record_params(case: str, link: chainer.Link, dtype) -> None:
    """Draw every parameter of ``link`` from the seeded generator, and save names, shapes, values."""
    names = []
    for name, param in sorted(link.namedparams()):
        name = name.lstrip("/")
        names.append(name)
        param.array[...] = uniform(param.shape, dtype)
        data[f"{case}.param.{name}"] = param.array.copy()
    data[f"{case}.names"] = numpy.array(names)


def save(case: str, **arrays) -> None:
    for key, value in arrays.items():
        data[f"{case}.{key}"] = numpy.asarray(getattr(value, "array", value))


def grads(link: chainer.Link, case: str, **inputs) -> None:
    """Save the gradients of the last backward: of the link's params and of the named inputs."""
    for name, param in link.namedparams():
        data[f"{case}.grad.{name.lstrip('/')}"] = param.grad.copy()
    for name, var in inputs.items():
        data[f"{case}.grad.{name}"] = var.grad.copy()


# -- Linear ----------------------------------------------------------------------------------
for dtype in (numpy.float32, numpy.float64):
    suffix = numpy.dtype(dtype).name
    with chainer.using_config("dtype", dtype):
        case = f"linear_{suffix}"
        link = L.Linear(3, 4)
        record_params(case, link, dtype)
        x = uniform((5, 3), dtype)
        save(case, x=x, y=link(x))

        case = f"linear_lazy_{suffix}"  # Linear(out_size): in_size from the first input
        link = L.Linear(4)
        x = uniform((2, 3, 2), dtype)
        link(x)
        record_params(case, link, dtype)
        save(case, x=x, y=link(x))

        case = f"linear_nobias_batch_axes_{suffix}"
        link = L.Linear(6, 2, nobias=True)
        record_params(case, link, dtype)
        x = uniform((2, 3, 2, 3), dtype)
        save(case, x=x, y=link(x, n_batch_axes=2))

# -- BinaryHierarchicalSoftmax -------------------------------------------------------------------
counts = {0: 8, 1: 5, 2: 6, 3: 4, 4: 3, 5: 5, 6: 1}
huffman = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
data["huffman.counts"] = numpy.array([counts[i] for i in range(len(counts))])
data["huffman.tree"] = numpy.array(repr(huffman))
data["huffman.example"] = numpy.array(
    repr(L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 8, 1: 5, 2: 6, 3: 4}))
)
trees = {"huffman": huffman, "gap": ((0, (2, 5)), ((6, 3), 1))}  # "gap": word 4 is not in the tree
for tree_name, tree in trees.items():
    for dtype in (numpy.float32, numpy.float64):
        case = f"bhs_{tree_name}_{numpy.dtype(dtype).name}"
        with chainer.using_config("dtype", dtype):  # W follows the config; dtype sets the codes
            link = L.BinaryHierarchicalSoftmax(3, tree, dtype=dtype)
        record_params(case, link, dtype)
        x = chainer.Variable(uniform((6, 3), dtype))
        t = numpy.array([0, 1, 2, 3, 4, 6], numpy.int32)
        loss = link(x, t)
        link.cleargrads()  # a new Parameter's grad is NaN until cleared
        loss.backward()
        save(case, tree=numpy.array(repr(tree)), x=x, t=t, loss=loss)
        grads(link, case, x=x)

# -- BlackOut ------------------------------------------------------------------------------------
for dtype in (numpy.float32, numpy.float64):
    case = f"black_out_{numpy.dtype(dtype).name}"
    with chainer.using_config("dtype", dtype):
        link = L.BlackOut(3, [5, 2, 7, 1, 4], 2)
    record_params(case, link, dtype)
    x = chainer.Variable(uniform((4, 3), dtype))
    t = numpy.array([0, 2, 4, 1], numpy.int32)
    link.sample_data = numpy.array([[1, 3], [0, 0], [2, 3], [4, 2]], numpy.int32)
    loss = link(x, t)
    link.cleargrads()  # a new Parameter's grad is NaN until cleared
    loss.backward()
    save(case, x=x, t=t, samples=link.sample_data, loss=loss)
    grads(link, case, x=x)
sampler = L.BlackOut(3, [5, 2, 7, 1, 4], 2).sampler
save("black_out_sampler", threshold=sampler.threshold, values=sampler.values)

# -- NegativeSampling ----------------------------------------------------------------------------
ns_counts = [5, 2, 7, 1, 4, 3]
for power in (0.75, 0.5):
    sampler = L.NegativeSampling(3, ns_counts, 2, power=power).sampler
    save(f"negative_sampling_sampler_{power}", threshold=sampler.threshold, values=sampler.values)
for dtype in (numpy.float32, numpy.float64):
    for reduce in ("sum", "no"):
        case = f"negative_sampling_{reduce}_{numpy.dtype(dtype).name}"
        with chainer.using_config("dtype", dtype):
            link = L.NegativeSampling(3, ns_counts, 2, dtype=dtype)
        record_params(case, link, dtype)
        x = chainer.Variable(uniform((4, 3), dtype))
        t = numpy.array([0, 5, -1, 3], numpy.int32)
        numpy.random.seed(1)
        loss, samples = link(x, t, reduce=reduce, return_samples=True)
        link.cleargrads()  # a new Parameter's grad is NaN until cleared
        F.sum(loss).backward()
        save(case, x=x, t=t, samples=samples, loss=loss)
        grads(link, case, x=x)
# the walker alias draws on a fixed stream of uniform numbers
sampler = WalkerAlias(numpy.array([0.5, 0.1, 0.3, 0.1]))
numpy.random.seed(2)
uniforms = numpy.random.uniform(0, 4, (3, 5))
numpy.random.seed(2)
save("walker_alias", probs=[0.5, 0.1, 0.3, 0.1], uniforms=uniforms, samples=sampler.sample((3, 5)))
save("walker_alias", threshold=sampler.threshold, values=sampler.values)

# -- CRF1d ---------------------------------------------------------------------------------------
for dtype in (numpy.float32, numpy.float64):
    suffix = numpy.dtype(dtype).name
    case = f"crf1d_{suffix}"
    with chainer.using_config("dtype", dtype):
        link = L.CRF1d(3)
    record_params(case, link, dtype)
    lengths = [4, 4, 2]  # already sorted and transposed: xs[i] is (B_i, K)
    xs = [chainer.Variable(uniform((3, 3), dtype)) for _ in range(2)] + [
        chainer.Variable(uniform((2, 3), dtype)) for _ in range(2)
    ]
    ys = [rng.randint(3, size=len(x)).astype(numpy.int32) for x in xs]
    for reduce in ("mean", "no"):
        loss = link(xs, ys, reduce=reduce)
        save(case, **{f"loss_{reduce}": loss})
    link.cleargrads()  # a new Parameter's grad is NaN until cleared
    F.sum(link(xs, ys)).backward()
    grads(link, case, **{f"xs{i}": x for i, x in enumerate(xs)})
    score, path = link.argmax(xs)
    save(case, argmax_score=score, **{f"xs{i}": x for i, x in enumerate(xs)})
    save(
        case, **{f"ys{i}": y for i, y in enumerate(ys)}, **{f"argmax_path{i}": p for i, p in enumerate(path)}
    )

    case = f"crf1d_transpose_{suffix}"  # unsorted sequences of (T_b, K), transposed by the link
    with chainer.using_config("dtype", dtype):
        link = L.CRF1d(3)
    record_params(case, link, dtype)
    seqs = [uniform((n, 3), dtype) for n in (2, 4, 1, 4)]
    labels = [rng.randint(3, size=len(s)).astype(numpy.int32) for s in seqs]
    for reduce in ("mean", "no"):
        save(case, **{f"loss_{reduce}": link(seqs, labels, reduce=reduce, transpose=True)})
    score, path = link.argmax(seqs, transpose=True)
    save(case, argmax_score=score, **{f"xs{i}": s for i, s in enumerate(seqs)})
    save(
        case,
        **{f"ys{i}": y for i, y in enumerate(labels)},
        **{f"argmax_path{i}": p for i, p in enumerate(path)},
    )

# -- Classifier ----------------------------------------------------------------------------------
for dtype in (numpy.float32, numpy.float64):
    case = f"classifier_{numpy.dtype(dtype).name}"
    with chainer.using_config("dtype", dtype):
        link = L.Classifier(L.Linear(3, 4))
    record_params(case, link, dtype)
    x = uniform((6, 3), dtype)
    t = numpy.array([0, 1, 2, 3, 1, 2], numpy.int32)
    loss = link(x, t)
    link.cleargrads()  # a new Parameter's grad is NaN until cleared
    loss.backward()
    save(case, x=x, t=t, loss=loss, accuracy=link.accuracy, y=link.y)
    grads(link, case)

case = "classifier_hinge_first_label"  # lossfun, accfun, label_key=0
link = L.Classifier(L.Linear(3, 4), lossfun=F.hinge, accfun=F.accuracy, label_key=0)
record_params(case, link, numpy.float32)
x = uniform((6, 3), numpy.float32)
t = numpy.array([3, 1, 2, 3, 0, 2], numpy.int32)
save(case, x=x, t=t, loss=link(t, x), accuracy=link.accuracy)

# -- Sequential and Chain (fnet.nn.Sequential and Module) ------------------------------------------
case = "sequential"  # functions are not numbered: the links are 0, 1 and 1/0, 1/1
link = chainer.Sequential(L.Linear(3, 4), F.relu, chainer.Sequential(L.Linear(4, 2), F.tanh, L.Linear(2, 2)))
record_params(case, link, numpy.float32)
x = uniform((5, 3), numpy.float32)
save(case, x=x, y=link(x))


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


case = "chain"
link = MLP()
record_params(case, link, numpy.float32)
x = uniform((5, 3), numpy.float32)
save(case, x=x, y=link(x))

OUT.parent.mkdir(parents=True, exist_ok=True)
numpy.savez_compressed(OUT, **data)
print(f"wrote {len(data)} arrays to {OUT}")
