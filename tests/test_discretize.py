"""Discretisation with cut points shared by all tasks (issue 31 item 1).

Truths used: cut points computed by hand (numpy's linear quantile: the value
at position q * (n - 1) of the sorted pooled values, interpolated), equal
widths computed by hand, ``numpy.quantile`` on the pooled column of CSV
files (for the command line), and the refusal of continuous columns without
discretisation.
"""

import json
import os

import numpy as np
import pandas as pd
import pytest

from mtbn.cli import main
from mtbn.data import make_taskset
from mtbn.data.discretization import Discretization, discretize, interval_labels, parse_discretize
from mtbn.exceptions import DataWarning, InvalidDataError, InvalidParameterError
from tests.test_cli import _assert_one_line_error, _run_cli


def test_quantile_cut_points_are_the_pooled_quantiles_by_hand():
    a = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    b = pd.DataFrame({"x": [5.0, 6.0, 7.0, 8.0]})
    frames, d = discretize({"a": a, "b": b}, "quantile:4", columns=["x"])
    # pooled 1..8; positions 0.25*7 = 1.75, 0.5*7 = 3.5, 0.75*7 = 5.25 -> 2.75, 4.5, 6.25
    assert d.cuts == {"x": (2.75, 4.5, 6.25)}
    assert frames["a"]["x"].tolist() == ["(-inf, 2.75]", "(-inf, 2.75]", "(2.75, 4.5]", "(2.75, 4.5]"]
    assert frames["b"]["x"].tolist() == ["(4.5, 6.25]", "(4.5, 6.25]", "(6.25, inf)", "(6.25, inf)"]
    # every task has every label, in increasing order
    assert list(frames["a"]["x"].cat.categories) == interval_labels((2.75, 4.5, 6.25))


def test_interval_cut_points_are_equal_widths_by_hand():
    frames, d = discretize({"a": pd.DataFrame({"x": [1.0, 2.0]}), "b": pd.DataFrame({"x": [7.0, 10.0]})},
                           "interval", n_bins=3, columns=["x"])
    assert d.cuts == {"x": (4.0, 7.0)}  # 1 + 9/3, 1 + 2 * 9/3
    assert frames["b"]["x"].tolist() == ["(4, 7]", "(7, inf)"]  # a value on a cut point falls below it


def test_ties_merge_cut_points_and_a_constant_column_has_one_range():
    _, d = discretize({"a": pd.DataFrame({"x": [1.0, 1, 1, 1, 1, 2, 3], "c": [5.0] * 7})}, "quantile:3",
                      columns=["x", "c"])
    # positions 2 and 4 of the sorted values are both 1: one cut point; a constant column has none
    assert d.cuts == {"x": (1.0,), "c": ()}
    assert d.labels("c") == ["(-inf, inf)"]
    # a cut point at the largest value would leave an empty top range: dropped
    _, d = discretize({"a": pd.DataFrame({"x": [0.0, 9, 9, 9]})}, "quantile:2", columns=["x"])
    assert d.cuts == {"x": ()}


def test_default_columns_are_the_continuous_ones_only():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"y": rng.normal(size=60), "n": np.arange(60) % 30, "few": rng.choice([0.5, 1.5], 60),
                          "txt": rng.choice(["u", "v"], 60)})
    frames, d = discretize([frame], "quantile")
    assert d.columns == ["y"]  # integers, few decimal values and text are left alone
    assert frames["task0"]["n"].equals(frame["n"]) and frames["task0"]["txt"].equals(frame["txt"])
    _, d = discretize([frame], "quantile", columns=["n"])  # an integer column when asked
    assert d.cuts == {"n": tuple(float(c) for c in np.quantile(frame["n"], [1 / 3, 2 / 3]))}


