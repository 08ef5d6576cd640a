"""Parameterized test classes: ``parameterize``, ``product``, ``product_dict``.

``@parameterize({'x': 1}, {'x': 2})`` on ``class TestFoo`` makes ``TestFoo_param_0_{x=1}`` and
``TestFoo_param_1_{x=2}`` in TestFoo's module, each with the parameters as class attributes;
the names are Chainer's, so test ids stay the same. It works with ``unittest.TestCase``
classes and with plain pytest classes, and decorators stack.
"""

from __future__ import annotations

import functools
import itertools
import types
import unittest

from . import _bundle, _util

__all__ = ["parameterize", "product", "product_dict", "parameterize_pytest", "from_pytest_parameterize"]

_VALUE_MAXLEN = 100  # a longer value is shortened (its middle replaced by '...') in a class name
_PARAMS_MAXLEN = 5000  # and so is the whole parameter part of the name


def _value_text(value) -> str:
    name = getattr(value, "__name__", None)
    if isinstance(name, str):  # classes, functions, modules go by name
        return name
    return repr(value)


def _shorten(text: str, maxlen: int) -> str:
    if len(text) <= maxlen:
        return text
    head = (maxlen - 3) // 2
    tail = maxlen - 3 - head
    return f"{text[:head]}...{text[-tail:]}"


def _class_name(base_name: str, index: int, param: dict) -> str:
    with _util.numpy1_printing():
        items = [f"{k}={_shorten(_value_text(v), _VALUE_MAXLEN)}" for k, v in sorted(param.items())]
    return f"{base_name}_param_{index}_{{{_shorten(', '.join(items), _PARAMS_MAXLEN)}}}"


def _as_member(value):
    """A parameter as a class attribute: a plain function stays a function (not a method)."""
    if isinstance(value, types.FunctionType):
        return staticmethod(value)
    return value


def _failure_report(base: type, method, param: dict) -> str:
    lines = [
        "Parameterized test failed.",
        "",
        f"Base test method: {base.__name__}.{method.__name__}",
        "Test parameters:",
    ]
    with _util.numpy1_printing():
        lines += [f"  {k}: {v}" for k, v in sorted(param.items())]
    return "\n".join(lines) + "\n"


def _generate(base: type, params):
    for index, param in enumerate(params):
        members = {k: _as_member(v) for k, v in sorted(param.items())}

        def __str__(self, param=param):
            with _util.numpy1_printing():
                return f"{base.__str__(self)}  parameter: {param}"

        members["__str__"] = __str__

        def method_for(method, param=param):
            @functools.wraps(method)
            def run(self, *args, **kwargs):
                try:
                    return method(self, *args, **kwargs)
                except unittest.SkipTest:
                    raise
                except Exception as error:
                    error_type = type(error)
                    if error_type.__name__ == "OutOfMemoryError":  # CuPy's: report it as Python's
                        error_type = MemoryError
                    _util.raise_wrapped(error_type, _failure_report(base, method, param), error)

            return run

        yield _class_name(base.__name__, index, param), members, method_for


def parameterize(*params: dict):
    """A class decorator: one test class per dict of ``params``, with its items as class
    attributes (named ``<Class>_param_<i>_{k=v, ...}``, as Chainer names them).

    >>> import unittest
    >>> @parameterize({'x': 1}, {'x': 2})
    ... class TestDouble(unittest.TestCase):
    ...     def test_double(self):
    ...         self.assertEqual(2 * self.x, self.x + self.x)
    """
    for param in params:
        if not isinstance(param, dict):
            raise TypeError(
                f"testing.parameterize: each parameter set must be a dict, got {type(param).__name__}\n"
                "  hint: parameterize({'x': 1}, {'x': 2}), or parameterize(*product({'x': [1, 2]}))"
            )
    return _bundle.make_decorator(lambda base: _generate(base, params))


def _to_dicts(names: str, values, where: str) -> list[dict]:
    """pytest's ``'a,b', [(1, 2), (3, 4)]`` as ``[{'a': 1, 'b': 2}, {'a': 3, 'b': 4}]``."""
    if not isinstance(names, str):
        raise TypeError(f"{where}: parameter names must be a string like 'a' or 'a,b', got {names!r}")
    if not isinstance(values, (tuple, list)):
        raise TypeError(
            f"{where}: the values of {names!r} must be a list or a tuple, got {type(values).__name__}"
        )
    keys = names.split(",")
    if len(keys) == 1:
        return [{keys[0]: v} for v in values]
    dicts = []
    for row in values:
        if not isinstance(row, (tuple, list)) or len(row) != len(keys):
            raise ValueError(
                f"{where}: each value of {names!r} must be a tuple of {len(keys)} items, got {row!r}"
            )
        dicts.append(dict(zip(keys, row)))
    return dicts


def from_pytest_parameterize(names: str, values) -> list[dict]:
    """The parameter dicts of pytest-style ``names, values`` (``'a,b', [(1, 2), (3, 4)]``)."""
    return _to_dicts(names, values, "testing.from_pytest_parameterize")


def parameterize_pytest(names: str, values):
    """``parameterize`` with pytest's ``parametrize`` arguments (``'a,b', [(1, 2), (3, 4)]``)."""
    return parameterize(*from_pytest_parameterize(names, values))


def product(parameter) -> list[dict]:
    """Every combination of parameter values, as a list of dicts.

    ``parameter`` is a dict of lists (keys sorted; a key ``'a,b'`` takes tuples of two values),
    or a list of lists of dicts (see ``product_dict``).

    >>> product({'a': [1, 2], 'b': ['x']})
    [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
    """
    if isinstance(parameter, dict):
        return product_dict(*[_to_dicts(k, v, "testing.product") for k, v in sorted(parameter.items())])
    if isinstance(parameter, list):
        if not all(
            isinstance(group, list) and all(isinstance(d, dict) for d in group) for group in parameter
        ):
            raise TypeError(
                "testing.product: parameter must be a dict of lists or a list of lists of dicts\n"
                "  hint: product([[{'a': 1}, {'a': 2}], [{'b': 3}]])"
            )
        return product_dict(*parameter)
    raise TypeError(f"testing.product: parameter must be either dict or list, got {type(parameter).__name__}")


def product_dict(*parameters: list) -> list[dict]:
    """Every way of taking one dict from each list, merged into one dict.

    >>> product_dict([{'a': 1}, {'a': 2}], [{'b': 3, 'c': 4}])
    [{'a': 1, 'b': 3, 'c': 4}, {'a': 2, 'b': 3, 'c': 4}]
    """
    return [{k: v for d in choice for k, v in d.items()} for choice in itertools.product(*parameters)]


# The unpatched product_dict under Chainer's name: Chainer's test conftest swaps product_dict for
# a pairwise one while collecting, and restores (and its tests compare with) this one.
_product_dict_orig = product_dict
