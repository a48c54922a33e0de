"""Issue 29: nothing written outside --out, no work lost, no number shown that was not used.

Every command-line case runs the real entry point in a subprocess (``python
-m mtbn``, what the ``mtbn`` script calls) and checks the exit status, the
one-line message and the folder contents afterwards. Truths: the hostile
names' expected file stems are written out by hand; "inside --out" is
checked on resolved paths of every file that exists after the run.
"""

import json
import os

import numpy as np
import pandas as pd
import pytest

from mtbn._validation import format_penalty
from mtbn.cli.files import MARKER, task_file_stem
from mtbn.exceptions import DataWarning
from mtbn.learn import DEFAULT_PENALTY_GRID, learn_structures

from helpers import REPO, one_line_error, run_mtbn

FAST = ["--restarts", "0", "--joint-restarts", "0"]




def _task(seed, n=120, columns=("a", "b", "c", "d")):
    """A small task: b copies a 85% of the time, the other columns are noise."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.85, a, 1 - a)
    cols = [a, b] + [rng.integers(0, 2, n) for _ in columns[2:]]
    return pd.DataFrame({name: np.array(["lo", "hi"])[col] for name, col in zip(columns, cols)})


def _files_under(folder):
    return sorted(os.path.relpath(os.path.join(root, f), folder) for root, _, fs in os.walk(folder) for f in fs)


# ---------------------------------------------------------------------------
# 1. Task names never choose where a file goes
# ---------------------------------------------------------------------------

HOSTILE = {  # task name -> the stem written out by hand from the rule of task_file_stem
    "..": "%2E%2E",
    "../../escaped": "%2E.%2F..%2Fescaped",
    "a/b": "a%2Fb",
    "/etc/passwd": "%2Fetc%2Fpasswd",
    "back\\slash": "back%5Cslash",
    "nul\x00byte": "nul%00byte",
    ".hidden": "%2Ehidden",
    "CON": "%43ON",
    "lpt1.txt": "%6Cpt1.txt",
    "trailing.": "trailing%2E",
    "two words": "two%20words",
    "50%": "50%25",
    "Zürich": "Z%C3%BCrich",
}


def test_task_file_stem_by_hand():
    for name, stem in HOSTILE.items():
        assert task_file_stem(name) == stem, name
    long = "x" * 300
    stem = task_file_stem(long)
    assert len(stem) == 120 and stem.startswith("x" * 103 + "~") and stem != task_file_stem("x" * 301)
    head, digest = task_file_stem("%" * 300).split("~")
    assert head == "%25" * 34 and len(digest) == 16  # cut before an escape, never inside one


def _written_inside_out_only(tmp_path, frame, names, suffixes):
    """``mtbn learn --task-column site`` on ``frame`` (one task per name), run in a working folder with --out
    deep inside it: nothing is written outside --out, and each task's files carry its stem (HOSTILE's by hand,
    else task_file_stem's); returns summary.json."""
    work = tmp_path / "work"
    work.mkdir()
    frame.to_csv(work / "all.csv", index=False)
    proc = run_mtbn("learn", "--prior", "none", *FAST, "--task-column", "site", "--bootstrap", "1", "--export", "dot",
                    "--out", "trav/deep/res", "all.csv", cwd=work)
    assert proc.returncode == 0, proc.stderr
    out = (work / "trav" / "deep" / "res").resolve()
    # Nothing outside --out: the working folder holds only the input and the folders leading to --out.
    assert _files_under(work) == ["all.csv"] + [f"trav/deep/res/{f}" for f in _files_under(out)]
    for f in _files_under(out):
        assert os.path.realpath(out / f).startswith(str(out) + os.sep)
    summary = json.loads((out / "summary.json").read_text())
    for name in names:
        stem = HOSTILE.get(name) or task_file_stem(name)
        assert summary["tasks"][name]["file_stem"] == stem
        for suffix in suffixes:
            assert (out / f"{stem}{suffix}").is_file(), (name, suffix)
        assert (out / "bootstrap" / f"{stem}.strength.csv").is_file()
    return summary


def test_hostile_task_names_write_inside_out_only(tmp_path):
    names = [n for n in HOSTILE if "\x00" not in n] + ["y" * 300]  # a CSV cell cannot hold NUL: see the API test
    frame = pd.concat([_task(i, n=60).assign(site=name) for i, name in enumerate(names)], ignore_index=True)
    _written_inside_out_only(tmp_path, frame, names, (".bif", ".bifxml", ".edges.csv", ".dot"))


def test_hostile_task_names_of_continuous_tasks_write_inside_out_only(tmp_path):
    # Continuous tasks (Gaussian networks) split by --task-column write through the same rule.
    rng = np.random.default_rng(3)
    names = [n for n in HOSTILE if "\x00" not in n]
    frame = pd.concat([pd.DataFrame(rng.normal(size=(40, 3)), columns=list("xyz")).assign(site=name)
                       for name in names], ignore_index=True)
    summary = _written_inside_out_only(tmp_path, frame, names, (".gaussian.json", ".edges.csv", ".dot"))
    assert summary["kind"] == "gaussian"


def test_names_equal_after_case_folding_are_refused_before_any_work(tmp_path):
    frame = pd.concat([_task(0).assign(site="North"), _task(1).assign(site="north")], ignore_index=True)
    frame.to_csv(tmp_path / "all.csv", index=False)
    proc = run_mtbn("learn", *FAST, "--task-column", "site", "--out", "res", "all.csv", cwd=tmp_path)
    assert one_line_error(proc) == ("tasks 'North' and 'north' would write files whose names differ at most in "
                                     "case ('North', 'north'); rename one")
    assert sorted(os.listdir(tmp_path)) == ["all.csv"]


def test_a_nul_in_a_task_name_from_the_api_gets_a_safe_file_name(tmp_path):
    # The API's task names reach files only through the command line's writer; the rule is the same function.
    from mtbn.cli.files import task_file_stems, write_task_outputs

    res = learn_structures({"nul\x00byte": _task(0), "ok": _task(1)}, prior="none", n_restarts=0)
    stems = task_file_stems(["nul\x00byte", "ok"])
    for t, name in enumerate(["nul\x00byte", "ok"]):
        write_task_outputs(str(tmp_path), stems[name], res.graphs[t], res.networks[t])
    assert _files_under(tmp_path) == sorted(f"{s}{x}" for s in ("nul%00byte", "ok")
                                            for x in (".bif", ".bifxml", ".edges.csv"))


# ---------------------------------------------------------------------------
# 2. matplotlib missing: refused before any work, never a traceback
# ---------------------------------------------------------------------------

HIDE_MATPLOTLIB = "sys.modules['matplotlib'] = None"


@pytest.mark.slow
@pytest.mark.parametrize("command", [["learn", "--report"], ["relatedness", "--measure", "direct"],
                                     ["select", "--principal", "t0"], ["cluster"]])
def test_without_matplotlib_the_plotting_commands_refuse_before_any_work(tmp_path, command):
    for i in range(2):
        _task(i).to_csv(tmp_path / f"t{i}.csv", index=False)
    proc = run_mtbn(*command, *FAST[:2], "--out", "res", "t0.csv", "t1.csv", cwd=tmp_path, pre=HIDE_MATPLOTLIB)
    assert one_line_error(proc) == (f"mtbn {command[0]}{' --report' if command[0] == 'learn' else ''} draws plots, "
                                     "and matplotlib is not installed: pip install matplotlib")
    assert proc.stdout == "" and sorted(os.listdir(tmp_path)) == ["t0.csv", "t1.csv"]
    if command[0] == "learn":  # without --report nothing needs it
        proc = run_mtbn("learn", *FAST, "--out", "res", "t0.csv", "t1.csv", cwd=tmp_path, pre=HIDE_MATPLOTLIB)
        assert proc.returncode == 0, proc.stderr


def test_matplotlib_is_a_declared_dependency():
    from importlib.metadata import requires

    # The installed distribution's own metadata (no tomllib: Python 3.10 has none).
    assert any(req.startswith("matplotlib") and "extra ==" not in req for req in requires("mtbn"))
    with open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as fh:
        text = fh.read()
    # mtbn.datasets is the data/ folder, installed inside the package (load_network reads it).
    assert '"mtbn.datasets" = "data"' in text
    assert os.path.isfile(os.path.join(REPO, "data", "__init__.py"))


