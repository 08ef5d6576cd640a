"""fnet.capture: a replayed step gives the eager step's results bit for bit (the same NumPy calls
in the same order, so exact equality is defined here); signatures, guards and refusals."""

import inspect
import tracemalloc

import numpy
import pytest

import fnet
import fnet.functions as F
import fnet.ops as fo
from fnet.errors import CaptureError, InvalidInputError


def _same_bits(a, b) -> bool:
    la, lb = fnet.tree.leaves(a), fnet.tree.leaves(b)
    return len(la) == len(lb) and all(
        numpy.asarray(x).dtype == numpy.asarray(y).dtype and numpy.array_equal(x, y, equal_nan=True)
        for x, y in zip(la, lb)
    )


def _check_steps(step, state, feed, n=3):
    """Run ``step`` eagerly and captured for ``n`` steps, feeding each step's state back in."""
    captured = fnet.capture(step)
    eager_state, captured_state = state, state
    for i in range(n):
        eager_out = step(*eager_state, *feed(i))
        captured_out = captured(*captured_state, *feed(i))
        assert _same_bits(eager_out, captured_out), f"step {i} differs"
        eager_state, captured_state = eager_out[: len(state)], captured_out[: len(state)]
    assert captured.stats()["records"] == 1
    assert captured.stats()["replays"] == n - 1
    return captured


def _mlp(rng, sizes=(6, 5, 3)):
    return {
        f"l{i}": {
            "W": rng.standard_normal((o, i_)).astype(numpy.float32),
            "b": rng.standard_normal(o).astype(numpy.float32),
        }
        for i, (i_, o) in enumerate(zip(sizes, sizes[1:]))
    }


def _mlp_loss(params, x, t):
    for i in range(len(params)):
        x = F.linear(x, params[f"l{i}"]["W"], params[f"l{i}"]["b"])
        if i < len(params) - 1:
            x = F.relu(x)
    return F.softmax_cross_entropy(x, t)


def _batches(rng, n=4, n_in=6, n_out=3):
    xs = [rng.standard_normal((n, n_in)).astype(numpy.float32) for _ in range(3)]
    ts = [rng.integers(0, n_out, n).astype(numpy.int32) for _ in range(3)]
    return lambda i: (xs[i], ts[i])


def test_elementwise_chain_gradient_replays_bit_for_bit():
    x = numpy.linspace(-1, 1, 10, dtype=numpy.float32)

    def chain(x):
        for _ in range(5):
            x = fo.tanh(fo.sin(x) * 1.5) + fo.exp(x) * 0.1
        return fo.sum(x)

    g = fnet.grad(chain)
    captured = fnet.capture(g)
    for scale in (1.0, 0.5, -2.0):
        assert _same_bits(g(x * scale), captured(x * scale))


def test_sgd_step_on_an_mlp_replays_bit_for_bit():
    rng = numpy.random.default_rng(0)
    value_and_grad = fnet.value_and_grad(_mlp_loss)

    def step(params, x, t):
        loss, grads = value_and_grad(params, x, t)
        return fnet.tree.map(lambda p, g: g * -0.1 + p, params, grads), loss

    _check_steps(step, (_mlp(rng),), _batches(rng))


def test_adam_train_step_replays_bit_for_bit():
    rng = numpy.random.default_rng(1)
    batches = _batches(rng)
    adam = fnet.optim.Adam(alpha=0.01)

    def loss_fn(params, state, batch):
        return _mlp_loss(params, *batch), (state, {})

    train_step = fnet.optim.make_train_step(loss_fn, adam)

    def step(params, opt_state, x, t):
        params, _, opt_state, metrics = train_step(params, None, opt_state, (x, t))
        return params, opt_state, metrics["loss"]

    params = _mlp(rng)
    _check_steps(step, (params, adam.init(params).with_array_count()), batches)


def test_gradient_penalty_double_backprop_replays_bit_for_bit():
    rng = numpy.random.default_rng(2)
    params = {"W": rng.standard_normal((5, 3)), "b": rng.standard_normal(3)}

    def critic_sum(params, x):
        return fo.sum(fo.tanh(x @ params["W"] + params["b"]))

    grad_x = fnet.grad(critic_sum, argnums=1)

    def loss(params, x):
        gx = grad_x(params, x)
        return critic_sum(params, x) + 10.0 * fo.mean((fo.sqrt(fo.sum(gx * gx, axis=1)) - 1.0) ** 2)

    value_and_grad = fnet.value_and_grad(loss)

    def step(params, x):
        value, grads = value_and_grad(params, x)
        return fnet.tree.map(lambda p, g: p - 0.01 * g, params, grads), value

    xs = [rng.standard_normal((4, 5)) for _ in range(3)]
    _check_steps(step, (params,), lambda i: (xs[i],))


