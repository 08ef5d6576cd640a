"""Check the direction of fnet's imports: layers import only the layers below them, and no circles.

    python tools/import_rules.py [ROOT]      # ROOT: a checkout (default: this one)

Every ``.py`` file under ``ROOT/fnet`` is read as a syntax tree (nothing is imported). An import
of an fnet module is an arrow, wherever it stands: at the top of a module, inside a function (a
function-local import hides an arrow from a reader, not from this check), as a literal
``importlib.import_module("fnet....")``, or as a look-up ``sys.modules["fnet...."]`` /
``sys.modules.get("fnet....")`` (a module used only when something else loaded it is still
a dependency). Three rules:

1. **Layers.** Each module belongs to the layer of its package (``LAYERS``); it may import its
   own package and the layers below, never a layer above or a package beside it on its level.
2. **No circles.** No files import each other in a loop (counting every arrow above).
3. **No hidden arrows.** A function-local import of an fnet module is allowed only where it is
   listed in ``DEFERRED`` with the reason it must wait (an optional dependency behind it).

The exit status is 1 when a rule is broken; each broken rule is printed with the file, line and
the imported module. ``tests/test_import_rules.py`` runs the check on the repository.
"""

from __future__ import annotations

import ast
import pathlib
import sys

__all__ = ["LAYERS", "DEFERRED", "Arrow", "read_arrows", "layer_of", "check", "main"]

# Each layer, lowest first: the packages (or modules) of ``fnet`` on it. A module imports only
# its own package and lower layers. Packages on one level do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("fnet.errors", "fnet._foreign"),
    ("fnet.tree",),
    ("fnet.backend",),
    ("fnet.recording",),
    ("fnet.random",),
    ("fnet.autodiff",),
    ("fnet.transforms",),
    ("fnet.ops", "fnet.deferred"),
    ("fnet.functions", "fnet.initializers", "fnet.testing", "fnet.derivatives"),
    ("fnet.nn", "fnet.optim", "fnet.distributions"),
    ("fnet.serialization",),
    ("fnet.io", "fnet.data"),
    ("fnet.training", "fnet.onnx", "fnet.distributed"),
    ("fnet",),  # the package's face: fnet/__init__.py gathers the layers below
    ("fnet.compat",),
)

# Function-local imports of fnet modules that must stay deferred: (importing module, imported
# module) -> why. Keep this short; an entry needs an optional dependency behind it.
DEFERRED: dict[tuple[str, str], str] = {
    ("fnet.compat.links.vision._layers", "fnet.compat.links.caffe.caffe_function"): (
        "CaffeFunction needs protobuf (the caffe extra): the vision links import without it and "
        "read a caffemodel only when asked to convert one, as Chainer's do"
    ),
}


class Arrow:
    """One import: ``source`` module imports ``target`` module at ``line``; ``local`` when the
    import stands inside a function."""

    __slots__ = ("source", "target", "line", "local")

    def __init__(self, source: str, target: str, line: int, local: bool):
        self.source, self.target, self.line, self.local = source, target, line, local

    def __repr__(self):
        where = "function-local " if self.local else ""
        return f"{self.source}:{self.line} {where}imports {self.target}"


def _modules(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """Module name -> file, for every file of the fnet package under ``root``."""
    found = {}
    for path in sorted((root / "fnet").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _known(name: str, modules: dict) -> str | None:
    """The longest prefix of ``name`` that is a module of ``modules``."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def read_arrows(root: pathlib.Path | str) -> list[Arrow]:
    """Every import of an fnet module by an fnet module under ``root``."""
    root = pathlib.Path(root)
    modules = _modules(root)
    arrows = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        _Reader(name, package, modules, arrows).visit(ast.parse(path.read_text(), str(path)))
    return arrows


class _Reader(ast.NodeVisitor):
    """Collects the arrows of one module, noting whether each stands inside a function."""

    def __init__(self, name, package, modules, arrows):
        self.name, self.package, self.modules, self.arrows = name, package, modules, arrows
        self.depth = 0

    def _add(self, target: str, node) -> None:
        known = _known(target, self.modules)
        if known is not None and known.split(".")[0] == "fnet":
            self.arrows.append(Arrow(self.name, known, node.lineno, self.depth > 0))

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node):
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node):
        if node.level:
            base = self.package.split(".")[: len(self.package.split(".")) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        for alias in node.names:
            full = f"{module}.{alias.name}"
            self._add(full if full in self.modules else module, node)

    def _add_literal(self, node, literal) -> None:
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
            if literal.value.startswith("fnet"):
                self._add(literal.value, node)

    def visit_Call(self, node):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if node.args and (
            called == "import_module" or (called == "get" and _is_sys_modules(getattr(func, "value", None)))
        ):
            self._add_literal(node, node.args[0])
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if _is_sys_modules(node.value):
            self._add_literal(node, node.slice)
        self.generic_visit(node)


def _is_sys_modules(node) -> bool:
    """Whether ``node`` is the expression ``sys.modules``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def layer_of(module: str) -> tuple[int, str]:
    """``(level, package)`` of ``module``: the entry of ``LAYERS`` that holds it most closely."""
    best = None
    for level, packages in enumerate(LAYERS):
        for package in packages:
            # the face ``fnet`` holds only fnet/__init__.py, not the packages under it
            if module == package or (package != "fnet" and module.startswith(package + ".")):
                if best is None or len(package) > len(best[1]):
                    best = (level, package)
    if best is None:
        raise KeyError(f"import_rules: module {module!r} is on no layer; add its package to LAYERS")
    return best


def _circles(arrows: list[Arrow]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan's algorithm, iterative)."""
    graph: dict[str, set] = {}
    for a in arrows:
        if a.source != a.target:
            graph.setdefault(a.source, set()).add(a.target)
            graph.setdefault(a.target, set())
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))
    return sorted(found)


def check(root: pathlib.Path | str) -> list[str]:
    """Every broken rule under ``root``, one line each (empty: the imports are in order)."""
    arrows = read_arrows(root)
    broken = []
    for a in arrows:
        source_level, source_package = layer_of(a.source)
        target_level, target_package = layer_of(a.target)
        if target_level > source_level:
            broken.append(f"back-arrow: {a} (layer {target_package} stands above {source_package})")
        elif target_level == source_level and target_package != source_package:
            broken.append(f"sideways: {a} ({target_package} and {source_package} share a level)")
        if a.local and (a.source, a.target) not in DEFERRED:
            broken.append(f"hidden arrow: {a} (move it to the top of the module, or list why in DEFERRED)")
    for members in _circles(arrows):
        broken.append(f"circle of {len(members)} modules: {', '.join(members)}")
    return broken


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = pathlib.Path(argv[0]) if argv else pathlib.Path(__file__).resolve().parents[1]
    broken = check(root)
    for line in broken:
        print(line)
    print(f"{len(broken)} broken import rule(s) under {root / 'fnet'}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
