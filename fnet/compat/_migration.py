"""Messages that teach old and foreign code: Chainer v1-era names that Chainer v7 (and so
fnet.compat) no longer has, and PyTorch's spellings on ``Variable`` (``x.cuda()``).

One table, ``REMOVED``, lists them: the module or class a name lived in (by Chainer's path), the
name (``name=`` for a keyword argument: of that class, or of every function or link of that
module), and what happened to it with what to write instead. ``install()`` makes the table act:

* a module of the table gets a ``__getattr__``: ``chainer.FunctionSet`` still raises the
  AttributeError a Chainer v7 program sees (``hasattr`` stays False), its message says what
  replaces it; ``from chainer import FunctionSet`` raises an ImportError that says the same;
* a class of the table gets, per removed member, a descriptor that raises that AttributeError
  (``optimizer.zero_grads``); a subclass that defines the name overrides it as usual.

``keyword_error`` gives the error for removed keyword arguments, for the callers that find one
(``Variable``, the links' constructors, the functions of ``chainer.functions``). The PyTorch
spellings come from the core's one table of them, ``fnet._foreign.SPELLINGS``.
"""

from __future__ import annotations

import dis
import importlib
import sys
from typing import NamedTuple

from .._foreign import attribute_hints
from ._alias import _target

__all__ = ["Removed", "REMOVED", "install", "keyword_error"]


class Removed(NamedTuple):
    """A name Chainer removed: where it lived, the name, and what became of it."""

    owner: str  # Chainer's path of the module or class ("chainer.Optimizer")
    name: str  # the attribute; "name=" for a keyword argument
    replacement: str  # a clause that follows "<owner>.<name>": what happened, what to write now
    error: type[Exception] = TypeError  # for keyword arguments: the type Chainer v7 raises


_V2 = "was removed in Chainer v2"
_LINKS = "is a link since Chainer v1.5 (removed from chainer.functions in v2): use chainer.links.{name}, "
_LINKS += "created inside a Chain's init_scope()"
_UPDATE_RULE = (
    "moved to the update rules in Chainer v2: override chainer.UpdateRule.{new} (param.update_rule)"
)
_PARAMETERIZED = (
    "was removed with v1's parameterized functions (Chainer v1.5): keep parameters in a chainer.Link "
    "(see chainer.links) and call the functions of chainer.functions on them"
)

