"""``WeightStandardization``: a link's weight standardized (zero mean, unit variance per
output unit) before each forward, differentiably."""

from __future__ import annotations

from .. import functions as F
from ._weight_hooks import initialize_lazy_weight, not_a_context_manager, weight_of
from .link_hook import ForwardPostprocessCallbackArgs, ForwardPreprocessCallbackArgs, LinkHook

__all__ = ["WeightStandardization"]


class WeightStandardization(LinkHook):
    """Replaces the link's weight, for each forward, by the weight standardized over all axes
    but the first (output units): group normalization of the weight with one group.

    See Qiao et al., *Weight Standardization* (arXiv:1903.10520). The link's attribute is the
    original ``Parameter`` again after the forward, and gradients flow to it.
    """

    name = "WeightStandardization"

    def __init__(self, *, eps: float = 1e-5, weight_name: str = "W", name: str | None = None):
        self.eps = eps
        self.weight_name = weight_name
        self._initialized = False
        self.original_weight = None
        if name is not None:
            self.name = name

    def __enter__(self):
        raise not_a_context_manager(self)

    def added(self, link) -> None:
        if weight_of(self.name, link, self.weight_name).array is not None:
            self._initialized = True

    def forward_preprocess(self, cb_args: ForwardPreprocessCallbackArgs) -> None:
        link = cb_args.link
        if not self._initialized:
            initialize_lazy_weight(self.name, link, self.weight_name, cb_args.args, cb_args.kwargs)
        weight = getattr(link, self.weight_name)
        xp = link.xp
        channels = weight.shape[1]
        gamma = xp.ones((channels,), dtype=weight.dtype)
        beta = xp.zeros((channels,), dtype=weight.dtype)
        self.original_weight = weight
        standardized = F.group_normalization(weight, 1, gamma, beta, eps=self.eps)
        setattr(link, self.weight_name, standardized)

    def forward_postprocess(self, cb_args: ForwardPostprocessCallbackArgs) -> None:
        setattr(cb_args.link, self.weight_name, self.original_weight)