def test_pooled_labels_mean_the_same_range_in_every_task():
    rng = np.random.default_rng(1)
    tasks = {"low": pd.DataFrame({"y": rng.normal(0, 1, 200)}), "high": pd.DataFrame({"y": rng.normal(3, 1, 200)})}
    ts = make_taskset(tasks, discretize="quantile:3")
    pooled = np.concatenate([tasks["low"]["y"], tasks["high"]["y"]])
    assert ts.discretization.cuts["y"] == tuple(float(c) for c in np.quantile(pooled, [1 / 3, 2 / 3]))
    counts = {t.name: np.bincount(t.codes[:, 0], minlength=3) for t in ts.tasks}
    assert counts["low"][0] > counts["low"][2] and counts["high"][2] > counts["high"][0]
    assert sum(c.sum() for c in counts.values()) == 400


def test_per_task_cut_points_warn_and_label_ranks():
    tasks = {"a": pd.DataFrame({"x": [1.0, 2, 3, 4]}), "b": pd.DataFrame({"x": [10.0, 20, 30, 40]})}
    with pytest.warns(DataWarning, match="per task"):
        frames, d = discretize(tasks, "quantile:2", columns=["x"], per_task=True)
    assert d.cuts == {"a": {"x": (2.5,)}, "b": {"x": (25.0,)}}
    assert frames["a"]["x"].tolist() == frames["b"]["x"].tolist() == ["bin 1 of 2", "bin 1 of 2", "bin 2 of 2",
                                                                       "bin 2 of 2"]


def test_missing_cells_stay_missing():
    frame = pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0] * 6, "z": ["a", "b"] * 12})
    frames, d = discretize([frame], "interval:2", columns=["x"])
    assert frames["task0"]["x"].isna().sum() == 6
    with pytest.raises(InvalidDataError, match=r"missing value\(s\)"):
        make_taskset(frames)
    assert make_taskset(frames, dropna=True).tasks[0].n_samples == 18


def test_record_round_trips_and_applies_to_new_data():
    rng = np.random.default_rng(2)
    tasks = {"a": pd.DataFrame({"y": rng.normal(size=50)}), "b": pd.DataFrame({"y": rng.normal(size=50)})}
    frames, d = discretize(tasks, "quantile:4")
    back = Discretization.from_dict(json.loads(json.dumps(d.to_dict())))
    assert back == d
    assert back.transform(tasks["a"], "a")["y"].tolist() == frames["a"]["y"].tolist()
    new = pd.DataFrame({"y": [-10.0, 10.0]})
    assert make_taskset({"new": new}, discretize=back).tasks[0].states[0] == tuple(d.labels("y"))


def test_bad_requests_name_what_is_wrong():
    for spec in ("median", "quantile:1", "quantile:x", 3):
        with pytest.raises(InvalidParameterError, match="discretize must be METHOD"):
            parse_discretize(spec)
    with pytest.raises(InvalidDataError, match="task 'a', column 'x'.*'high' is not a number"):
        discretize({"a": pd.DataFrame({"x": ["1", "high"]})}, columns=["x"])
    with pytest.raises(InvalidParameterError, match="column 'nope' is in no task"):
        discretize({"a": pd.DataFrame({"x": [1.0]})}, columns=["nope"])
    with pytest.raises(InvalidParameterError, match="discretization record"):
        Discretization.from_dict({"method": "quantile"})


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def continuous_csvs(tmp_path_factory):
    """Two tasks over a chain x -> y -> z of continuous measurements (y shifted in the second)."""
    folder = tmp_path_factory.mktemp("continuous")
    paths = []
    for t, shift in enumerate((0.0, 1.0)):
        rng = np.random.default_rng(t)
        x = rng.normal(size=300)
        y = x + shift + 0.5 * rng.normal(size=300)
        z = y + 0.5 * rng.normal(size=300)
        path = folder / f"cond{t}.csv"
        pd.DataFrame({"x": x.round(3), "y": y.round(3), "z": z.round(3)}).to_csv(path, index=False)
        paths.append(str(path))
    return paths


