"""The package's structure: a light import, no private names across modules, imports only downward."""

import ast
import os
import subprocess
import sys

import pytest

import mtbn

PACKAGE = os.path.dirname(mtbn.__file__)


def _modules():
    """(name, tree) of every file of the package; a subpackage's files carry the subpackage's name."""
    for folder, _, files in sorted(os.walk(PACKAGE)):
        rel = os.path.relpath(folder, PACKAGE)
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as fh:
                    yield (name[:-3] if rel == "." else rel.split(os.sep)[0]), ast.parse(fh.read(), path)


def _imports(tree):
    """(module, names) of every ``from mtbn.X import ...`` anywhere in the file (lazy imports included)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mtbn."):
            yield node.module.split(".")[1], [a.name for a in node.names]


def test_import_mtbn_loads_no_heavy_dependency():
    code = ("import sys, mtbn; print(sorted({m.split('.')[0] for m in sys.modules} "
            "& {'pgmpy', 'pandas', 'matplotlib'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_module_imports_another_modules_private_names():
    offenders = [f"{name} imports {other}.{n}" for name, tree in _modules() for other, names in _imports(tree)
                 for n in names if n.startswith("_") and not n.startswith("__") and other != name]
    assert offenders == []


# The layers, lowest first (docs/design.md). A module may import from its own layer or lower ones only.
LAYERS = [
    {"_version", "exceptions", "messages", "_validation", "engine", "progress"},
    {"graph", "data"},
    {"score", "priors", "networks"},
    {"search"},
    {"joint", "metrics", "stats"},
    {"learn", "selection"},
    {"bootstrap"},
    {"estimators"},
    {"benchmarks"},
    {"relatedness", "evaluate"},
    {"cli", "report", "__main__", "__init__"},
]


def test_modules_import_only_downward():
    level = {m: i for i, layer in enumerate(LAYERS) for m in layer}
    names = {name for name, _ in _modules()}
    assert names <= set(level), f"modules missing from LAYERS: {sorted(names - set(level))}"
    upward = [f"{name} (layer {level[name]}) imports {other} (layer {level[other]})"
              for name, tree in _modules() for other, _ in _imports(tree)
              if other in level and level[other] > level[name]]
    assert upward == []


def test_every_subpackage_is_installed():
    """A subpackage missing from pyproject.toml's package list would be left out of a wheel (not of the source tree)."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    with open(os.path.join(os.path.dirname(PACKAGE), "pyproject.toml"), "rb") as fh:
        listed = set(tomllib.load(fh)["tool"]["setuptools"]["packages"])
    folders = {"mtbn." + os.path.relpath(folder, PACKAGE).replace(os.sep, ".")
               for folder, _, files in os.walk(PACKAGE) if folder != PACKAGE and "__init__.py" in files}
    assert folders <= listed, sorted(folders - listed)