REMOVED: tuple[Removed, ...] = (
    # -- the volatile flag and FunctionSet -----------------------------------------------------
    Removed(
        "chainer",
        "FunctionSet",
        f"{_V2}: subclass chainer.Chain and create the links inside `with self.init_scope():` "
        "(model.params() lists the parameters, model.copyparams(other) copies them)",
    ),
    Removed(
        "chainer",
        "Flag",
        f"(the volatile flag) {_V2}: use `with chainer.no_backprop_mode():` where it was ON and "
        "`with chainer.force_backprop_mode():` where it was OFF",
    ),
    Removed("chainer", "ON", f"{_V2}: compute inside `with chainer.no_backprop_mode():` instead"),
    Removed(
        "chainer", "OFF", f"{_V2}: recording is the default; inside no_backprop_mode use force_backprop_mode"
    ),
    Removed("chainer", "AUTO", f"{_V2}: drop it; recording follows chainer.config.enable_backprop"),
    Removed("chainer", "flag", f"(the volatile flags) {_V2}: use chainer.no_backprop_mode()"),
    Removed(
        "chainer.Variable",
        "volatile",
        f"{_V2}: read chainer.config.enable_backprop (False inside chainer.no_backprop_mode())",
    ),
    Removed(
        "chainer.Variable",
        "volatile=",
        f"{_V2}: create the variable and compute inside `with chainer.no_backprop_mode():` "
        "(volatile='on'), or `with chainer.force_backprop_mode():` (volatile='off')",
        ValueError,
    ),
    # -- v1's parameterized functions, now links ------------------------------------------------
    *(
        Removed("chainer.functions", name, _LINKS.format(name=name))
        for name in (
            "Linear",
            "Convolution2D",
            "EmbedID",
            "Bilinear",
            "BinaryHierarchicalSoftmax",
            "NegativeSampling",
            "PReLU",
            "BatchNormalization",
            "Inception",
            "InceptionBN",
        )
    ),
    Removed("chainer.functions", "Parameter", f"{_V2}: use chainer.Parameter, registered to a link"),
    Removed(
        "chainer.functions",
        "caffe",
        "moved to chainer.links.caffe in Chainer v1.5, where CaffeFunction is a Chain "
        "(fnet.compat does not provide the Caffe importer)",
    ),
    *(
        Removed("chainer.Function", name, _PARAMETERIZED)
        for name in ("parameter_names", "gradient_names", "parameters", "gradients", "to_gpu", "to_cpu")
    ),
    Removed(
        "chainer.Function",
        "type_check_enable",
        f"{_V2}: set chainer.config.type_check (`with chainer.using_config('type_check', False):`)",
    ),
    # -- optimizers -----------------------------------------------------------------------------
    Removed(
        "chainer.Optimizer",
        "zero_grads",
        f"{_V2}: call model.cleargrads() before loss.backward() "
        "(optimizer.update(lossfun, *args) clears them itself)",
    ),
    Removed("chainer.Optimizer", "init_state", _UPDATE_RULE.format(new="init_state(param)")),
    Removed("chainer.Optimizer", "init_state_cpu", _UPDATE_RULE.format(new="init_state(param)")),
    Removed("chainer.Optimizer", "init_state_gpu", _UPDATE_RULE.format(new="init_state(param)")),
    Removed("chainer.Optimizer", "update_one", _UPDATE_RULE.format(new="update_core(param)")),
    Removed("chainer.Optimizer", "update_one_cpu", _UPDATE_RULE.format(new="update_core_cpu(param)")),
    Removed("chainer.Optimizer", "update_one_gpu", _UPDATE_RULE.format(new="update_core_gpu(param)")),
    Removed(
        "chainer.Optimizer",
        "compute_grads_norm",
        f"{_V2}: compute it from the link's params(), or clip with chainer.optimizer_hooks.GradientClipping",
    ),
    Removed(
        "chainer.Optimizer",
        "clip_grads",
        f"{_V2}: optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(threshold))",
    ),
    Removed(
        "chainer.Optimizer",
        "weight_decay",
        f"{_V2}: optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(rate))",
    ),
    Removed("chainer.Optimizer", "accumulate_grads", f"{_V2}: call model.addgrads(other_model)"),
    Removed("chainer.Optimizer", "prepare", f"{_V2}: optimizer.setup(link) prepares everything"),
    # -- links ----------------------------------------------------------------------------------
    Removed(
        "chainer.Link",
        "add_uninitialized_param",
        f"{_V2}: inside init_scope(), assign chainer.Parameter(initializer) without a shape; "
        "param.initialize(shape) draws it once the shape is known",
    ),
    Removed(
        "chainer.Link",
        "has_uninitialized_params",
        f"{_V2}: test `param.array is None` over the link's params()",
    ),
    Removed("chainer.links.BatchNormalization", "use_cudnn", f"{_V2}: read chainer.config.use_cudnn"),
    Removed(
        "chainer.links.InceptionBN",
        "train",
        f"{_V2}: read chainer.config.train (`with chainer.using_config('train', False):` to test)",
    ),
    Removed(
        "chainer.links",
        "wscale=",
        f"{_V2}: pass initialW=chainer.initializers.LeCunNormal(scale=math.sqrt(wscale)), the "
        "initializer that wscale stood for in Chainer v1.20 (or any initializer of chainer.initializers)",
    ),
    Removed("chainer.links", "bias=", f"{_V2}: the initial bias is initial_bias= (e.g. initial_bias=0)"),
    Removed(
        "chainer.links",
        "use_cudnn=",
        f"{_V2}: set chainer.config.use_cudnn ('always', 'auto' or 'never') with chainer.using_config",
    ),
    Removed(
        "chainer.initializers",
        "init_weight",
        f"{_V2}: call the initializer on the array, or pass it to chainer.Parameter(initializer, shape)",
    ),
    # -- functions' arguments -------------------------------------------------------------------
    Removed(
        "chainer.functions",
        "use_cudnn=",
        f"{_V2}: set chainer.config.use_cudnn ('always', 'auto' or 'never') with chainer.using_config",
    ),
    Removed(
        "chainer.functions",
        "deterministic=",
        f"{_V2}: compute inside `with chainer.using_config('cudnn_deterministic', True):`",
        ValueError,
    ),
    Removed(
        "chainer.functions", "test=", f"{_V2}: compute inside `with chainer.using_config('train', False):`"
    ),
    Removed(
        "chainer.functions", "train=", f"{_V2}: compute inside `with chainer.using_config('train', ...):`"
    ),
    # -- chainer.cuda ---------------------------------------------------------------------------
    Removed(
        "chainer.cuda",
        "init",
        "was removed (CuPy needs no initialization): drop the call; choose the GPU with "
        "chainer.cuda.get_device_from_id(gpu_id).use()",
    ),
    *(
        Removed(
            "chainer.cuda",
            name,
            f"{_V2}: use cupy.{name} (or xp.{name}, xp = chainer.backend.get_array_module(x))",
        )
        for name in ("empty", "empty_like", "full", "full_like", "ones", "ones_like", "zeros", "zeros_like")
    ),
    Removed("chainer.cuda", "to_gpu_async", "was removed: use chainer.cuda.to_gpu(array, stream=stream)"),
    Removed("chainer.cuda", "to_cpu_async", "was removed: use chainer.cuda.to_cpu(array, stream=stream)"),
)

