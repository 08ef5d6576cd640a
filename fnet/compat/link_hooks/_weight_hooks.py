"""What the hooks that replace a link's weight during its forward share."""

from __future__ import annotations

import inspect

from .link_hook import LinkHook

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)

__all__ = ["not_a_context_manager", "weight_of", "initialize_lazy_weight"]


def not_a_context_manager(hook: LinkHook) -> NotImplementedError:
    """Chainer's error for a hook that acts on one link only, used in a ``with`` statement."""
    return NotImplementedError(
        f"This hook is not supposed to be used as context manager ({type(hook).__name__} acts on one link)\n"
        f"  hint: register it on a link with link.add_hook({type(hook).__name__}(...))"
    )


def weight_of(hook_name: str, link, weight_name: str):
    """The weight ``weight_name`` of ``link``, or a ValueError saying it has none."""
    if not hasattr(link, weight_name):
        raise ValueError(
            f"Weight '{weight_name}' does not exist! ({hook_name} was added to {type(link).__name__})\n"
            "  hint: pass weight_name= the name of the link's weight parameter"
        )
    return getattr(link, weight_name)


def initialize_lazy_weight(hook_name: str, link, weight_name: str, args: tuple, kwargs: dict) -> None:
    """Initialize a lazy link's weight from the first input, as its forward would: a link of
    fnet's sizes itself from the call's arguments, a user's Chainer-style link with
    ``link._initialize_params(x.shape[1])``."""
    if getattr(link, weight_name).array is not None:
        return
    if not args or args[0] is None:
        raise ValueError(f"Input variable does not exist! ({hook_name} needs it to initialize {weight_name})")
    if getattr(link, "_pending", False):
        link._initialize(args, _with_defaults(link.forward, args, kwargs))
        return
    if not hasattr(link, "_initialize_params"):
        raise ValueError(
            f"{hook_name}: the weight '{weight_name}' of {type(link).__name__} is not initialized, and the "
            "link has no _initialize_params(in_size) to initialize it from the input\n"
            "  hint: give the link its input size, or initialize the weight before the first call"
        )
    link._initialize_params(args[0].shape[1])


def _with_defaults(forward, args: tuple, kwargs: dict) -> dict:
    """``kwargs`` with every named argument of ``forward`` of this call added (the defaults of
    those not given too), as the link's own forward would pass them on."""
    bound = inspect.signature(forward).bind(*args, **kwargs)
    bound.apply_defaults()
    parameters = bound.signature.parameters
    named = {k: v for k, v in bound.arguments.items() if parameters[k].kind not in _VARIADIC}
    return {**named, **kwargs}
