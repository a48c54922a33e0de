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
    {"joint", "ges", "metrics", "stats"},
    {"learn", "heldout"},
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


# --- docs/design.md's import facts, checked against the contracts and the code (issue 33) ---

DESIGN = os.path.join(os.path.dirname(PACKAGE), "docs", "design.md")


def _design_text():
    with open(DESIGN, encoding="utf-8") as fh:
        return fh.read()


def _contract_layers():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    with open(os.path.join(os.path.dirname(PACKAGE), "pyproject.toml"), "rb") as fh:
        contracts = tomllib.load(fh)["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    return [{m.strip() for m in layer.split(":")} for layer in layers]


def test_the_layers_here_are_the_import_linter_contract():
    top_first = [set(layer) - {"__init__"} for layer in reversed(LAYERS)]
    assert top_first == _contract_layers()


def test_the_design_diagram_lists_the_contract_layers_top_first():
    block = _design_text().split("```\n", 2)[1]
    rows = [line.split("  ")[0] for line in block.splitlines() if line and not line.startswith(" ")]
    diagram = [{name.strip().rstrip("/") for name in row.split("|")} for row in rows]
    assert diagram == _contract_layers()


def _importers(library):
    found = set()
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            module = "mtbn." + os.path.relpath(path, PACKAGE)[:-3].replace(os.sep, ".")
            module = module[:-len(".__init__")] if module.endswith(".__init__") else module
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
                if any(n == library or n.startswith(library + ".") for n in names):
                    found.add(module)
    return found


@pytest.mark.parametrize("library", ["pandas", "pgmpy", "matplotlib"])
def test_the_design_lists_exactly_the_modules_that_import_each_heavy_library(library):
    import re

    text = _design_text()
    item = re.search(rf"^- {library}: (.*?)(?=^- |^\s*$)", text, flags=re.M | re.S)
    assert item, f"docs/design.md has no '- {library}:' item"
    assert set(re.findall(r"`(mtbn[\w.]*)`", item.group(1))) == _importers(library)
