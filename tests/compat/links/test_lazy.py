"""Links whose input size is left to infer (``in_size=None``, ``in_channels=None``): what is
drawn at once, what waits for the first call, and how loading, copying and dtypes meet that."""

import io

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.links as L
from fnet.compat import serializers
from fnet.errors import ShapeError


def ones(*shape):
    return numpy.ones(shape, numpy.float32)


def test_linear_sizes_w_on_the_first_call_and_keeps_b():
    link = L.Linear(4)
    assert link.in_size is None and link.out_size == 4
    assert link.W.array is None
    b = link.b.array
    numpy.testing.assert_array_equal(b, numpy.zeros(4, numpy.float32))
    y = link(ones(2, 3, 5))
    assert y.shape == (2, 4) and link.W.shape == (4, 15)
    assert link.b.array is b
    assert numpy.isfinite(link.W.array).all() and link.W.array.std() > 0


def test_n_batch_axes_decides_the_inferred_size():
    link = L.Linear(4)
    assert link(ones(2, 3, 5), n_batch_axes=2).shape == (2, 3, 4)
    assert link.W.shape == (4, 5)


def test_the_draws_repeat_under_numpy_seed():
    def drawn():
        numpy.random.seed(3)
        link = L.Convolution2D(3, 2)
        link(ones(1, 4, 5, 5))
        return link.W.array

    numpy.testing.assert_array_equal(drawn(), drawn())


def test_a_lazy_composite_sizes_its_children_and_a_child_can_size_itself():
    block = L.Inception(None, 2, 2, 2, 2, 2, 2)
    assert block.conv1.W.array is None and block.conv3.W.array is not None
    assert block(ones(1, 3, 5, 5)).shape == (1, 8, 5, 5)
    assert block.conv1.W.shape == (2, 3, 1, 1) and block.projp.W.shape == (2, 3, 1, 1)

    other = L.Inception(None, 2, 2, 2, 2, 2, 2)
    other.conv1(ones(1, 3, 5, 5))
    assert other.conv1.W.shape == (2, 3, 1, 1) and other.proj3.W.array is None
    other(ones(1, 3, 5, 5))
    assert other.proj3.W.shape == (2, 3, 1, 1)


def test_lstm_waits_only_for_the_upward_weights():
    lstm = L.LSTM(4)
    assert lstm.upward.W.array is None and lstm.lateral.W.shape == (16, 4)
    lstm(ones(2, 3))
    assert lstm.upward.W.shape == (16, 3)
    numpy.testing.assert_array_equal(lstm.upward.b.array.reshape(4, 4)[:, 2], numpy.ones(4))  # forget gates


def test_a_saved_model_loads_into_a_lazy_one_before_its_first_call():
    source = L.Classifier(L.Linear(3, 2))
    buffer = io.BytesIO()
    serializers.save_npz(buffer, source)
    buffer.seek(0)
    target = L.Classifier(L.Linear(2))
    serializers.load_npz(buffer, target)
    numpy.testing.assert_array_equal(target.predictor.W.array, source.predictor.W.array)
    x, t = ones(4, 3), numpy.zeros(4, numpy.int32)
    numpy.testing.assert_array_equal(target(x, t).array, source(x, t).array)
    numpy.testing.assert_array_equal(target.predictor.W.array, source.predictor.W.array)


def test_copy_init_and_repeat_draw_fresh_values():
    numpy.random.seed(0)
    link = L.Linear(3, 3)
    copied = link.copy("init")
    assert not numpy.allclose(copied.W.array, link.W.array)
    numpy.testing.assert_array_equal(copied.b.array, numpy.zeros(3))
    first, second = link.repeat(2)
    assert first.W.shape == (3, 3) and not numpy.allclose(first.W.array, second.W.array)


def test_copy_init_of_a_lazy_link_waits_like_the_link():
    link = L.Linear(3)
    assert link.copy("init").W.array is None
    link(ones(2, 5))
    copied = link.copy("init")
    assert copied.W.shape == (3, 5) and not numpy.allclose(copied.W.array, link.W.array)


def test_parameters_take_config_dtype():
    with chainer.using_config("dtype", numpy.float64):
        link = L.Linear(3)
        bn = L.BatchNormalization(3)
        lstm = L.LSTM(2, 3)
        assert link.b.dtype == numpy.float64
        assert link(numpy.ones((2, 2))).dtype == numpy.float64 and link.W.dtype == numpy.float64
        assert bn.gamma.dtype == bn.avg_mean.dtype == numpy.float64
        assert lstm(numpy.ones((1, 2))).dtype == numpy.float64
    assert L.BatchNormalization(3, dtype=numpy.float16).gamma.dtype == numpy.float16


def test_parameters_are_drawn_at_the_precision_of_config_dtype():
    def uniform():
        return chainer.initializers.Uniform(rng=numpy.random.RandomState(0))

    expected = numpy.random.RandomState(0).uniform(-0.05, 0.05, (3, 4))  # float64 draws, as Chainer's
    with chainer.using_config("dtype", numpy.float64):
        now = L.Linear(4, 3, initialW=uniform())
        later = L.Linear(3, initialW=uniform())
        later(numpy.ones((1, 4)))
    numpy.testing.assert_array_equal(now.W.array, expected)
    W = later.W.array  # drawn for the input's size, in float64 too: not float32 values widened
    assert W.dtype == numpy.float64 and (W != W.astype(numpy.float32).astype(numpy.float64)).any()


def test_lazy_links_take_initial_arrays_of_the_size_to_come():
    W = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    link = L.Linear(None, 3, initialW=W, initial_bias=numpy.ones(3, numpy.float32))
    assert link.W.array is None and link.b.array is None  # both wait for the input
    y = link(numpy.ones((1, 2), numpy.float32))
    numpy.testing.assert_array_equal(y.array, [[2.0, 6.0, 10.0]])
    numpy.testing.assert_array_equal(link.W.array, W)
    norm = L.LayerNormalization(initial_gamma=numpy.full(3, 2, numpy.float32))
    norm(numpy.zeros((1, 3), numpy.float32))
    numpy.testing.assert_array_equal(norm.gamma.array, [2.0, 2.0, 2.0])
    with pytest.raises(ShapeError):  # an array that does not fit the input still says so
        L.Linear(None, 3, initialW=W)(numpy.ones((1, 4), numpy.float32))


def test_lazy_links_size_on_the_device_they_were_moved_to():
    link = L.Linear(3).to_device("@numpy")
    link(ones(1, 2))
    assert isinstance(link.W.array, numpy.ndarray) and link.W.shape == (3, 2)


def test_a_lazy_link_called_without_its_input_says_what_it_needs():
    with pytest.raises(TypeError, match="expected the input 'x'"):
        L.Convolution2D(3, 3)()