def test_lstm_unroll_with_embeddings_and_clipping_replays_bit_for_bit():
    rng = numpy.random.default_rng(3)
    vocab, units, batch, steps = 7, 4, 3, 5
    params = {
        "embed": rng.standard_normal((vocab, units)).astype(numpy.float32),
        "up_W": rng.standard_normal((4 * units, units)).astype(numpy.float32),
        "lat_W": rng.standard_normal((4 * units, units)).astype(numpy.float32),
        "out_W": rng.standard_normal((vocab, units)).astype(numpy.float32),
    }

    def loss_fn(p, c, h, tokens):
        loss = 0.0
        for t in range(steps):
            gates = F.linear(F.embed_id(tokens[t], p["embed"]), p["up_W"]) + F.linear(h, p["lat_W"])
            c, h = F.lstm(c, gates)
            loss = loss + F.softmax_cross_entropy(F.linear(h, p["out_W"]), tokens[t + 1])
        return loss, (c, h)

    value_and_grad = fnet.value_and_grad(loss_fn, has_aux=True)

    def step(p, c, h, tokens):
        (loss, (c, h)), grads = value_and_grad(p, c, h, tokens)
        norm = fo.sqrt(sum(fo.sum(g * g) for g in fnet.tree.leaves(grads)))
        scale = -0.5 * fo.minimum(1.0, 5.0 / norm)  # clipping as array operations, not float()
        return fnet.tree.map(lambda p, g: g * scale + p, p, grads), c, h, loss

    zeros = numpy.zeros((batch, units), numpy.float32)
    tokens = [rng.integers(0, vocab, (steps + 1, batch)).astype(numpy.int32) for _ in range(3)]
    _check_steps(step, (params, zeros, zeros), lambda i: (tokens[i],))


def cnn_params(rng, channels: int, classes: int, flat: int) -> dict:
    """A 3x3 convolution with ``channels`` filters over 2 input channels, and a linear layer."""
    return {
        "W": rng.standard_normal((channels, 2, 3, 3)).astype(numpy.float32),
        "b": rng.standard_normal(channels).astype(numpy.float32),
        "fc": rng.standard_normal((classes, flat)).astype(numpy.float32),
    }


def cnn_sgd_step(p, x, t):
    """Convolution, relu, 2x2 max pooling, linear, softmax cross entropy; an SGD step."""

    def loss_fn(p):
        h = F.max_pooling_2d(F.relu(F.convolution_2d(x, p["W"], p["b"], pad=1)), 2, stride=2)
        return F.softmax_cross_entropy(F.linear(h, p["fc"]), t)

    loss, grads = fnet.value_and_grad(loss_fn)(p)
    return fnet.tree.map(lambda p, g: p - 0.1 * g, p, grads), loss


def test_cnn_step_with_pooling_replays_bit_for_bit():
    rng = numpy.random.default_rng(4)
    params = cnn_params(rng, 3, 4, 12)
    xs = [rng.standard_normal((2, 2, 4, 4)).astype(numpy.float32) for _ in range(3)]
    ts = [rng.integers(0, 4, 2).astype(numpy.int32) for _ in range(3)]
    _check_steps(cnn_sgd_step, (params,), lambda i: (xs[i], ts[i]))


def test_a_new_shape_records_again_and_the_cache_is_bounded():
    step = fnet.capture(lambda x: fo.sum(x * x), max_records=2)
    for n in (3, 3, 4, 4, 5, 3):
        assert float(step(numpy.ones(n))) == n
    assert step.stats() == {"records": 4, "replays": 2, "evictions": 2, "cached": 2}


def test_dtype_strides_and_python_scalars_are_part_of_the_signature():
    step = fnet.capture(lambda x, a: x * a)
    x = numpy.ones((2, 3))
    step(x, 2.0)
    step(x.astype(numpy.float32), 2.0)
    step(numpy.asfortranarray(x), 2.0)
    assert float(step(x, 3.0)[0, 0]) == 3.0  # a new Python number records again
    assert step.stats()["records"] == 4


