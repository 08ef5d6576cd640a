"""fnet.compat reaches the tape through autodiff's public bridge only (read from the source, not run).

No compat module imports a private name of ``fnet.autodiff``, subclasses ``Record``, writes the
fields the tape owns (a primitive's ``vjps``, a record's ``parents``...), or loads an fnet module
with ``importlib`` by a literal name (what hides an import from readers and from the import rules).
"""

from __future__ import annotations

import ast
import pathlib

import fnet.compat

COMPAT = pathlib.Path(fnet.compat.__file__).parent
# fields of Primitive, Record and Tracer that only autodiff writes (``Record.note`` is the one a
# layer above may set; ``Record.cut``/``relink`` change the parents)
TAPE_FIELDS = {"vjps", "parents", "record", "seq", "ans", "primitive", "level"}


def _module_of(path: pathlib.Path) -> list[str]:
    parts = list(path.relative_to(COMPAT.parent.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _absolute(node: ast.ImportFrom, path: pathlib.Path) -> str:
    if not node.level:
        return node.module or ""
    package = _module_of(path)
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def offences(path: pathlib.Path, source: str) -> list[str]:
    """What in ``source`` (the module at ``path``) goes around the bridge, one line each."""
    found = []
    tree = ast.parse(source)
    autodiff_names = set()
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node, path)
            if module == "fnet.autodiff" or module.startswith("fnet.autodiff."):
                for alias in node.names:
                    autodiff_names.add(alias.asname or alias.name)
                    if alias.name.startswith("_"):
                        found.append(f"{where} imports the private {module}.{alias.name}")
            if module == "fnet" and any(a.name == "autodiff" for a in node.names):
                autodiff_names.add("autodiff")
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id == "Record":
                    found.append(f"{where} subclasses Record")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if (
                        isinstance(t, ast.Attribute)
                        and t.attr in TAPE_FIELDS
                        and isinstance(t.ctx, ast.Store)
                    ):
                        found.append(f"{where} writes .{t.attr}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "import_module" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and str(first.value).startswith("fnet"):
                    found.append(f"{where} loads {first.value} with importlib")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in autodiff_names
            and node.attr.startswith("_")
        ):
            found.append(f"{path.name}:{node.lineno} uses the private {node.value.id}.{node.attr}")
    return found


def test_compat_uses_only_the_public_bridge():
    found = []
    for path in sorted(COMPAT.rglob("*.py")):
        found += offences(path, path.read_text())
    assert found == []


def test_the_check_sees_each_way_around_the_bridge():
    path = COMPAT / "variable.py"
    source = """
import importlib
from ..autodiff.tracer import Record, _no_grad
from ..autodiff import tracer as _tracer
_engine = importlib.import_module("fnet.autodiff.backward")
class LeafRecord(Record):
    pass
def f(prim, record, tracer):
    prim.vjps = None
    record.parents = ()
    frozen = _tracer._frozen_default
"""
    found = offences(path, source)
    assert len(found) == 6, found
    assert any("private fnet.autodiff.tracer._no_grad" in f for f in found)
    assert any("subclasses Record" in f for f in found)
    assert any("writes .vjps" in f for f in found) and any("writes .parents" in f for f in found)
    assert any("loads fnet.autodiff.backward" in f for f in found)
    assert any("private _tracer._frozen_default" in f for f in found)