_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


def _in_from_import(frame) -> bool:
    """Whether ``frame`` runs ``from module import name``: there Python replaces an AttributeError
    by a bare ImportError (losing its message), but lets an ImportError through."""
    return frame is not None and frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM


def _hint(row: Removed) -> str:
    if row.name.endswith("="):
        return f"  hint: the argument {row.name} {row.replacement}"
    return f"  hint: {row.owner}.{row.name} {row.replacement}"


def _module_getattr(module, rows: dict, previous):
    """A module ``__getattr__`` that explains the names of ``rows`` (after ``previous``, if any)."""
    module_name = module.__name__

    def __getattr__(name: str):
        if previous is not None:
            try:
                return previous(name)
            except AttributeError:
                pass
        row = rows.get(name)
        if row is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}", name=name, obj=module)
        if _in_from_import(sys._getframe(1)):
            raise ImportError(
                f"cannot import name {name!r} from {module_name!r}\n{_hint(row)}", name=module_name
            )
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}\n{_hint(row)}")

    return __getattr__


class _MissingMember:
    """A class attribute standing for a member the class lacks: reading it raises the
    AttributeError that Chainer v7 raises, with a hint line in its message."""

    def __init__(self, name: str, hint: str):
        self.name, self.hint = name, hint

    def __get__(self, obj, cls=None):
        who = f"type object {cls.__name__!r}" if obj is None else f"{type(obj).__name__!r} object"
        raise AttributeError(f"{who} has no attribute {self.name!r}\n{self.hint}")


def _explain_members(cls: type, hints: dict[str, str]) -> None:
    """Give ``cls`` a ``_MissingMember`` for each name of ``hints`` it does not have."""
    for name, hint in hints.items():
        if not hasattr(cls, name):  # never hide what a class has
            setattr(cls, name, _MissingMember(name, hint))


def _resolve(path: str):
    """The fnet.compat module or class at Chainer's ``path`` (e.g. ``chainer.links.InceptionBN``)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(_target(".".join(parts[:cut])))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise LookupError(path)


_installed = False


def install() -> None:
    """Give the modules and classes of ``REMOVED`` their explanations (``fnet.compat`` calls it
    once all its modules are imported; later calls do nothing)."""
    global _installed
    if _installed:
        return
    _installed = True
    owners: dict[str, dict[str, Removed]] = {}
    for row in REMOVED:
        if not row.name.endswith("="):
            owners.setdefault(row.owner, {})[row.name] = row
    for path, rows in owners.items():
        owner = _resolve(path)
        if isinstance(owner, type):
            _explain_members(owner, {name: _hint(row) for name, row in rows.items()})
        else:
            owner.__getattr__ = _module_getattr(owner, rows, owner.__dict__.get("__getattr__"))
    foreign = attribute_hints("Variable")
    _explain_members(_resolve("chainer.Variable"), {name: f"  hint: {h}" for name, h in foreign.items()})


def keyword_error(owner: str, where: str, names) -> Exception | None:
    """The error for the first of the keyword arguments ``names`` that ``REMOVED`` lists for
    ``owner`` (``"chainer.links"``, ``"chainer.Variable"``...), given to ``where``; None if none."""
    for name in names:
        for row in REMOVED:
            if row.owner == owner and row.name == f"{name}=":
                return row.error(f"{where}() got an unexpected keyword argument {name!r}\n{_hint(row)}")
    return None
