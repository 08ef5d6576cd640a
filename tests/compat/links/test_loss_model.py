"""Loss links and the Classifier: Chainer's samples and numbers (tests/golden/make_links_state.py),
reporting, label keys and errors."""

import pathlib

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.links as L
from fnet.compat import reporter

GOLDEN = numpy.load(pathlib.Path(__file__).parents[2] / "golden" / "links_state.npz")


def close(actual, key):
    numpy.testing.assert_allclose(getattr(actual, "array", actual), GOLDEN[key], rtol=1e-5, atol=1e-6)


def test_negative_sampling_draws_chainers_samples_from_numpys_seed():
    counts = list(GOLDEN["sampled.counts"])
    link = L.NegativeSampling(3, counts, 2)
    assert link.W.dtype == numpy.float32 and link.sample_size == 2
    link.W.array[...] = GOLDEN["sampled.W"]
    numpy.random.seed(0)
    loss, samples = link(GOLDEN["sampled.x"], GOLDEN["sampled.t"], return_samples=True)
    close(loss, "sampled.ns_loss")
    numpy.testing.assert_array_equal(samples, GOLDEN["sampled.ns_samples"])
    assert isinstance(samples, numpy.ndarray)
    per_example = link(GOLDEN["sampled.x"], GOLDEN["sampled.t"], reduce="no")
    assert per_example.shape == (4,)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        link(GOLDEN["sampled.x"], GOLDEN["sampled.t"], samples=samples)


def test_negative_sampling_calls_the_function_of_chainers_module_at_call_time(monkeypatch):
    """Chainer's tests patch ``chainer.functions.loss.negative_sampling.negative_sampling`` and
    count the link's calls of it; the link passes its ``sampler.sample``."""
    import fnet.compat.functions.loss.negative_sampling as module

    calls = []
    original = module.negative_sampling

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "negative_sampling", spy)
    link = L.NegativeSampling(3, [4, 3, 2, 1], 2)
    link(numpy.ones((2, 3), numpy.float32), numpy.array([0, 1], numpy.int32), reduce="no")
    ((args, kwargs),) = calls
    assert args[2] is link.W and args[3] == link.sampler.sample and args[4] == 2
    assert kwargs == {"reduce": "no", "return_samples": False}


def test_black_out_draws_chainers_samples_or_uses_sample_data():
    link = L.BlackOut(3, list(GOLDEN["sampled.counts"]), 2)
    assert numpy.isnan(link.W.array).all()
    link.W.array[...] = GOLDEN["sampled.W"]
    numpy.random.seed(0)
    close(link(GOLDEN["sampled.x"], GOLDEN["sampled.t"]), "sampled.bo_loss")
    numpy.random.seed(0)
    link.sample_data = link.sampler.sample((4, 2))
    numpy.random.seed(1)
    close(link(GOLDEN["sampled.x"], GOLDEN["sampled.t"]), "sampled.bo_loss")


def test_crf1d_loss_and_argmax():
    crf = L.CRF1d(3)
    assert crf.cost.shape == (3, 3)
    xs = [numpy.array([[0.0, 2.0, 0.0]], numpy.float32), numpy.array([[3.0, 0.0, 0.0]], numpy.float32)]
    score, path = crf.argmax(xs)
    assert isinstance(score, chainer.Variable) and float(score.array[0]) == 5.0
    assert [p.tolist() for p in path] == [[1], [0]] and all(isinstance(p, numpy.ndarray) for p in path)
    sequences = [numpy.array([[0.0, 2.0, 0.0], [3.0, 0.0, 0.0]], numpy.float32)]
    score, path = crf.argmax(sequences, transpose=True)
    assert path[0].tolist() == [1, 0]
    loss = crf(sequences, [numpy.array([1, 0], numpy.int32)], transpose=True)
    assert loss.shape == () and float(loss.array) > 0


def test_hierarchical_softmax_tree():
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 8, 1: 5, 2: 6, 3: 4})
    assert tree == ((3, 1), (2, 0))
    link = L.BinaryHierarchicalSoftmax(3, tree)
    assert link.W.shape == (3, 3) and link.W.dtype == numpy.float32
    loss = link(numpy.ones((2, 3), numpy.float32), numpy.array([0, 3], numpy.int32))
    assert loss.shape == () and float(loss.array) > 0


def test_hierarchical_softmax_func_holds_chainers_flat_tables():
    """``link._func`` (read by Chainer's tests) as Chainer 7.8.1 builds it for a tree with a
    missing word (1): paths, codes (in the link's dtype) and begins."""
    with chainer.using_config("dtype", numpy.float16):
        tables = L.BinaryHierarchicalSoftmax(3, ((0, 5), ((2, 3), 4)))._func
    assert tables.paths.tolist() == [0, 1, 0, 2, 3, 0, 2, 3, 0, 2, 0, 1]
    assert tables.codes.tolist() == [1, 1, -1, 1, 1, -1, 1, -1, -1, -1, 1, -1]
    assert tables.codes.dtype == numpy.float16
    assert tables.begins.tolist() == [0, 2, 2, 5, 8, 10, 12] and tables.parser_size == 4


def test_classifier_matches_chainer():
    model = L.Classifier(L.Linear(3, 4))
    model.predictor.W.array[...] = GOLDEN["classifier.W"]
    model.predictor.b.array[...] = GOLDEN["classifier.b"]
    loss = model(GOLDEN["classifier.x"], GOLDEN["classifier.t"])
    model.cleargrads()  # Chainer's parameters start with NaN gradients (as the golden maker does)
    loss.backward()
    assert model.loss is loss and model.y.shape == (5, 4)
    close(loss, "classifier.loss")
    close(model.accuracy, "classifier.accuracy")
    close(model.predictor.W.grad, "classifier.gW")


def test_classifier_reports_loss_and_accuracy():
    model = L.Classifier(L.Linear(3, 2))
    observer = reporter.Reporter()
    observer.add_observer("main", model)
    x, t = numpy.ones((4, 3), numpy.float32), numpy.array([0, 1, 1, 0], numpy.int32)
    observation = {}
    with observer.scope(observation):
        model(x, t)
    assert sorted(observation) == ["main/accuracy", "main/loss"]
    assert observation["main/loss"].creator is None  # reported without the graph
    model.compute_accuracy = False
    observation = {}
    with observer.scope(observation):
        model(x, t)
    assert sorted(observation) == ["main/loss"] and model.accuracy is None


def test_classifier_label_keys():
    def predictor(x, scale=1.0):
        return x * scale

    model = L.Classifier(chainer.Link(), label_key="t")
    model.predictor = predictor  # plain attribute: the label handling is what is tested
    x, t = numpy.eye(2, dtype=numpy.float32), numpy.array([0, 1], numpy.int32)
    assert float(model(x, t=t, scale=2.0).array) > 0 and float(model.accuracy.array) == 1.0
    with pytest.raises(ValueError, match='Label key "t" is not found'):
        model(x, t)
    first = L.Classifier(chainer.Link(), label_key=0)
    first.predictor = predictor
    first(t, x)
    assert float(first.accuracy.array) == 1.0
    with pytest.raises(ValueError, match="Label key 0 is out of bounds"):
        first()
    with pytest.raises(TypeError, match="label_key must be int or str"):
        L.Classifier(chainer.Link(), label_key=1.5)
