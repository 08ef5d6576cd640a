"""The deep imports that Chainer programs and libraries do most, resolved inside fnet.compat:
each imports a module by its Chainer path and reads one name Chainer code reads from it."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from .test_alias import alias  # noqa: F401  (the fixture that installs the ``chainer`` alias)

DEEP_IMPORTS = [
    ("chainer.function", "no_backprop_mode", "chainer.no_backprop_mode"),
    ("chainer.utils.argument", "parse_kwargs", None),
    ("chainer.dataset.dataset_mixin", "DatasetMixin", "chainer.dataset.DatasetMixin"),
    ("chainer.dataset.convert", "concat_examples", "chainer.dataset.concat_examples"),
    ("chainer.optimizers.adam", "Adam", "chainer.optimizers.Adam"),
    ("chainer.links.connection.linear", "Linear", "chainer.links.Linear"),
    ("chainer.links.connection.convolution_2d", "Convolution2D", "chainer.links.Convolution2D"),
    (
        "chainer.links.normalization.batch_normalization",
        "BatchNormalization",
        "chainer.links.BatchNormalization",
    ),
    ("chainer.training.extensions.log_report", "LogReport", "chainer.training.extensions.LogReport"),
    ("chainer.training.updaters.standard_updater", "StandardUpdater", "chainer.training.StandardUpdater"),
    ("chainer.iterators.serial_iterator", "SerialIterator", "chainer.iterators.SerialIterator"),
    ("chainer.datasets.tuple_dataset", "TupleDataset", "chainer.datasets.TupleDataset"),
    ("chainer.serializers.npz", "load_npz", "chainer.serializers.load_npz"),
    ("chainer.initializers.normal", "HeNormal", "chainer.initializers.HeNormal"),
    (
        "chainer.link_hooks.spectral_normalization",
        "SpectralNormalization",
        "chainer.link_hooks.SpectralNormalization",
    ),
]


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("module", "name", "same_as"), DEEP_IMPORTS, ids=[row[0] for row in DEEP_IMPORTS])
def test_a_deep_chainer_import_resolves(alias, module, name, same_as):  # noqa: F811
    found = getattr(importlib.import_module(module), name)
    assert callable(found)
    if same_as is not None:
        assert found is _resolve(same_as)  # one object under both paths, not a second copy


def test_declared_modules_are_attributes_after_import_chainer(alias):  # noqa: F811
    import chainer

    assert chainer.function.no_backprop_mode is chainer.no_backprop_mode
    assert chainer.basic_math is chainer.functions.math.basic_math  # Chainer's own shortcut
    assert chainer.links.connection.linear.Linear is chainer.links.Linear
    assert chainer.optimizers.adam.AdamRule is chainer.optimizers.AdamRule
    assert (
        chainer.training.triggers.interval_trigger.IntervalTrigger
        is chainer.training.triggers.IntervalTrigger
    )


def test_semi_private_modules_chainer_tests_import(alias):  # noqa: F811
    from chainer import _runtime_info, initializer
    from chainer.utils import _collections

    assert chainer_version() in str(_runtime_info._get_runtime_info())
    assert initializer.Initializer is importlib.import_module("chainer").Initializer
    assert _collections.OrderedDict().__class__.__name__ == "OrderedDict"


def chainer_version() -> str:
    return importlib.import_module("chainer").__version__


def test_every_declared_module_imports_with_its_names():
    from fnet.compat import _modules, _tree

    declared = _modules.declared("fnet.compat")
    for package, rows in _tree.TABLES.items():
        for module, names in rows.items():
            full = ".".join(filter(None, ["fnet.compat", package, module]))
            assert full in declared
            made = importlib.import_module(full)
            for entry in names.split():
                assert hasattr(made, entry.rpartition(":")[2]), (full, entry)


_SHADOWED = """
import importlib, types
from fnet.compat import _tree
for package, rows in _tree.TABLES.items():
    for module in rows:
        above, _, leaf = ".".join(filter(None, ["fnet.compat", package, module])).rpartition(".")
        present = vars(importlib.import_module(above)).get(leaf)
        if present is not None and not isinstance(present, types.ModuleType):
            print(above, leaf)
"""


def test_no_declared_module_shadows_a_name_of_the_module_above_it():
    # importing a submodule makes it an attribute of its parent: a declared module must not take
    # the place of a name the parent has (utils.experimental, the function), as seen before any
    # declared module is imported
    found = subprocess.run([sys.executable, "-c", _SHADOWED], capture_output=True, text=True, check=True)
    assert found.stdout == ""


def test_memory_layouts_is_an_attribute_right_after_import_chainer():
    # Chainer's ImageNet example (resnet50.py) reads chainer.memory_layouts with only `import chainer`;
    # a fresh interpreter, so that no earlier test has imported the module
    script = "import fnet.compat as chainer; print(chainer.memory_layouts.CUDNN_CHANNEL_LAST_X)"
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "CUDNN_CHANNEL_LAST_X"