def test_learn_discretizes_with_pooled_cut_points_and_writes_them(tmp_path, continuous_csvs):
    out = tmp_path / "L"
    assert main(["learn", *continuous_csvs, "--discretize", "quantile:3", "--prior", "none", "--restarts", "0",
                 "--out", str(out)]) == 0
    record = json.loads((out / "discretization.json").read_text())
    pooled = pd.concat([pd.read_csv(p) for p in continuous_csvs])
    for column in "xyz":
        expected = [float(c) for c in np.quantile(pooled[column], [1 / 3, 2 / 3])]
        assert record["columns"][column]["cut_points"] == expected
    summary = json.loads((out / "summary.json").read_text())
    for info in summary["tasks"].values():  # the chain x - y - z is found (either orientation), nothing else
        assert {frozenset(e) for e in info["edges"]} == {frozenset("xy"), frozenset("yz")}
    # the recorded cut points apply to other data unchanged
    again = tmp_path / "L2"
    assert main(["learn", continuous_csvs[0], "--discretize", str(out / "discretization.json"), "--prior", "none",
                 "--restarts", "0", "--out", str(again)]) == 0
    assert json.loads((again / "discretization.json").read_text()) == record


def test_relatedness_takes_discretize_and_continuous_data_as_they_are(tmp_path, continuous_csvs):
    out = tmp_path / "R"
    assert main(["relatedness", *continuous_csvs, "--measure", "direct", "--noise-floor", "0", "--restarts", "0",
                 "--discretize", "interval:4", "--out", str(out)]) == 0
    assert json.loads((out / "discretization.json").read_text())["method"] == "interval"
    # Without --discretize (refused before: "looks continuous"), the files are continuous tasks: Gaussian networks.
    proc = _run_cli("relatedness", *continuous_csvs, "--measure", "direct", "--restarts", "0",
                    "--out", str(tmp_path / "x"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "x" / "relatedness.json").read_text())["names"] == ["cond0", "cond1"]
    assert not (tmp_path / "x" / "discretization.json").exists()
    line = _assert_one_line_error(_run_cli("learn", *continuous_csvs, "--discretize", "median",
                                           "--out", str(tmp_path / "y")))
    assert "discretize must be METHOD" in line


def test_learn_on_continuous_files_learns_gaussian_networks_without_an_option(tmp_path, continuous_csvs, capsys):
    # Every column a number, some continuous, no --discretize: Gaussian networks (issue 49), the chain found in
    # each task, each variable's regression written; the discrete learner's options it does not take refused.
    out = tmp_path / "G"
    assert main(["learn", *continuous_csvs, "--restarts", "1", "--joint-restarts", "1", "--report",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "as Gaussian networks (bge" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["kind"] == "gaussian" and summary["score"] == "bge" and summary["transfer"] is not None
    for stem in ("cond0", "cond1"):
        edges = pd.read_csv(out / f"{stem}.edges.csv")
        assert {frozenset(r) for r in edges[["source", "target"]].itertuples(index=False)} == {
            frozenset("xy"), frozenset("yz")}
        params = json.loads((out / f"{stem}.gaussian.json").read_text())["cpds"]
        assert set(params) == set("xyz") and all(v["variance"][0] > 0 for v in params.values())
    # The report: every task, the penalty path, each variable's regression as the task's network fits it.
    report = (out / "report.md").read_text()
    assert report.startswith("# Multitask structure learning: Gaussian networks")
    assert "| cond0 |" in report and "| cond1 |" in report and "## Penalty path" in report
    first = json.loads((out / "cond0.gaussian.json").read_text())["cpds"]["y"]
    terms = ", ".join(f"{p} {first['coefficients'][p][0]:.3g}" for p in first["parents"])
    assert f"| y | {terms}; sd {first['variance'][0] ** 0.5:.3g} |" in report
    assert (out / "report.html").exists()
    # --bootstrap (refused before): the replicates' tables as for discrete tasks, the report's section.
    proc = _run_cli("learn", *continuous_csvs, "--bootstrap", "4", "--restarts", "1", "--joint-restarts", "0",
                    "--report", "--out", str(tmp_path / "G2"))
    assert proc.returncode == 0, proc.stderr
    boot = json.loads((tmp_path / "G2" / "summary.json").read_text())["bootstrap"]
    assert boot["n_boot"] == 4 and set(boot["thresholds"]) == {"cond0", "cond1"}
    strength = pd.read_csv(tmp_path / "G2" / "bootstrap" / "cond0.strength.csv")
    assert list(strength.columns) == ["from", "to", "strength", "direction"] and strength["strength"].between(0, 1).all()
    assert (tmp_path / "G2" / "bootstrap" / "cond1.averaged.edges.csv").exists()
    assert "## Bootstrap" in (tmp_path / "G2" / "report.md").read_text()
    line = _assert_one_line_error(_run_cli("learn", *continuous_csvs, "--penalty-search", "grid",
                                           "--out", str(tmp_path / "G3")))
    assert line.startswith("mtbn: error: --penalty-search is not available for continuous tasks; leave it at its "
                           "default, or discretise the tasks")


def test_make_taskset_takes_the_columns_and_per_task_choice_in_one_dict():
    rng = np.random.default_rng(4)
    frames = {t: pd.DataFrame({"x": rng.normal(size=60).round(3), "y": rng.integers(0, 4, 60),
                               "g": rng.choice(["a", "b"], 60)}) for t in ("p", "q")}
    one = make_taskset(frames, discretize={"method": "interval:3", "columns": ["x"], "per_task": True})
    done, cuts = discretize(frames, "interval:3", columns=["x"], per_task=True)
    two = make_taskset(done)
    assert one.variables == two.variables and one.states == two.states
    assert all(np.array_equal(a.codes, b.codes) for a, b in zip(one.tasks, two.tasks))
    assert one.discretization.to_dict() == cuts.to_dict()
    with pytest.raises(InvalidParameterError, match=r"takes the keys 'method' \(required\).*got \['bins'\]"):
        make_taskset(frames, discretize={"bins": 3})


def _columns_file(path, rows, rng, *, label_at=None):
    """A CSV file of a continuous column ``x`` (empty cells), whole numbers ``n`` written two ways, a label column
    ``c`` and a continuous column ``y``; with ``label_at``, ``x`` holds a label in that row."""
    x = [repr(float(v)) for v in rng.normal(size=rows)]
    x[3] = ""
    if label_at is not None:
        x[label_at] = "high"
    n = [f"{v}.0" if i % 3 else str(v) for i, v in enumerate(rng.integers(0, 4, size=rows))]
    c = rng.choice(["a", "b", "NA"], size=rows)
    y = [f"{v:.6g}" for v in rng.normal(size=rows)]
    pd.DataFrame({"x": x, "n": n, "c": c, "y": y}).to_csv(path, index=False)
    return path


def test_read_csv_columns_holds_continuous_columns_as_numbers_and_the_rest_as_its_text(tmp_path):
    """read_csv_columns (the --discretize reader) gives read_csv_frame's strings for every column but one of
    numbers with more labels than a variable may have states, which comes as each cell's number (NaN where
    empty); a label after that column's text was dropped gives the whole file's text; at any chunk size."""
    from mtbn.data import MAX_STATES
    from mtbn.data.csvfile import read_csv_columns, read_csv_frame

    rng = np.random.default_rng(3)
    plain = _columns_file(tmp_path / "plain.csv", 2000, rng)
    late = _columns_file(tmp_path / "late.csv", 2000, rng, label_at=1900)
    for chunksize in (100, 50_000):
        text = read_csv_frame(plain)
        got = read_csv_columns(plain, chunksize=chunksize)
        assert list(got.columns) == ["x", "n", "c", "y"]
        assert [got[c].dtype.kind for c in got.columns] == ["f", "O", "O", "f"]
        for c in ("x", "y"):
            expected = np.array([np.nan if t == "" else float(t) for t in text[c]])
            assert np.array_equal(got[c].to_numpy(), expected, equal_nan=True)
        assert got[["n", "c"]].equals(text[["n", "c"]])  # "1" and "1.0" stay two labels
        assert text["n"].nunique() <= MAX_STATES < text["x"].nunique()
        late_got, late_text = read_csv_columns(late, chunksize=chunksize), read_csv_frame(late)
        if chunksize == 100:  # "high" in x after its text was dropped: every column its text
            assert late_got.equals(late_text)
        else:  # in the one chunk: x is text from the start
            assert late_got[["x", "n", "c"]].equals(late_text[["x", "n", "c"]]) and late_got["y"].dtype.kind == "f"


def test_discretizing_csv_files_gives_what_their_text_gives(tmp_path):
    """The command line's --discretize reading (continuous columns as numbers) makes the tasks, the cut points
    and the messages that discretising the files' text makes: every continuous column discretised; one left out
    (its text read again, the same one-line error); a task column."""
    from mtbn.cli.files import read_named_tasks, read_taskset
    from mtbn.data.csvfile import read_csv_frame

    rng = np.random.default_rng(4)
    paths = [_columns_file(tmp_path / f"site{i}.csv", 600, rng) for i in range(2)]
    text = {p.stem: read_csv_frame(p) for p in paths}

    def same(a, b):
        assert (a.names, a.variables, a.states) == (b.names, b.variables, b.states)
        assert all(np.array_equal(x.codes, y.codes) for x, y in zip(a.tasks, b.tasks))
        assert a.discretization.to_dict() == b.discretization.to_dict()

    specs = ("quantile:3", {"method": "interval:4", "per_task": True}, {"method": "quantile", "columns": ["y", "x"]})
    for spec in specs:
        got = read_taskset([str(p) for p in paths], dropna=True, task_column=None, discretize=spec)
        same(got, make_taskset(text, dropna=True, discretize=spec))
        tasks, record = read_named_tasks([str(p) for p in paths], True, discretize=spec)
        assert record.to_dict() == got.discretization.to_dict() and [t.codes.tolist() for t in tasks] == [
            t.codes.tolist() for t in got.tasks]
    spec = {"method": "quantile", "columns": ["y"]}  # x left continuous: refused, as its text is
    with pytest.raises(InvalidDataError) as expected:
        make_taskset(text, dropna=True, discretize=spec)
    with pytest.raises(InvalidDataError) as raised:
        read_taskset([str(p) for p in paths], dropna=True, task_column=None, discretize=spec)
    assert str(raised.value) == str(expected.value) and "'x'" in str(raised.value)
    padded = {name: f.assign(z=[str(i % 20).zfill(1 + (i // 20) % 15) for i in range(len(f))])
              for name, f in text.items()}
    for name, f in padded.items():  # whole numbers, 20 of them, written 290 ways: too many states, not continuous
        f.to_csv(tmp_path / f"{name}.csv", index=False)
    with pytest.raises(InvalidDataError) as expected:
        make_taskset(padded, dropna=True, discretize="quantile:3")
    with pytest.raises(InvalidDataError) as raised:
        read_taskset([str(p) for p in paths], dropna=True, task_column=None, discretize="quantile:3")
    assert str(raised.value) == str(expected.value) and "'z' has 290 states" in str(raised.value)
    subjects = pd.concat(text.values(), ignore_index=True).assign(subj=[str(i % 260) for i in range(1200)])
    subjects.to_csv(tmp_path / "subjects.csv", index=False)  # a task column of numbers with 260 values: names
    got = read_taskset([str(tmp_path / "subjects.csv")], dropna=True, task_column="subj", discretize="quantile:3")
    same(got, make_taskset(read_csv_frame(tmp_path / "subjects.csv"), dropna=True, task_column="subj",
                           discretize="quantile:3"))
    both = pd.concat([f.assign(site=name) for name, f in text.items()], ignore_index=True)
    one = tmp_path / "both.csv"
    both.to_csv(one, index=False)
    got = read_taskset([str(one)], dropna=True, task_column="site", discretize="quantile:3")
    same(got, make_taskset(read_csv_frame(one), dropna=True, task_column="site", discretize="quantile:3"))


def test_continuous_files_with_missing_values(tmp_path, capsys, continuous_csvs):
    """Continuous files with an empty cell are continuous tasks with a missing value: refused naming the file
    line (as for discrete files) or, with --dropna, learned as Gaussian networks without the incomplete rows (the
    count warned), the same networks as from the files without those rows. A word for missing values (``nan``,
    ``NA``) is a label: the one-line error names it and what to do, where it used to say only that a column
    looks continuous; discrete files with a continuous column still get that message."""
    frames = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in continuous_csvs]
    holey = frames[1].copy()
    holey.loc[4, "y"] = ""
    paths = [str(tmp_path / "cond0.csv"), str(tmp_path / "cond1.csv")]
    frames[0].to_csv(paths[0], index=False)
    holey.to_csv(paths[1], index=False)
    line = _assert_one_line_error(_run_cli("learn", *paths, "--out", str(tmp_path / "A")))
    assert line == ("mtbn: error: task 'cond1': 1 missing value(s) in column(s) 'y' (1), file lines 6 of "
                    f"'{paths[1]}'; impute them or drop the incomplete rows first (--dropna on the command line; "
                    "DataFrame.dropna() in Python).")
    common = ["--penalty", "0.5", "--restarts", "1", "--joint-restarts", "1"]
    assert main(["learn", *paths, "--dropna", *common, "--out", str(tmp_path / "B")]) == 0
    assert "mtbn: warning: task 'cond1': dropped 1 of 300 rows with a missing value (--dropna)." in (
        capsys.readouterr().err)
    complete = str(tmp_path / "complete" / "cond1.csv")
    os.makedirs(os.path.dirname(complete))
    holey.drop(index=4).to_csv(complete, index=False)
    assert main(["learn", paths[0], complete, *common, "--out", str(tmp_path / "C")]) == 0
    for stem in ("cond0", "cond1"):
        assert (tmp_path / "B" / f"{stem}.gaussian.json").read_text() == (
            tmp_path / "C" / f"{stem}.gaussian.json").read_text()
    for word in ("nan", "NA"):
        holey.loc[4, "y"] = word
        holey.to_csv(paths[1], index=False)
        line = _assert_one_line_error(_run_cli("learn", *paths, "--dropna", "--out", str(tmp_path / "D")))
        assert line.startswith(f"mtbn: error: task 'cond1', column 'y', file line 6: '{word}' is not a number; "
                               f"the files hold numbers but for 1 cell(s) of '{word}', so they were read as discrete")
    frames[0].assign(kind=["a", "b", "c"] * 100).to_csv(paths[0], index=False)  # a column of labels: discrete
    line = _assert_one_line_error(_run_cli("learn", paths[0], "--out", str(tmp_path / "E")))
    assert "looks continuous; discretise it first" in line
    counts = pd.DataFrame({"a": [str(i % 97) for i in range(300)], "c": [str(i % 89) for i in range(300)]})
    counts.loc[4, "a"] = "NA"  # whole numbers: no kind of data would take them without the word either
    counts.to_csv(paths[0], index=False)
    line = _assert_one_line_error(_run_cli("learn", paths[0], "--out", str(tmp_path / "F")))
    assert line.startswith("mtbn: error: task 'cond0', column 'c': a numeric column with 89 distinct values")
    both = pd.concat([f.assign(site=str(t)) for t, f in enumerate(frames)], ignore_index=True)
    both.loc[4, "y"] = "NA"
    both.to_csv(paths[0], index=False)  # one file split by a column: never a kind of data's, so no word blamed
    line = _assert_one_line_error(_run_cli("learn", paths[0], "--task-column", "site", "--out", str(tmp_path / "G")))
    assert "looks continuous; discretise it first" in line
