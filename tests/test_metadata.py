"""What the package metadata claims holds (issue 34, item 6): one version everywhere, Python versions as tested."""

import os
import re

import mtbn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as fh:
        return fh.read()


def test_citation_changelog_and_package_give_one_version():
    version = mtbn.__version__
    assert re.search(rf"^version: {re.escape(version)}$", _read("CITATION.cff"), re.M)
    assert re.search(rf"^## {re.escape(version)}\b", _read("CHANGELOG.md"), re.M)


def test_python_classifiers_start_at_requires_python():
    text = _read("pyproject.toml")
    floor = re.search(r'requires-python = ">=3\.(\d+)"', text).group(1)
    minors = sorted(int(m) for m in re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', text))
    assert minors and minors[0] == int(floor)
    assert minors == list(range(minors[0], minors[-1] + 1))  # no gap: every version between is claimed
