"""fnet.compat.link_hooks: TimerHook, SpectralNormalization and WeightStandardization,
the last two against Chainer 7.8.1's outputs and gradients (tests/golden/make_compat_link.py).

How close to Chainer: the first vector ``u`` of spectral normalization is a float32 normal draw
from the same seed, within 1 ulp (libm's log may round differently); outputs and gradients,
which go through BLAS, to relative tolerances of 1e-5 and 1e-4.
"""

from __future__ import annotations

import io
import pathlib

import numpy
import pytest

from fnet.compat import configuration, initializers
from fnet.compat import functions as F
from fnet.compat.link import Chain, Link
from fnet.compat.link_hooks import LinkHook, SpectralNormalization, TimerHook, WeightStandardization
from fnet.compat.variable import Parameter, Variable
from fnet.testing import assert_ulp_close

from .test_link import Linear, MyChain

GOLDEN = numpy.load(pathlib.Path(__file__).parents[1] / "golden" / "compat_link.npz")
SEED = 7  # the seed of make_compat_link.py


class _Convolution(Link):
    """A convolution-like link with a weight ``W`` and a bias 0.5, as in the golden script."""

    def __init__(self, W):
        super().__init__()
        with self.init_scope():
            self.W = Parameter(W.copy())
            self.b = Parameter(0.5, (W.shape[self.out_axis],))


class Convolution2D(_Convolution):
    out_axis = 0

    def forward(self, x):
        return F.convolution_2d(x, self.W, self.b)


class Deconvolution2D(_Convolution):
    """Named like Chainer's link, so that SpectralNormalization normalizes along axis 1."""

    out_axis = 1

    def forward(self, x):
        return F.deconvolution_2d(x, self.W, self.b)


def golden(prefix):
    return {k[len(prefix) :]: GOLDEN[k] for k in GOLDEN.files if k.startswith(prefix)}


def linear(W):
    link = Linear(W.shape[1], W.shape[0], initialW=W)
    link.b.array[...] = 0.5
    return link


# -- LinkHook and TimerHook -----------------------------------------------------------------


def test_link_hook_defaults_and_callback_args():
    hook = LinkHook()
    assert hook.name == "LinkHook"
    seen = []

    class Spy(LinkHook):
        def forward_preprocess(self, args):
            seen.append(repr(args))

        def forward_postprocess(self, args):
            seen.append(repr(args))

    link = Linear(2, 2).add_hook(Spy())
    link(numpy.ones((1, 2), numpy.float32))
    assert seen[0].startswith("<fnet.compat.link_hooks.link_hook.ForwardPreprocessCallbackArgs link=")
    assert "forward_name='forward'" in seen[0] and " out=variable(" in seen[1]
    with hook:  # the base hook does nothing
        link(numpy.ones((1, 2), numpy.float32))


