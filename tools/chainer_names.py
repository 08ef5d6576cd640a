"""List what of Chainer's module tree fnet.compat lacks: every module, and every public name in it.

    python tools/chainer_names.py PATH/TO/chainer-7.8.1/chainer [--prefix chainer.links] [--json OUT]

PATH is the ``chainer`` package folder of a Chainer 7.8.1 checkout; nothing of it is imported: each
module is read as a syntax tree. A module's public names are what it defines at top level (classes,
functions, assignments, ``__all__``) and what it re-exports (any ``from ... import`` in a package's
``__init__.py``; elsewhere the imports that Chainer marks ``# NOQA``, its sign of a re-export). The
semi-public names (``_x``) that Chainer's own ``tests/`` and ``examples/`` (beside PATH, when there)
import or read are added. Each module is then imported as ``chainer.<path>`` through
``fnet.compat.install_alias()``, and each name looked up in it.

What fnet leaves out on purpose is listed, with the reason, in ``chainer_names_left_out.txt`` beside
this file (``fnmatch`` patterns over ``module`` or ``module:name``); those are counted apart. The exit
status is 1 when something not left out is missing.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import importlib
import json
import pathlib
import re
import sys

_HERE = pathlib.Path(__file__).resolve().parent
LEFT_OUT = _HERE / "chainer_names_left_out.txt"


def module_names(package: pathlib.Path) -> dict[str, pathlib.Path]:
    """Chainer's module name -> its file, for every ``.py`` file under ``package``."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _top_level(body):
    """The statements at a module's top level, looking into ``if``/``try`` blocks."""
    for node in body:
        if isinstance(node, ast.If):
            if "TYPE_CHECKING" in ast.unparse(node.test):
                continue  # names for type checkers only
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body)
            for handler in node.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(node.orelse)
        else:
            yield node


def defined_names(path: pathlib.Path) -> tuple[set[str], set[str]]:
    """(public names, every name) that the module at ``path`` binds at top level."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    is_package = path.name == "__init__.py"
    public, every = set(), set()
    for node in _top_level(ast.parse(source).body):
        names: list[str] = []
        exported = True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if "__all__" in names and isinstance(node.value, (ast.List, ast.Tuple)):
                public.update(e.value for e in node.value.elts if isinstance(e, ast.Constant))
        elif isinstance(node, ast.ImportFrom):
            names = [a.asname or a.name for a in node.names if a.name != "*"]
            marked = "noqa" in lines[node.end_lineno - 1].lower()
            exported = (is_package or marked) and node.module != "__future__"
        every.update(names)
        if exported:
            public.update(n for n in names if not n.startswith("_"))
    return public, every


_FROM = re.compile(r"from\s+(chainer(?:\.\w+)*)\s+import\s+\(?([\w\s,]+)")
_ATTRIBUTE = re.compile(r"\b(chainer(?:\.\w+)*)\.(_\w+)")


def semi_public(folders, modules: dict[str, set[str]]) -> dict[str, set[str]]:
    """The ``_x`` names of Chainer's modules that the code under ``folders`` imports or reads."""
    used: dict[str, set[str]] = {}
    for folder in folders:
        for path in folder.rglob("*.py"):
            text = path.read_text(encoding="utf-8", errors="replace")
            pairs = [(m, n.strip()) for m, names in _FROM.findall(text) for n in names.split(",")]
            pairs += _ATTRIBUTE.findall(text)
            for module, name in pairs:
                if name.startswith("_") and not name.startswith("__") and name in modules.get(module, ()):
                    used.setdefault(module, set()).add(name)
    return used


def read_left_out(path: pathlib.Path = LEFT_OUT) -> list[tuple[str, str]]:
    """The (pattern, reason) rows of the left-out list; ``#`` starts a comment line."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            pattern, _, reason = line.partition(" ")
            rows.append((pattern, reason.strip()))
    return rows


def left_out_reason(key: str, rows) -> str | None:
    """The reason ``key`` (``module`` or ``module:name``) is left out, or None."""
    for pattern, reason in rows:
        if fnmatch.fnmatchcase(key, pattern):
            return reason
    return None


def scan(package: pathlib.Path, prefix: str = "chainer", left_out: pathlib.Path = LEFT_OUT) -> dict:
    """Compare Chainer's tree under ``package`` with fnet.compat's; a report as plain data."""
    import fnet.compat

    fnet.compat.install_alias()
    files = {m: p for m, p in module_names(package).items() if m == prefix or m.startswith(prefix + ".")}
    every_names = {}
    public = {}
    for module, path in files.items():
        public[module], every_names[module] = defined_names(path)
    beside = [package.parent / "tests", package.parent / "examples"]
    for module, names in semi_public([f for f in beside if f.is_dir()], every_names).items():
        if module in public:
            public[module] |= names
    rows = read_left_out(left_out)
    report = {
        "modules": {"present": 0, "missing": [], "left_out": 0},
        "names": {"present": 0, "missing": [], "left_out": 0},
    }
    for module in sorted(files):
        if left_out_reason(module, rows):
            report["modules"]["left_out"] += 1
            report["names"]["left_out"] += len(public[module])
            continue
        try:
            found = importlib.import_module(module)
        except Exception as error:  # noqa: BLE001  (any failure to import is a missing module)
            report["modules"]["missing"].append(f"{module} ({type(error).__name__})")
            found = None
        else:
            report["modules"]["present"] += 1
        for name in sorted(public[module]):
            key = f"{module}:{name}"
            if left_out_reason(key, rows):
                report["names"]["left_out"] += 1
            elif found is not None and hasattr(found, name):
                report["names"]["present"] += 1
            else:
                report["names"]["missing"].append(key)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", type=pathlib.Path, help="the chainer/ folder of a Chainer 7.8.1 checkout")
    parser.add_argument("--prefix", default="chainer", help="only modules under this one (chainer.links...)")
    parser.add_argument("--json", type=pathlib.Path, help="also write the report here")
    args = parser.parse_args(argv)
    if not (args.package / "__init__.py").is_file():
        parser.error(f"{args.package} is not a package folder; pass the chainer/ folder of the checkout")
    report = scan(args.package, args.prefix)
    for kind in ("modules", "names"):
        present, missing, left_out = (report[kind][k] for k in ("present", "missing", "left_out"))
        print(f"{kind}: {present} present, {len(missing)} missing, {left_out} left out")
    for kind in ("modules", "names"):
        for item in report[kind]["missing"]:
            print(f"missing {kind[:-1]}: {item}")
    if args.json:
        temporary = args.json.with_name(args.json.name + ".tmp")
        temporary.write_text(json.dumps(report, indent=1), encoding="utf-8")
        temporary.replace(args.json)
    return 1 if report["modules"]["missing"] or report["names"]["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
