"""The distribution: its name, version, files and extras, and what ``import fnet`` does."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

import fnet

from ._mpi import mpiexec

DIST = "fnet-chainer"  # PyPI's "fnet" is an unrelated project: the import name stays fnet
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_installed_distribution_is_this_package_with_one_version():
    assert importlib.metadata.version(DIST) == fnet.__version__
    assert "fnet" in (importlib.metadata.distribution(DIST).read_text("top_level.txt") or "fnet").split()


def test_import_fnet_leaves_the_heavy_subpackages_until_they_are_used():
    probe = (
        "import sys, fnet\n"
        "print(sorted(m for m in ('fnet.compat', 'fnet.data', 'fnet.training') if m in sys.modules))\n"
        "print(fnet.data.__name__, fnet.training.__name__, fnet.compat.__name__)\n"
        "print('compat' in dir(fnet))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == ["[]", "fnet.data fnet.training fnet.compat", "True"]
    with pytest.raises(AttributeError, match="has no attribute 'not_a_module'"):
        fnet.not_a_module  # noqa: B018


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    # built from a copy of what the wheel is made of, so that the build leaves nothing in the checkout
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(REPO, name), source)
    shutil.copytree(os.path.join(REPO, "fnet"), source / "fnet", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", out, source],
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_ships_its_license_and_type_marker(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "fnet/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names[-8:]
    assert wheel.name.startswith(f"fnet_chainer-{fnet.__version__}-py3-none-any")


@pytest.mark.slow
def test_the_wheel_metadata_names_pythons_extras_and_the_mpi_runtime(wheel):
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        text = z.read(meta).decode()
    assert f"Name: {DIST}\n" in text and f"Version: {fnet.__version__}\n" in text
    assert "License-Expression: MIT" in text
    for version in ("3.11", "3.12", "3.13"):
        assert f"Classifier: Programming Language :: Python :: {version}\n" in text
    assert "Classifier: Operating System :: OS Independent\n" in text
    requires = [line for line in text.splitlines() if line.startswith("Requires-Dist:")]
    assert not any("toolz" in r and "extra" not in r for r in requires)  # not needed at run time
    assert any(r.startswith("Requires-Dist: mpich") and 'extra == "mpi"' in r for r in requires)


@pytest.mark.slow
def test_pip_resolves_the_distribution_name_to_this_wheel(wheel):
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps", "--no-index"]
        + ["--find-links", str(wheel.parent), DIST],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"Would install {DIST}-{fnet.__version__}" in out, out


@pytest.mark.mpi
def test_the_mpi_extra_brings_a_working_mpi():
    # only rank 0 prints: the ranks' standard outputs would interleave
    probe = (
        "from mpi4py import MPI; c = MPI.COMM_WORLD; total = c.allreduce(c.rank + 1)\n"
        "if c.rank == 0: print(c.size, total, c.gather(c.rank), flush=True)\n"
        "else: c.gather(c.rank)"
    )
    out = subprocess.run(
        [mpiexec(), "-n", "2", sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "2 3 [0, 1]\n", out.stdout


def test_import_fnet_changes_no_process_wide_setting():
    probe = (
        "import os, signal, sys, warnings, numpy\n"
        "def settings():\n"
        "    return (numpy.geterr(), numpy.get_printoptions(), list(warnings.filters),\n"
        "            sys.getrecursionlimit(), dict(os.environ), list(sys.path),\n"
        "            [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD)],\n"
        "            sys.excepthook, len(sys.meta_path))\n"
        "before = settings()\n"
        "import fnet, fnet.compat, fnet.data, fnet.training\n"
        "after = settings()\n"
        "print([i for i, (a, b) in enumerate(zip(before, after)) if a != b])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("FNET_")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout
