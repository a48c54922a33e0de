"""The message registry: every error raised goes through it, and docs/errors.md is generated from it."""

import pathlib
import re

import pytest

from mtbn.messages import REGISTRY, markdown

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in (ROOT / "mtbn").rglob("*.py") if p.name != "messages.py")
# A message built by hand: an error class (or argparse's) called with text.
HAND_MADE = re.compile(r"\b(InvalidDataError|InvalidParameterError|CycleError|NotFittedError|MtbnError|TypeError|ValueError|"
                       r"ArgumentTypeError|"
                       r"_UsageError|_usage_error)\(\s*(?!\"[a-z0-9]+(?:-[a-z0-9]+)*\"\s*[,)])f?[\"']")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_module_raises_a_message_outside_the_registry(path):
    source = path.read_text(encoding="utf-8")
    hits = [source[: m.start()].count("\n") + 1 for m in HAND_MADE.finditer(source)]
    assert hits == [], f"{path.name}: messages written by hand at lines {hits}; register them in mtbn.messages"


def test_every_registered_message_is_raised_somewhere():
    markdown()  # imports every module, so every message is registered
    text = "\n".join(p.read_text(encoding="utf-8") for p in SOURCES)
    unused = [code for code in REGISTRY if text.count(f'"{code}"') < 2]  # the registration and a use
    assert unused == []


def test_messages_are_one_line_with_a_cause_and_a_fix():
    markdown()
    for m in REGISTRY.values():
        assert "\n" not in m.template and m.template.strip() == m.template, m.code
        assert m.cause.strip() and m.fix.strip(), m.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m.code), m.code


def test_docs_errors_md_is_generated_from_the_registry():
    assert (ROOT / "docs" / "errors.md").read_text(encoding="utf-8") == markdown(), (
        "docs/errors.md is out of date: python -m mtbn.messages > docs/errors.md")


def _warnings_of(call):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught


def test_warnings_name_the_users_line_from_every_entry_point():
    """A warning about the user's data or the transfer names the line of the user's code that called mtbn, from
    each way in: learn_structures (with a given penalty, and with the default's selection and its
    TransferWarning), the estimator, from_dataframe, discretize and read_bif. With a fixed stacklevel the
    first and the from_dataframe warning named lines inside mtbn (checked on the former code)."""
    import numpy as np
    import pandas as pd

    from mtbn import MultitaskStructureLearner, learn_structures
    from mtbn.data import discretize, from_dataframe
    from mtbn.networks import read_bif

    rng = np.random.default_rng(0)

    def tasks(n=60):
        out = {}
        for t in range(2):
            a = rng.integers(0, 2, n)
            b = a ^ (rng.random(n) < 0.2)
            out[f"t{t}"] = pd.DataFrame({"a": a.astype(str), "b": b.astype(int).astype(str), "c": "k"})
        return out

    gappy = tasks()["t0"].assign(c=rng.integers(0, 2, 60).astype(str))
    gappy.loc[3, "a"] = None
    numbers = {f"t{t}": pd.DataFrame({"x": rng.normal(size=30), "y": rng.normal(size=30)}) for t in range(2)}
    bif = ('network n { }\nvariable a { type discrete [ 2 ] { s0, s1 }; }\n'
           'probability ( a ) { table 0.5, 0.5001; }\n')
    quick = dict(n_restarts=0, n_joint_restarts=0, random_state=0)
    calls = {
        "learn_structures, a given penalty": lambda: learn_structures(tasks(), penalty=0.5, **quick),
        "learn_structures, the default": lambda: learn_structures(tasks(), **quick),
        "the estimator": lambda: MultitaskStructureLearner(penalty=0.5, **quick).fit(tasks()),
        "from_dataframe": lambda: from_dataframe(gappy, dropna=True),
        "discretize": lambda: discretize(numbers, n_bins=2, per_task=True),
        "read_bif": lambda: read_bif(bif),
    }
    for name, call in calls.items():
        caught = _warnings_of(call)
        assert caught, name
        assert all(w.filename == __file__ for w in caught), (name, [(w.filename, w.lineno) for w in caught])