# ---------------------------------------------------------------------------
# 3. A reused --out never mixes two runs
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_reused_out_is_refused_and_overwrite_replaces_it_whole(tmp_path):
    for i in range(3):
        _task(i).to_csv(tmp_path / f"t{i}.csv", index=False)
    first = run_mtbn("learn", *FAST, "--report", "--bootstrap", "1", "--out", "o", "t0.csv", "t1.csv", "t2.csv",
                  cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = {f: (tmp_path / "o" / f).read_bytes() for f in _files_under(tmp_path / "o")}
    assert {"report.md", "t2.bif", "bootstrap/edges.csv", MARKER} <= set(before)
    again = run_mtbn("learn", *FAST, "--penalty", "0.5", "--out", "o", "t0.csv", "t1.csv", cwd=tmp_path)
    assert one_line_error(again) == ("--out 'o' already holds the results of an earlier run; give a new folder, "
                                      "or --overwrite to replace it")
    assert {f: (tmp_path / "o" / f).read_bytes() for f in _files_under(tmp_path / "o")} == before
    replaced = run_mtbn("learn", *FAST, "--penalty", "0.5", "--overwrite", "--out", "o", "t0.csv", "t1.csv",
                     cwd=tmp_path)
    assert replaced.returncode == 0, replaced.stderr
    expected = sorted([f"t{i}{x}" for i in (0, 1) for x in (".bif", ".bifxml", ".edges.csv")]
                      + ["summary.json", MARKER])
    assert _files_under(tmp_path / "o") == expected
    marker = json.loads((tmp_path / "o" / MARKER).read_text())
    assert marker["command"] == "learn" and marker["files"] == [f for f in expected if f != MARKER]
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["options"]["penalty"] == 0.5
    assert sorted(os.listdir(tmp_path)) == ["o", "t0.csv", "t1.csv", "t2.csv"]  # no staged or old folder left
    # The other commands follow the same convention.
    other = run_mtbn("relatedness", "--measure", "direct", "--noise-floor", "0", *FAST[:2], "--out", "o", "t0.csv",
                  "t1.csv", cwd=tmp_path)
    assert "already holds the results of an earlier run" in one_line_error(other)


@pytest.mark.slow
def test_bench_resumes_its_own_run_and_refuses_another_unless_overwrite(tmp_path):
    common = ["bench", "alarm", "--train", "100", "--test-rows", "500", "--restarts", "0", "--methods", "stl",
              "--no-plots", "--tasks", "2", "--out", "b"]
    assert run_mtbn(*common, "--trials", "1", cwd=tmp_path).returncode == 0
    resumed = run_mtbn(*common, "--trials", "2", "--progress", cwd=tmp_path)
    assert resumed.returncode == 0 and "1 of 2 trials already done" in resumed.stderr + resumed.stdout
    other = run_mtbn(*common[:-2], "--pdel", "0.1", "--trials", "1", "--out", "b", cwd=tmp_path)
    assert "holds a run with other settings" in one_line_error(other) and "--overwrite" in other.stderr
    fresh = run_mtbn(*common[:-2], "--pdel", "0.1", "--trials", "1", "--out", "b", "--overwrite", cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    assert sorted(os.listdir(tmp_path / "b" / "trials")) == ["trial_0000.csv"]
    assert json.loads((tmp_path / "b" / "config.json").read_text())["p_del"] == 0.1
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    foreign = run_mtbn(*common[:-2], "--trials", "1", "--out", "mine", "--overwrite", cwd=tmp_path)
    assert "holds files mtbn did not write" in one_line_error(foreign)
    assert os.listdir(tmp_path / "mine") == ["notes.txt"]


# ---------------------------------------------------------------------------
# 6. Degenerate setups are named
# ---------------------------------------------------------------------------


def test_tasks_that_share_no_variable_are_named():
    upper = _task(1, columns=("A", "B", "C", "D"))
    with pytest.warns(DataWarning) as caught:
        learn_structures({"low": _task(0), "up": upper}, penalty=0.5, n_restarts=0, n_joint_restarts=0)
    texts = [str(w.message) for w in caught]
    assert texts == [
        "tasks 'low' and 'up' share no variable, so multitask learning cannot transfer between them; check their "
        "column names, or learn them apart.",
        "4 column(s) of task 'up' match columns of task 'low' except for case or white space (e.g. 'A' and 'a'), "
        "so they are different variables; rename them if they are the same."]
    with pytest.warns(DataWarning, match="column\\(s\\) of task 'sp' match columns of task 'low'"):
        learn_structures({"low": _task(0), "sp": _task(2).rename(columns={"a": "a "})}, penalty=0.5, n_restarts=0)


def test_a_task_that_shares_nothing_with_any_other_gets_one_line():
    import warnings

    edges = pd.DataFrame({"from": ["lo", "hi"] * 60, "to": ["hi", "lo"] * 60})  # e.g. an edge list among the files
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learn_structures({"t0": _task(0), "t1": _task(1), "t2": _task(2), "edges": edges}, penalty=0.5,
                         n_restarts=0, n_joint_restarts=0)
    texts = [str(w.message) for w in caught if w.category is DataWarning]
    assert texts == ["task 'edges' shares no variable with any of the other 3 tasks, so multitask learning cannot "
                     "transfer to or from it; check its column names, or learn it apart."]


def test_columns_with_one_value_everywhere_are_named_once():
    import warnings

    low, other = _task(0), _task(1)
    low["flat"], other["flat"] = "on", "on"  # one value in every row of both tasks: named
    low["flat2"], other["flat2"] = "x", "x"
    low["once"], other["once"] = "k", "j"  # one value per task, but two across the tasks: not named
    low["part"] = "z"  # one value in one task, two in the other: not named
    other["part"] = ["z", "w"] * (len(other) // 2) + ["z"] * (len(other) % 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = learn_structures({"low": low, "other": other}, penalty=0.5, n_restarts=0, n_joint_restarts=0)
    texts = [str(w.message) for w in caught if w.category is DataWarning]
    assert texts == ["2 column(s) take a single value in every row of every task ('flat', 'flat2'; e.g. 'flat' is "
                     "always 'on'): each is learned as an isolated node; drop them, or check the files."]
    for graph in result.graphs:  # learned, not refused
        assert {"flat", "flat2"} <= set(graph.names) and not any({"flat", "flat2"} & set(e) for e in graph.edges())


def test_a_column_with_one_value_in_a_group_of_the_tasks_only_is_not_named():
    """Selection and clustering learn groups of the tasks given: a column constant in the group but not in the
    tasks given is not the user's data problem (the same two tasks given directly are named)."""
    import warnings

    from mtbn.data import make_taskset
    from mtbn.relatedness.learning import GroupLearner, group_settings

    tasks = {name: _task(seed) for seed, name in enumerate(("a", "b", "c"))}
    for name, value in (("a", "on"), ("b", "on"), ("c", "off")):
        tasks[name]["flag"] = value
    ts = make_taskset(tasks)
    learner = GroupLearner(group_settings("select_tasks", dict(penalty=0.5, n_restarts=0, n_joint_restarts=0)), 0)

    def named(run):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run()
        return [str(w.message) for w in caught if "single value" in str(w.message)]

    assert named(lambda: learner({"a": ts["a"], "b": ts["b"]})) == []
    assert len(named(lambda: learn_structures({"a": ts["a"], "b": ts["b"]}, penalty=0.5, n_restarts=0,
                                              n_joint_restarts=0))) == 1


# ---------------------------------------------------------------------------
# 7. Numbers shown are the numbers used
# ---------------------------------------------------------------------------


def test_every_grid_penalty_prints_as_a_distinct_value_that_gives_it_back():
    printed = [format_penalty(p) for p in DEFAULT_PENALTY_GRID]
    assert len(set(printed)) == len(printed)
    assert [float(p) for p in printed] == [float(p) for p in DEFAULT_PENALTY_GRID]
    assert format_penalty(1 - 1e-12) == "0.999999999999" and format_penalty(1.0) == "1"


@pytest.mark.slow
def test_the_report_and_stdout_print_the_penalty_used(tmp_path):
    for i in range(2):
        _task(i).to_csv(tmp_path / f"t{i}.csv", index=False)
    proc = run_mtbn("learn", *FAST, "--report", "--out", "o", "t0.csv", "t1.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    report = (tmp_path / "o" / "report.md").read_text()
    assert f"Penalty used: {format_penalty(summary['penalty'])}" in report
    for record in summary["penalty_path"]:
        assert f"| {format_penalty(record['penalty'])} |" in report
    chosen = summary["transfer"]["selected_penalty"]
    assert f"penalty {format_penalty(chosen)}" in proc.stdout or "chose penalty 0" in proc.stdout
    # The printed penalty, given back, gives the same structures.
    back = run_mtbn("learn", *FAST, "--penalty", format_penalty(summary["penalty"]), "--out", "o2", "t0.csv",
                 "t1.csv", cwd=tmp_path)
    assert back.returncode == 0, back.stderr
    again = json.loads((tmp_path / "o2" / "summary.json").read_text())
    assert {t: v["edges"] for t, v in again["tasks"].items()} == {t: v["edges"] for t, v in summary["tasks"].items()}


def test_learn_help_names_cross_validation_for_the_penalty(tmp_path):
    proc = run_mtbn("learn", "--help", cwd=tmp_path)
    text = " ".join(proc.stdout.split())
    assert "choose it by --cv K-fold cross-validation" in text and "validation split (default auto)" not in text
    assert "--overwrite" in text