def test_static_arguments_select_a_recording():
    def power(x, n, *, mode):
        return x**n if mode == "pow" else x * n

    step = fnet.capture(power, static_argnums=1, static_argnames="mode")
    x = numpy.full(2, 3.0)
    assert step(x, 2, mode="pow").tolist() == [9.0, 9.0]
    assert step(x, 3, mode="pow").tolist() == [27.0, 27.0]
    assert step(x, 3, mode="mul").tolist() == [9.0, 9.0]
    assert step(x + 1, 3, mode="mul").tolist() == [12.0, 12.0]
    assert step.stats()["records"] == 3


def test_an_unhashable_non_array_argument_is_a_clear_error():
    step = fnet.capture(lambda x, options: x)
    with pytest.raises(fnet.errors.ArgumentTypeError, match="hashable"):
        step(numpy.ones(2), {1, 2})


def test_control_flow_on_values_names_the_line_and_the_alternatives():
    def step(x):
        if fo.sum(x) > 0:
            return x
        return -x

    line = inspect.getsourcelines(step)[1] + 1
    with pytest.raises(CaptureError) as info:
        fnet.capture(step)(numpy.ones(3))
    text = str(info.value)
    assert f"test_capture.py:{line}" in text
    assert "Python bool" in text and "static" in text and "eager" in text


def test_float_of_a_value_is_refused_and_nothing_is_kept():
    step = fnet.capture(lambda x: x * float(fo.sum(x)))
    with pytest.raises(CaptureError, match="Python float"):
        step(numpy.ones(3))
    assert step.stats()["cached"] == 0


def test_printing_is_refused():
    with pytest.raises(CaptureError, match="prints"):
        fnet.capture(lambda x: print(x) or x)(numpy.ones(2))


def test_each_replay_reports_the_values_it_computes():
    def reports(x):
        fnet.training.reporter.report({"total": fo.sum(x), "constant": 1.5})
        return x * 2

    captured = fnet.capture(reports)
    seen = []
    for scale in (1.0, 2.0, 3.0):
        reporter = fnet.training.reporter.Reporter()
        observation = {}
        with reporter, reporter.scope(observation):
            captured(numpy.full(2, scale))
        seen.append((float(observation["total"]), observation["constant"]))
    assert seen == [(2.0, 1.5), (4.0, 1.5), (6.0, 1.5)]
    assert captured.stats()["replays"] == 2


def test_keys_are_inputs_so_each_replay_draws_fresh_numbers():
    def noisy(x, key):
        return x + fnet.random.normal(key, x.shape, dtype=x.dtype)

    captured = fnet.capture(noisy)
    x = numpy.zeros(4, numpy.float32)
    keys = fnet.random.split(fnet.random.key(0), 3)
    draws = [captured(x, k) for k in keys]
    for k, d in zip(keys, draws):
        assert _same_bits(noisy(x, k), d)
    assert not numpy.array_equal(draws[1], draws[2])
    assert _same_bits(captured(x, keys[1]), draws[1])


def test_dropout_with_a_key_in_a_captured_training_step():
    rng = numpy.random.default_rng(5)
    w = rng.standard_normal((5, 5)).astype(numpy.float32)
    x = rng.standard_normal((3, 5)).astype(numpy.float32)

    def step(w, key):
        return fnet.grad(lambda w: fo.sum(F.dropout(fo.tanh(x @ w), 0.5, key=key)))(w)

    captured = fnet.capture(step)
    for seed in range(3):
        key = fnet.random.key(seed)
        assert _same_bits(step(w, key), captured(w, key))


def test_labels_are_checked_again_on_each_replay():
    value_and_grad = fnet.value_and_grad(_mlp_loss)
    captured = fnet.capture(value_and_grad)
    params = _mlp(numpy.random.default_rng(6))
    x = numpy.ones((2, 6), numpy.float32)
    captured(params, x, numpy.array([0, 2], numpy.int32))
    with pytest.raises(InvalidInputError, match="label 3"):
        captured(params, x, numpy.array([0, 3], numpy.int32))


def test_ignored_labels_on_replay_give_the_eager_result():
    value_and_grad = fnet.value_and_grad(lambda x, t: F.softmax_cross_entropy(x, t))
    captured = fnet.capture(value_and_grad)
    x = numpy.random.default_rng(7).standard_normal((4, 3)).astype(numpy.float32)
    for t in ([0, 1, 2, 1], [0, -1, 2, -1], [-1, -1, -1, 2]):
        t = numpy.array(t, numpy.int32)
        assert _same_bits(value_and_grad(x, t), captured(x, t))