def test_timer_hook():
    model = MyChain()
    with TimerHook() as hook:
        model(numpy.ones((2, 4), numpy.float32))
        model(numpy.ones((2, 4), numpy.float32))
    assert [name for name, _ in hook.call_history] == ["Linear", "Linear", "MyChain"] * 2
    summary = hook.summary()
    assert list(summary) == ["Linear", "MyChain"]
    assert summary["Linear"]["occurrence"] == 4 and summary["MyChain"]["occurrence"] == 2
    outer = sum(t for name, t in hook.call_history if name == "MyChain")
    assert hook.total_time() == pytest.approx(outer)  # nested calls are not counted twice
    out = io.StringIO()
    hook.print_report(file=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "LinkName  ElapsedTime  Occurrence"
    assert lines[1].split()[0] == "Linear" and lines[1].split()[2] == "4"
    assert lines[2].startswith(" MyChain") and lines[2].rstrip().endswith("2")
    out = io.StringIO()
    hook.print_report(unit="ns", file=out)
    assert out.getvalue().splitlines()[1].split()[1].endswith("ns")
    with pytest.raises(ValueError, match="unknown unit 'min'"):
        hook.print_report(unit="min")


def test_timer_hook_choose_unit():
    assert TimerHook._choose_unit(2.0) == (1, "sec")
    assert TimerHook._choose_unit(0.002) == (1000.0, "ms")
    assert TimerHook._choose_unit(2e-10) == (1e9, "ns")


# -- SpectralNormalization ------------------------------------------------------------------


@pytest.mark.parametrize(
    "case, options",
    [
        ("default", {}),
        ("iter2_factor", {"n_power_iteration": 2, "factor": 2.0}),
        ("gamma", {"use_gamma": True}),
    ],
)
def test_spectral_normalization_matches_chainer(case, options):
    g = golden(f"sn_{case}/")
    link = linear(g["W"])
    numpy.random.seed(SEED)
    hook = SpectralNormalization(**options)
    link.add_hook(hook)
    # drawn from NumPy's global state: a normal draw goes through libm's log, which is not
    # correctly rounded (builds may differ in the last bit); rounded to float32: 1 ulp
    assert_ulp_close(link.W_u, g["u0"], max_ulp=1)
    y = link(g["x"])
    assert type(link.W) is Parameter and link.W is hook.original_weight
    link.cleargrads()
    F.sum(y * y).backward()
    numpy.testing.assert_allclose(y.array, g["y"], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link.W.grad, g["gW"], rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(link.W_u, g["u"], rtol=1e-5, atol=1e-6)
    if options.get("use_gamma"):
        numpy.testing.assert_allclose(link.gamma.array, g["gamma0"], rtol=1e-5)
        numpy.testing.assert_allclose(link.gamma.grad, g["ggamma"], rtol=1e-4)
    u = link.W_u.copy()
    with configuration.using_config("train", False):
        numpy.testing.assert_allclose(link(g["x"]).array, g["y_eval"], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_array_equal(link.W_u, u)  # not updated in test mode
    numpy.testing.assert_array_equal(g["u_eval"], g["u"])


def test_spectral_normalization_of_a_deconvolution_matches_chainer():
    g = golden("sn_deconv/")
    link = Deconvolution2D(g["W"])
    numpy.random.seed(SEED)
    hook = SpectralNormalization()
    link.add_hook(hook)
    assert hook.axis == 1 and link.W_u.shape == (2,)
    numpy.testing.assert_allclose(link(g["x"]).array, g["y"], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(link.W_u, g["u"], rtol=1e-5, atol=1e-6)


def test_spectral_normalization_registration():
    link = Linear(4, 3)
    hook = SpectralNormalization(use_gamma=True)
    link.add_hook(hook)
    assert hook.vector_name == "W_u" and "W_u" in link._persistent and "W_u" in link.state_tree()
    assert [p for p, _ in link.namedparams()] == ["/W", "/b", "/gamma"]
    link.delete_hook(hook.name)
    assert not hasattr(link, "W_u") and not hasattr(link, "gamma")
    with pytest.raises(ValueError, match="Weight 'V' does not exist!"):
        Linear(2, 2).add_hook(SpectralNormalization(weight_name="V"))
    with pytest.raises(ValueError, match="n_power_iteration must be positive"):
        SpectralNormalization(n_power_iteration=0)
    with pytest.raises(NotImplementedError, match="not supposed to be used as context manager"):
        with SpectralNormalization():
            pass
    assert SpectralNormalization(name="sn").name == "sn"


def test_spectral_normalization_of_a_lazy_link():
    link = Linear(3).add_hook(SpectralNormalization())
    assert not hasattr(link, "W_u")
    y = link(numpy.ones((2, 5), numpy.float32))
    assert y.shape == (2, 3) and link.W.shape == (3, 5) and link.W_u.shape == (3,)
    bare = Link()
    with bare.init_scope():
        bare.W = Parameter(initializers.Normal())
    bare.forward = lambda x: x
    bare.add_hook(SpectralNormalization())
    with pytest.raises(ValueError, match="has no _initialize_params"):
        bare(numpy.ones((1, 2), numpy.float32))


def test_spectral_normalization_bounds_the_spectral_norm():
    numpy.random.seed(0)
    link = linear(numpy.random.randn(6, 5).astype(numpy.float32) * 3)
    link.add_hook(SpectralNormalization())
    for _ in range(30):  # the power iteration converges over the calls
        link(numpy.ones((1, 5), numpy.float32))
    hook = link.local_link_hooks["SpectralNormalization"]
    normalized = hook.normalize_weight(link).array
    assert numpy.linalg.svd(normalized, compute_uv=False)[0] == pytest.approx(1.0, rel=1e-3)


def test_spectral_normalization_in_recomputing_reuses_v():
    link = linear(numpy.eye(3, dtype=numpy.float32))
    hook = SpectralNormalization()
    link.add_hook(hook)
    link(numpy.ones((1, 3), numpy.float32))
    u, v = link.W_u.copy(), hook.v
    with configuration.using_config("in_recomputing", True):
        link(numpy.ones((1, 3), numpy.float32))
    assert hook.v is v
    numpy.testing.assert_array_equal(link.W_u, u)


# -- WeightStandardization ------------------------------------------------------------------


def test_weight_standardization_matches_chainer():
    g = golden("ws/")
    link = Convolution2D(g["W"])
    hook = WeightStandardization()
    assert link.add_hook(hook) is link and hook.eps == 1e-5
    y = link(g["x"])
    assert link.W is hook.original_weight
    F.sum(y * y).backward()
    numpy.testing.assert_allclose(y.array, g["y"], rtol=1e-4, atol=1e-5)
    numpy.testing.assert_allclose(link.W.grad, g["gW"], rtol=1e-4, atol=1e-4)


def test_weight_standardization_standardizes_each_output_unit():
    link = linear(numpy.random.RandomState(0).randn(3, 8).astype(numpy.float32) * 5 + 2)
    seen = []
    link.forward = lambda x: seen.append(link.W) or F.linear(x, link.W, link.b)
    link.add_hook(WeightStandardization(eps=0.0))
    link(numpy.ones((1, 8), numpy.float32))
    standardized = seen[0]
    assert isinstance(standardized, Variable) and not isinstance(standardized, Parameter)
    numpy.testing.assert_allclose(standardized.array.mean(axis=1), 0, atol=1e-5)
    numpy.testing.assert_allclose(standardized.array.std(axis=1), 1, rtol=1e-4)


def test_weight_standardization_errors_and_lazy_links():
    with pytest.raises(ValueError, match="Weight 'V' does not exist!"):
        Linear(2, 2).add_hook(WeightStandardization(weight_name="V"))
    with pytest.raises(NotImplementedError, match="context manager"):
        with WeightStandardization():
            pass
    link = Chain(l=Linear(2).add_hook(WeightStandardization(name="ws")))
    assert list(link.l.local_link_hooks) == ["ws"]
    assert link.l(numpy.ones((4, 3), numpy.float32)).shape == (4, 2) and link.l.W.shape == (2, 3)
    with pytest.raises(ValueError, match="Input variable does not exist!"):
        Linear(2).add_hook(WeightStandardization())(None)


@pytest.mark.parametrize("hook_type", [SpectralNormalization, WeightStandardization])
def test_weight_hooks_size_fnets_lazy_links_from_the_call(hook_type):
    # fnet's own links infer their sizes from the call's arguments (defaults included, as
    # Linear's n_batch_axes), not through a Chainer-style _initialize_params
    from fnet.compat import links as L

    x = numpy.ones((2, 3, 4, 4), numpy.float32)
    for link, y_shape, w_shape in [
        (L.Linear(5), (2, 5), (5, 48)),
        (L.Convolution2D(None, 6, 3), (2, 6, 2, 2), (6, 3, 3, 3)),
    ]:
        hook = hook_type()
        link.add_hook(hook)
        assert link(x).shape == y_shape and link.W.shape == w_shape
        link.delete_hook(hook.name)


def test_spectral_normalization_helpers_of_chainer():
    import fnet.compat as chainer
    from fnet.compat.link_hooks import spectral_normalization as sn

    w = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    u, v = sn.update_approximate_vectors(chainer.Variable(w), numpy.array([1.0, 2.0], numpy.float32), 3, 1e-6)
    # Chainer 7.8.1 gives u = [0.27472222, 0.9615235], v = [0.39253327, 0.56077087, 0.7290085]
    # and sigma 7.348467 here (float32: compared within 4 ulps)
    numpy.testing.assert_array_max_ulp(u, numpy.array([0.27472222, 0.9615235], numpy.float32), 4)
    numpy.testing.assert_array_max_ulp(v, numpy.array([0.39253327, 0.56077087, 0.7290085], numpy.float32), 4)
    sigma = sn.calculate_max_singular_value(chainer.Variable(w), u, v)
    assert isinstance(sigma, chainer.Variable)
    numpy.testing.assert_array_max_ulp(sigma.array, numpy.float32(7.348467), 4)
    numpy.testing.assert_array_max_ulp(
        sn.l2normalize(numpy, numpy.array([3.0, 4.0], numpy.float32), 1e-6),
        numpy.array([0.5999999, 0.79999983], numpy.float32),
        4,
    )
