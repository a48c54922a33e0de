"""Fuzz suite (issue 11): random files, labels and options through the CLI and the API.

Property: either a result whose outputs read back to the names that went
in, or one line ``mtbn ...: error: ...`` with exit status 2 (a library
error class in the API); never a traceback and never a partial output
folder.

The CI profile runs a few dozen examples per test; ``MTBN_FUZZ=long`` runs
many more (``MTBN_FUZZ=long pytest tests/test_fuzz.py``).
"""

import contextlib
import csv
import io
import os
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mtbn.cli import main
from mtbn.exceptions import MtbnError
from mtbn.learn import learn_structures
from mtbn.networks import read_bif, read_network

LONG = os.environ.get("MTBN_FUZZ") == "long"
FUZZ = settings(max_examples=400 if LONG else 25, deadline=None, derandomize=not LONG,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Labels a user's file may hold: ordinary words, missing-value spellings,
# whitespace, brackets, quotes, commas, numbers, very long, non-ASCII.
LABELS = st.one_of(
    st.sampled_from(["a", "b", "c", "yes", "no", "None", "NA", "nan", "", " ", " a", "a ", "(x)", "[1]", "{y}",
                     "a,b", 'say "hi"', "x;y", "tab\there", "1", "2", "10", "-3", "0.5", "TRUE", "false",
                     "é", "日本", "a" * 300, "#", "//", "/*", "%", "name with space"]),
    st.text(alphabet=string.ascii_letters + string.digits + " _-.,;()'\"äß", min_size=0, max_size=8),
)
# Mostly ordinary cells, so that many files learn and the success path is checked too.
CELLS = st.one_of(st.sampled_from(["a", "b"]), st.sampled_from(["a", "b", "c"]), st.sampled_from(["u", "v"]), LABELS)
NAMES = st.one_of(LABELS, st.sampled_from(["x", "y", "z", "age (years)", "x y", "x", ""]))


def _run_cli(argv):
    """``main(argv)`` in-process: (exit status, stderr); parser exits are statuses too."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    return code, err.getvalue()


def _assert_clean_failure(code, err, out):
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mtbn") and ": error: " in lines[0], err
    assert "Traceback" not in err
    assert not os.path.exists(out)


def _no_partial_folders(folder):
    return not [p for p in os.listdir(folder) if p.endswith(".partial")]


@st.composite
def csv_files(draw):
    """One or two CSV files as bytes: random shape, labels, separator, quoting and encoding."""
    n_cols = draw(st.integers(0, 4))
    header = draw(st.lists(NAMES, min_size=n_cols, max_size=n_cols))
    files = []
    for _ in range(draw(st.integers(1, 2))):
        n_rows = draw(st.integers(0, 12))
        rows = [draw(st.lists(CELLS, min_size=n_cols, max_size=n_cols)) for _ in range(n_rows)]
        if n_cols and draw(st.integers(0, 4)) == 0:  # a ragged row
            rows.append(rows[0] + ["extra"] if rows else ["x"] * (n_cols + 1))
        sep = draw(st.sampled_from([",", ",", ";", "\t"]))
        quote_all = draw(st.booleans())

        def cell(text):
            if quote_all or any(c in text for c in (sep, '"', "\n")):
                return '"' + text.replace('"', '""') + '"'
            return text

        text = "\n".join(sep.join(cell(c) for c in row) for row in [header] + rows) + "\n"
        encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "latin-1", "utf-16"]))
        files.append(text.encode(encoding, errors="replace"))
    return files


@FUZZ
@given(files=csv_files(), prior=st.sampled_from(["none", "paired"]))
def test_cli_learn_on_random_files(tmp_path_factory, files, prior):
    folder = tmp_path_factory.mktemp("fuzz")
    paths = []
    for i, data in enumerate(files):
        path = folder / f"task{i}.csv"
        path.write_bytes(data)
        paths.append(str(path))
    out = str(folder / "out")
    code, err = _run_cli(["learn", *paths, "--out", out, "--prior", prior, "--penalty", "0.5",
                          "--restarts", "1", "--joint-restarts", "0"])
    event("learned" if code == 0 else err.split("error: ")[-1][:40])
    if code == 0:
        for path in paths:
            name = os.path.splitext(os.path.basename(path))[0]
            with open(path, newline="", encoding="utf-8-sig") as fh:
                names = {h.strip() for h in next(csv.reader(fh))}
            net = read_network(os.path.join(out, f"{name}.bifxml"))  # .bif only when BIF readers keep the names
            assert set(net.names) == names
            if os.path.exists(os.path.join(out, f"{name}.bif")):
                assert read_bif(os.path.join(out, f"{name}.bif")).names == net.names
            edges = pd.read_csv(os.path.join(out, f"{name}.edges.csv"), dtype=str, keep_default_na=False)
            assert set(edges["source"]) | set(edges["target"]) <= names
        assert os.path.isfile(os.path.join(out, "summary.json"))
    else:
        _assert_clean_failure(code, err, out)
    assert _no_partial_folders(folder)


OPTION_VALUES = st.sampled_from(["0", "1", "-1", "2", "0.5", "1.5", "-0.1", "nan", "inf", "-inf", "1e400", "abc",
                                 "", " ", "auto", "3.0", "10", "999999999999999999999", "None", "true"])
LEARN_OPTIONS = ["--penalty", "--cv", "--validation", "--ess", "--seed", "--max-parents", "--restarts",
                 "--joint-restarts", "--jobs", "--prior", "--reversal", "--start"]


@FUZZ
@given(options=st.lists(st.tuples(st.sampled_from(LEARN_OPTIONS), OPTION_VALUES), min_size=1, max_size=3))
def test_cli_learn_with_random_option_values(tmp_path_factory, options):
    folder = tmp_path_factory.mktemp("opts")
    rng = np.random.default_rng(0)
    paths = []
    for t in range(2):
        x = rng.integers(0, 2, (30, 3))
        path = folder / f"t{t}.csv"
        pd.DataFrame(np.array(["u", "v"])[x], columns=["a", "b", "c"]).to_csv(path, index=False)
        paths.append(str(path))
    out = str(folder / "out")
    argv = ["learn", *paths, "--out", out, "--restarts", "1", "--joint-restarts", "0"]
    for option, value in options:
        argv += [option, value]
    if not any(o == "--penalty" for o, _ in options):
        argv += ["--penalty", "0.5"]  # keep the run short
    code, err = _run_cli(argv)
    event("learned" if code == 0 else "refused")
    if code == 0:
        assert {"t0.bif", "t1.bif", "summary.json"} <= set(os.listdir(out))
    else:
        _assert_clean_failure(code, err, out)
    assert _no_partial_folders(folder)


@st.composite
def frames(draw):
    """A dict of one or two DataFrames with random labels, dtypes and shapes."""
    n_cols = draw(st.integers(0, 4))
    columns = draw(st.lists(st.one_of(NAMES, st.integers(0, 3)), min_size=n_cols, max_size=n_cols))
    tasks = {}
    for t in range(draw(st.integers(1, 2))):
        n_rows = draw(st.integers(0, 10))
        data = {}
        for j in range(n_cols):
            kind = draw(st.sampled_from(["labels", "ints", "bools", "floats", "mixed"]))
            if kind == "labels":
                values = draw(st.lists(CELLS, min_size=n_rows, max_size=n_rows))
            elif kind == "ints":
                values = draw(st.lists(st.integers(-3, 3), min_size=n_rows, max_size=n_rows))
            elif kind == "bools":
                values = draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))
            elif kind == "floats":
                values = draw(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n_rows,
                                       max_size=n_rows))
            else:
                values = draw(st.lists(st.one_of(LABELS, st.integers(0, 2), st.none()), min_size=n_rows,
                                       max_size=n_rows))
            data[j] = values
        frame = pd.DataFrame(data, index=range(n_rows))
        frame.columns = columns
        tasks[f"task{t}"] = frame
    return tasks


@FUZZ
@given(tasks=frames(), prior=st.sampled_from(["none", "paired"]))
def test_api_on_random_frames(tasks, prior):
    try:
        res = learn_structures(tasks, prior=prior, penalty=0.5, n_restarts=1, n_joint_restarts=0)
    except MtbnError as exc:
        assert str(exc) and "\n" not in str(exc)
        event(str(exc)[:40])
        return
    event("learned")
    columns = [str(c) for c in next(iter(tasks.values())).columns]
    for g in res.graphs:
        assert set(g.names) <= set(columns)
        assert all(u in g.names and v in g.names for u, v in g.edges(names=True))


@pytest.mark.parametrize("argv", [
    ["learn", "{missing}", "--out", "{out}"],
    ["learn", "{csv}", "--out", "{out}", "--penalty", "2"],
    ["relatedness", "{csv}", "{csv2}", "--measure", "indirect", "--folds", "50", "--out", "{out}"],
    ["bench", "alarm", "--tasks", "0", "--out", "{out}"],
])
def test_the_installed_command_never_prints_a_traceback(tmp_path, argv):
    import subprocess
    import sys

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("x,y\nu,v\nv,u\nu,u\n")
    b.write_text("x,y\nu,v\nv,v\nu,u\n")
    fill = {"missing": str(tmp_path / "nope.csv"), "out": str(tmp_path / "out"), "csv": str(a), "csv2": str(b)}
    proc = subprocess.run([sys.executable, "-m", "mtbn", *[s.format(**fill) for s in argv]],
                          capture_output=True, text=True)
    _assert_clean_failure(proc.returncode, proc.stderr, fill["out"])
