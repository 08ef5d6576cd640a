"""Hints for the spellings PyTorch, JAX and optax users reach for first: ``Adam(lr=...)``,
``SGD(momentum=...)``, ``x.cuda()``, ``x.numpy()``, each pointing at fnet's (Chainer's) spelling.

One table, ``SPELLINGS``: the optimizers' keyword arguments (``fnet.optim`` and
``chainer.optimizers`` alike, through ``argument_error``) and the attributes of Chainer's
``Variable`` (which ``fnet.compat`` installs from ``attribute_hints``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Collection, Iterable
from typing import NamedTuple

__all__ = ["Spelling", "SPELLINGS", "keyword_names", "check_keywords", "argument_error", "attribute_hints"]


class Spelling(NamedTuple):
    """A foreign spelling and what fnet calls it."""

    owner: str  # "optimizer" (a keyword argument of the optimizers) or "Variable" (an attribute)
    name: str  # the foreign name
    hint: str  # what to write instead; "{op}" is the optimizer's name
    needs: tuple[str, ...] = ()  # the row applies to an optimizer that takes all these arguments


_WD_HOOK = "fnet.optim.WeightDecay(rate) chained before it (Chainer: optimizer.add_hook(WeightDecay(rate)))"

SPELLINGS: tuple[Spelling, ...] = (
    # -- optimizers -----------------------------------------------------------------------------
    Spelling(
        "optimizer", "lr", "{op} calls its learning rate alpha, as Chainer does: {op}(alpha=...)", ("alpha",)
    ),
    Spelling(
        "optimizer",
        "lr",
        "{op} has no learning rate (its steps are scaled by rho and eps); use SGD or Adam for one",
    ),
    Spelling("optimizer", "learning_rate", "the learning rate is lr: {op}(lr=...)", ("lr",)),
    Spelling("optimizer", "learning_rate", "the learning rate of {op} is alpha: {op}(alpha=...)", ("alpha",)),
    Spelling(
        "optimizer", "betas", "give the decay rates one by one: {op}(beta1=b1, beta2=b2)", ("beta1", "beta2")
    ),
    Spelling("optimizer", "b1", "the first decay rate is beta1: {op}(beta1=...)", ("beta1",)),
    Spelling("optimizer", "b2", "the second decay rate is beta2: {op}(beta2=...)", ("beta2",)),
    Spelling("optimizer", "epsilon", "it is eps: {op}(eps=...)", ("eps",)),
    Spelling(
        "optimizer",
        "weight_decay",
        "{op}'s weight_decay_rate is the decoupled decay of AdamW (weight_decay_rate = lr * weight_decay "
        f"matches PyTorch's AdamW); for the L2 decay of PyTorch's Adam use {_WD_HOOK}",
        ("weight_decay_rate",),
    ),
    Spelling("optimizer", "weight_decay", f"{{op}} takes no weight decay: use {_WD_HOOK}"),
    Spelling(
        "optimizer",
        "momentum",
        "{op} has no momentum: use MomentumSGD(lr, momentum) (NesterovAG for Nesterov momentum, "
        "RMSpropGraves for RMSprop with momentum)",
    ),
    Spelling("optimizer", "nesterov", "Nesterov momentum is its own optimizer: NesterovAG(lr, momentum)"),
    Spelling("optimizer", "centered", "the centered RMSprop is RMSpropGraves(lr, alpha, momentum, eps)"),
    Spelling("optimizer", "amsgrad", "use AMSGrad(...), or Adam(amsgrad=True, weight_decay_rate=...)"),
    Spelling(
        "optimizer", "rho", "{op}'s decay rate of the squared gradients is alpha: {op}(alpha=...)", ("alpha",)
    ),
    # -- chainer.Variable -----------------------------------------------------------------------
    Spelling("Variable", "cuda", "Chainer moves a variable with x.to_gpu() or x.to_device('@cupy:0')"),
    Spelling("Variable", "cpu", "Chainer moves a variable with x.to_cpu() or x.to_device('@numpy')"),
    Spelling(
        "Variable", "to", "Chainer moves a variable with x.to_device('@cupy:0') or x.to_device('@numpy')"
    ),
    Spelling("Variable", "numpy", "x.array is the array (after x.to_cpu(), a NumPy array)"),
    Spelling(
        "Variable", "detach", "x.array is the array without the graph; chainer.Variable(x.array) a variable"
    ),
    Spelling("Variable", "dim", "the number of axes is x.ndim"),
    Spelling("Variable", "numel", "the number of elements is x.size"),
    Spelling(
        "Variable", "requires_grad_", "choose it at creation: chainer.Variable(array, requires_grad=False)"
    ),
    Spelling("Variable", "tolist", "x.array.tolist()"),
    Spelling("Variable", "unsqueeze", "chainer.functions.expand_dims(x, axis)"),
    Spelling("Variable", "clone", "chainer.functions.copy(x, dst) copies it to the device dst, in the graph"),
)


def keyword_names(fn: Callable) -> tuple[str, ...] | None:
    """The names ``fn`` takes as keyword arguments (a method's ``self`` left out); None when it
    takes any (``**kwargs``). Read once by whoever checks many calls."""
    parameters = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    by_keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return tuple(p.name for p in parameters if p.kind in by_keyword and p.name != "self")


def check_keywords(op: str, accepted: Collection[str] | None, keywords: Iterable[str]) -> None:
    """Raise ``argument_error`` for the first of ``keywords`` that ``op``, which takes
    ``accepted`` (``keyword_names``; None: any), does not take."""
    if accepted is None:
        return
    unknown = [name for name in keywords if name not in accepted]
    if unknown:
        raise argument_error(op, accepted, unknown)


def argument_error(op: str, accepted: Iterable[str], unknown: Iterable[str]) -> TypeError:
    """The TypeError for the first of the keyword arguments ``unknown`` given to the optimizer
    ``op``, which takes ``accepted``: with the hint of its row, else the list of what it takes."""
    accepted = list(accepted)
    name = next(iter(unknown))
    for row in SPELLINGS:
        if row.owner == "optimizer" and row.name == name and set(row.needs) <= set(accepted):
            hint = row.hint.format(op=op)
            break
    else:
        hint = f"{op} takes {', '.join(accepted)}"
    return TypeError(f"{op}() got an unexpected keyword argument {name!r}\n  hint: {hint}")


def attribute_hints(owner: str) -> dict[str, str]:
    """The hints for the foreign attribute names of ``owner`` (e.g. ``"Variable"``), by name."""
    return {row.name: row.hint for row in SPELLINGS if row.owner == owner}
