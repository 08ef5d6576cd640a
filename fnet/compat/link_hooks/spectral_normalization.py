"""``SpectralNormalization``: a link's weight divided by its largest singular value before
each forward (Miyato et al., arXiv:1802.05957).

The singular value is estimated by power iteration (``fnet.nn.spectral_normalization``, pure)
with a vector ``u`` kept in the link as a persistent (``W_u`` for the weight ``W``); the
iteration runs on arrays, as bookkeeping like running statistics, and ``u`` is updated in
training mode only. The normalized weight is computed with differentiable functions, so
gradients flow through the estimate to ``W``.
"""

from __future__ import annotations

from ... import functions as _pure
from ...nn import spectral_normalization as _spectral
from .. import configuration
from ..functions import lift
from ..variable import Parameter, Variable
from ._weight_hooks import initialize_lazy_weight, not_a_context_manager, weight_of
from .link_hook import ForwardPostprocessCallbackArgs, ForwardPreprocessCallbackArgs, LinkHook

__all__ = [
    "SpectralNormalization",
    "l2normalize",
    "update_approximate_vectors",
    "calculate_max_singular_value",
]

# Links whose weight has the output channels on axis 1 (Chainer's deconvolutions and their subclasses).
_OUTPUT_ON_AXIS_1 = ("Deconvolution2D", "DeconvolutionND")


def l2normalize(xp, v, eps: float):
    """The vector ``v`` (an array) divided by its L2 norm plus ``eps`` (``xp``, the array
    module, is Chainer's argument; the array tells it here)."""
    return _pure.normalize(v, eps, axis=0)


def update_approximate_vectors(weight_matrix, u, n_power_iteration: int, eps: float):
    """``(u, v)``: approximations of the first left and right singular vectors of the 2-d
    ``weight_matrix`` (a Variable or an array) by ``n_power_iteration`` steps of power
    iteration from ``u``, on arrays."""
    return _spectral.power_iteration(
        getattr(weight_matrix, "array", weight_matrix), u, n_power_iteration, eps
    )


_max_singular_value = lift(_spectral.max_singular_value)
_as_matrix = lift(_spectral.as_matrix)


def calculate_max_singular_value(weight_matrix, u, v):
    """The largest singular value of ``weight_matrix`` estimated from the singular vectors
    ``u`` and ``v``: ``u W v``, a Variable through which gradients reach ``W``."""
    return _max_singular_value(weight_matrix, u, v)


class SpectralNormalization(LinkHook):
    """Replaces the link's weight, for each forward, by ``W / sigma(W)`` (times a learned
    ``gamma`` with ``use_gamma``, initialized to the first singular value of the initial
    weight; ``sigma`` divided by ``factor`` if given).

    Args:
        n_power_iteration: power iterations per forward (at least 1).
        eps: added to the norms in the power iteration.
        use_gamma: add the scale parameter ``gamma`` to the link (add the hook before the
            optimizer's ``setup``, so that it is trained).
        factor: ``sigma`` is divided by it.
        weight_name: the name of the weight parameter to normalize.
        name: the hook's name (default ``'SpectralNormalization'``).

    The vector ``u`` is the link's persistent ``weight_name + '_u'`` (``vector_name``), drawn
    from NumPy's global random state when the weight is first known; ``axis`` is the weight's
    output axis (1 for deconvolutions). The link's attribute is the original ``Parameter``
    again after the forward.
    """

    name = "SpectralNormalization"

    def __init__(
        self,
        n_power_iteration: int = 1,
        eps: float = 1e-6,
        use_gamma: bool = False,
        factor: float | None = None,
        weight_name: str = "W",
        name: str | None = None,
    ):
        if n_power_iteration <= 0:
            raise ValueError(
                f"SpectralNormalization: n_power_iteration must be positive, got {n_power_iteration}\n"
                "  hint: 1 iteration per forward is the usual choice"
            )
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.weight_name = weight_name
        self.vector_name = weight_name + "_u"
        self._initialized = False
        self.axis = 0
        self.original_weight = None
        self.v = None
        if name is not None:
            self.name = name

    def __enter__(self):
        raise not_a_context_manager(self)

    def added(self, link) -> None:
        weight = weight_of(self.name, link, self.weight_name)
        if any(cls.__name__ in _OUTPUT_ON_AXIS_1 for cls in type(link).__mro__):
            self.axis = 1
        if weight.array is not None:
            self._prepare_parameters(link)

    def deleted(self, link) -> None:
        delattr(link, self.vector_name)
        if self.use_gamma:
            del link.gamma

    def forward_preprocess(self, cb_args: ForwardPreprocessCallbackArgs) -> None:
        link = cb_args.link
        if not self._initialized:
            initialize_lazy_weight(self.name, link, self.weight_name, cb_args.args, cb_args.kwargs)
            self._prepare_parameters(link)
        self.original_weight = getattr(link, self.weight_name)
        setattr(link, self.weight_name, self.normalize_weight(link))

    def forward_postprocess(self, cb_args: ForwardPostprocessCallbackArgs) -> None:
        setattr(cb_args.link, self.weight_name, self.original_weight)

    def _prepare_parameters(self, link) -> None:
        """Draw ``u`` (and make ``gamma``) for the link's initialized weight."""
        weight = getattr(link, self.weight_name).array
        if weight.shape[self.axis] == 0:
            raise ValueError(f"Expect {self.weight_name}.shape[{self.axis}] > 0, got shape {weight.shape}")
        u = link.xp.random.normal(size=(weight.shape[self.axis],)).astype(weight.dtype)
        setattr(link, self.vector_name, u)
        link.register_persistent(self.vector_name)
        if self.use_gamma:
            singular_values = link.xp.linalg.svd(self.reshape_W(weight))[1]
            with link.init_scope():
                link.gamma = Parameter(link.xp.asarray(singular_values[0]))
        self._initialized = True

    def normalize_weight(self, link):
        """The normalized weight (a Variable); in training mode, ``u`` is updated in place."""
        weight = getattr(link, self.weight_name)
        weight_matrix = self.reshape_W(weight)
        if configuration.config.in_recomputing:
            u, v = getattr(link, self.vector_name), self.v
        else:
            u, v = update_approximate_vectors(
                weight_matrix, getattr(link, self.vector_name), self.n_power_iteration, self.eps
            )
        sigma = calculate_max_singular_value(weight_matrix, u, v)
        if self.factor is not None:
            sigma = sigma / self.factor
        normalized = link.gamma * weight / sigma if self.use_gamma else weight / sigma
        if not configuration.config.in_recomputing:
            self.v = v
            if configuration.config.train:
                getattr(link, self.vector_name)[...] = u
        return normalized

    def reshape_W(self, W):
        """The weight (array or Variable) as a matrix with the output axis first."""
        if isinstance(W, Variable):
            return _as_matrix(W, self.axis)
        return _spectral.as_matrix(W, self.axis)