def test_a_primitive_that_branches_on_values_is_recorded_whole():
    @fnet.autodiff.primitive
    def shrink(x):
        return x / x.max() if float(x.max()) > 1 else x  # a branch a recording cannot follow

    shrink.defvjp(lambda g, ans, x: g)
    step = fnet.capture(lambda x: shrink(x) * 2)
    assert step(numpy.array([0.5, 0.25])).tolist() == [1.0, 0.5]
    assert step(numpy.array([4.0, 2.0])).tolist() == [2.0, 1.0]  # the other branch, on replay
    assert "shrink" in step.plans()[0].source or len(step.plans()[0].source) > 0


def test_a_value_dependent_shape_that_changes_is_a_clear_error_on_replay():
    step = fnet.capture(lambda x: fo.sum(x[x > 0] * 2))
    assert float(step(numpy.array([1.0, -1.0, 2.0]))) == 6.0
    assert float(step(numpy.array([3.0, -1.0, 2.0]))) == 10.0  # same number of positives
    with pytest.raises(CaptureError, match="depends on the values"):
        step(numpy.array([3.0, 1.0, 2.0]))


def test_a_value_kept_from_a_recording_cannot_be_used_later():
    kept = []

    def leaky(x):
        kept.append(x * 2)
        return x

    fnet.capture(leaky)(numpy.ones(2))
    with pytest.raises(CaptureError, match="finished recording"):
        kept[0] + 1


def test_under_an_outer_transform_the_step_runs_eagerly():
    captured = fnet.capture(lambda x: fo.sum(fo.sin(x)))
    x = numpy.linspace(0, 1, 4)
    assert _same_bits(fnet.grad(captured)(x), numpy.cos(x))
    assert captured.stats()["records"] == 0


def test_a_capture_inside_a_capture_is_recorded_by_the_outer_one():
    inner = fnet.capture(lambda x: x * 2)
    outer = fnet.capture(lambda x: inner(x) + 1)
    assert outer(numpy.ones(2)).tolist() == [3.0, 3.0]
    assert outer(numpy.zeros(2)).tolist() == [1.0, 1.0]
    assert inner.stats()["records"] == 0


def test_in_place_updates_of_inputs_are_replayed():
    def step(x, y):
        x += y  # on the caller's array, as the eager call does
        return x * 1

    captured = fnet.capture(step)
    a, b = numpy.ones(3), numpy.ones(3)
    captured(a, b)
    captured(a, b)
    assert a.tolist() == [3.0, 3.0, 3.0]


def test_outputs_that_do_not_depend_on_inputs_are_returned():
    captured = fnet.capture(lambda x: {"y": x + 1, "n": 3, "c": numpy.zeros(2)})
    out = captured(numpy.ones(1))
    out = captured(numpy.ones(1))
    assert out["n"] == 3 and out["c"].tolist() == [0.0, 0.0] and out["y"].tolist() == [2.0]


def test_replay_holds_no_more_memory_than_the_eager_step():
    rng = numpy.random.default_rng(8)
    params = _mlp(rng, (200, 300, 300, 10))
    x = rng.standard_normal((64, 200)).astype(numpy.float32)
    t = rng.integers(0, 10, 64).astype(numpy.int32)
    value_and_grad = fnet.value_and_grad(_mlp_loss)

    def step(params, x, t):
        loss, grads = value_and_grad(params, x, t)
        return fnet.tree.map(lambda p, g: g * -0.1 + p, params, grads), loss

    captured = fnet.capture(step)
    captured(params, x, t)

    def peak(fn):
        fn(params, x, t)
        tracemalloc.start()
        fn(params, x, t)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak

    assert peak(captured) <= peak(step)


def test_bad_arguments_of_capture_are_clear_errors():
    with pytest.raises(fnet.errors.ArgumentTypeError, match="function"):
        fnet.capture(3)
    with pytest.raises(fnet.errors.ArgumentTypeError, match="max_records"):
        fnet.capture(lambda x: x, max_records=0)


def test_a_plain_array_changed_after_an_op_read_it_is_refused():
    def step(x):
        scale = numpy.ones(3)
        y = x * scale
        scale[0] = 5.0  # a replay would give the product above this value
        return y + scale

    with pytest.raises(CaptureError, match="changed in place"):
        fnet.capture(step)(numpy.ones(3))


def test_a_plain_array_built_before_its_use_is_a_constant():
    def step(x):
        scale = numpy.ones(3)
        scale[0] = 5.0  # changed before any op reads it: a constant of the replay
        return x * scale

    captured = fnet.capture(step)
    captured(numpy.ones(3))
    assert captured(numpy.full(3, 2.0)).tolist() == [10.0, 2.0, 2.0]
