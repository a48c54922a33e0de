"""Tests of the ``mtbn learn`` contract and of the command-line help / error handling.

Data: the shipped ASIA network (8 binary variables) sampled with a few
hundred rows per task and written to CSV files; every run uses
``--restarts 0`` so that a learn call takes well under a second. Truths used:
the library's own single-task learner on the same CSV (same seed and
options), the CSV header, pgmpy's independent BIF reader, and parameters
refitted from the CSV with :func:`mtbn.networks.fit_parameters`. Expected
errors are run in a subprocess (``python -m mtbn``) to see exactly what a user
sees on stderr.
"""

import csv
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from mtbn.cli import build_parser, main
from mtbn.data import make_taskset, read_csv
from mtbn.learn import DEFAULT_PENALTY_GRID, learn_structure, learn_structures
from mtbn.messages import text
from mtbn.networks import fit_parameters, read_bif, sample

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ASIA_VARS = ("asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp")


@pytest.fixture(scope="module")
def csvs(tmp_path_factory, asia):
    """Two ASIA task CSVs (300 rows each, different seeds)."""
    folder = tmp_path_factory.mktemp("cli_tasks")
    paths = []
    for seed, stem in enumerate(("north", "south")):
        path = folder / f"{stem}.csv"
        sample(asia, 300, random_state=seed).to_dataframe().to_csv(path, index=False)
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def stl_dir(tmp_path_factory, csvs):
    out = tmp_path_factory.mktemp("learn_none") / "out"
    code = main(["learn", "--prior", "none", "--out", str(out), "--restarts", "0", *csvs])
    assert code == 0
    return out


def _run_cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "mtbn", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def _assert_one_line_error(proc):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mtbn: error:"), lines[0]
    return lines[0]


def _read_edges_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        text = fh.read()
    assert text.splitlines()[0] == "source,target"
    rows = list(csv.reader(text.splitlines()[1:]))
    assert all(len(r) == 2 for r in rows), rows
    return [tuple(r) for r in rows]


def _stem(path):
    return os.path.splitext(os.path.basename(path))[0]


# ---------------------------------------------------------------------------
# mtbn learn --prior none
# ---------------------------------------------------------------------------


def test_learn_none_writes_edges_bif_and_summary_per_task(stl_dir, csvs):
    names = sorted(os.listdir(stl_dir))
    expected = sorted([f"{_stem(p)}.{ext}" for p in csvs for ext in ("edges.csv", "bif", "bifxml")]
                      + ["summary.json", ".mtbn-output.json"])
    assert names == expected


def test_learn_edges_csv_has_header_and_real_variable_edges(stl_dir, csvs):
    for path in csvs:
        edges = _read_edges_csv(stl_dir / f"{_stem(path)}.edges.csv")
        assert edges, "ASIA with 300 rows has dependencies to find"
        assert len(set(edges)) == len(edges)
        for u, v in edges:
            assert u in ASIA_VARS and v in ASIA_VARS and u != v


def test_learn_none_graph_equals_single_task_learner(stl_dir, csvs):
    for path in csvs:
        expected = set(learn_structure(read_csv(path), n_restarts=0, random_state=0).graph.edges(names=True))
        assert set(_read_edges_csv(stl_dir / f"{_stem(path)}.edges.csv")) == expected


@pytest.mark.slow
def test_learn_bif_read_by_mtbn_and_pgmpy_with_same_edges(stl_dir, csvs):
    from pgmpy.readwrite import BIFReader

    for path in csvs:
        stem = _stem(path)
        edges = set(_read_edges_csv(stl_dir / f"{stem}.edges.csv"))
        net = read_bif(str(stl_dir / f"{stem}.bif"))
        assert set(net.names) == set(ASIA_VARS)
        assert set(net.edges) == edges
        model = BIFReader(str(stl_dir / f"{stem}.bif")).get_model()
        assert set(model.nodes()) == set(ASIA_VARS)
        assert {(str(u), str(v)) for u, v in model.edges()} == edges


def test_learn_bif_parameters_are_fitted_on_all_rows(stl_dir, csvs):
    path = csvs[0]
    data = read_csv(path)
    net = read_bif(str(stl_dir / f"{_stem(path)}.bif"))
    # Refit the written structure on the CSV (BDeu posterior mean, ess 1) with mtbn's own fitter.
    parents = [tuple(sorted(data.index(net.names[p]) for p in net.parents[net.index(v)])) for v in data.names]
    ref = fit_parameters(parents, data, equivalent_sample_size=1.0)
    for v, name in enumerate(data.names):
        w = net.index(name)
        assert net.states[w] == ref.states[v]
        order = [data.names[p] for p in ref.parents[v]]
        got = net.cpts[w]
        # Put the BIF's parent axes in the refit's order before comparing.
        axes = [[net.names[p] for p in net.parents[w]].index(n) for n in order] + [len(order)]
        np.testing.assert_allclose(np.transpose(got, axes), ref.cpts[v], rtol=0, atol=1e-12)


def _learned(csvs, **options):
    """The library's result on the CLI's input files (the CLI's defaults are the library's)."""
    return learn_structures(make_taskset([read_csv(p) for p in csvs]), n_restarts=0, **options)


def _assert_summary_tasks_equal(summary, res, csvs):
    assert list(summary["tasks"]) == [_stem(p) for p in csvs] == list(res.task_names)
    for t, path in enumerate(csvs):
        info = summary["tasks"][_stem(path)]
        assert [tuple(e) for e in info["edges"]] == list(res.graphs[t].edges(names=True))
        assert info["n_edges"] == res.graphs[t].n_edges == len(info["edges"])
        assert info["score"] == pytest.approx(float(res.task_log_likelihoods[t]), rel=1e-12)
        assert info["n_samples"] == 300


def test_learn_summary_json_has_tasks_seconds_and_options(stl_dir, csvs):
    with open(stl_dir / "summary.json", encoding="utf-8") as fh:
        summary = json.load(fh)
    _assert_summary_tasks_equal(summary, _learned(csvs, prior="none"), csvs)
    for path in csvs:
        info = summary["tasks"][_stem(path)]
        assert {tuple(e) for e in info["edges"]} == set(_read_edges_csv(stl_dir / f"{_stem(path)}.edges.csv"))
        assert math.isfinite(info["score"]) and info["score"] < 0
    assert summary["inputs"] == csvs
    assert "penalty" not in summary and "transfer" not in summary  # --prior none: no multitask choice
    assert isinstance(summary["seconds"], (int, float)) and summary["seconds"] > 0
    opts = summary["options"]
    assert opts["prior"] == "none"
    assert opts["restarts"] == 0
    assert opts["seed"] == 0
    assert opts["out"] == str(stl_dir)
    for key in ("penalty", "reversal", "validation", "ess", "max_parents", "jobs", "dropna"):
        assert key in opts, key


def test_learn_one_state_column_is_not_an_error(tmp_path, asia, capsys):
    df = sample(asia, 200, random_state=4).to_dataframe()
    df["constant"] = "always"
    path = tmp_path / "const.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["learn", "--prior", "none", "--out", str(out), "--restarts", "0", str(path)]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "single value" in line]
    assert warned == ["mtbn: warning: 1 column(s) take a single value in every row of every task ('constant'; e.g. "
                      "'constant' is always 'always'): each is learned as an isolated node; drop them, or check "
                      "the files."]
    net = read_bif(str(out / "const.bif"))
    assert net.states[net.index("constant")] == ("always",)
    from pgmpy.readwrite import BIFReader

    model = BIFReader(str(out / "const.bif")).get_model()
    assert "constant" in model.nodes() and {(str(u), str(v)) for u, v in model.edges()} == set(net.edges)
    for u, v in _read_edges_csv(out / "const.edges.csv"):
        assert u in df.columns and v in df.columns


# ---------------------------------------------------------------------------
# mtbn learn with a multitask prior
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_learn_paired_fixed_penalty_records_penalty(tmp_path, csvs):
    out = tmp_path / "out"
    assert main(["learn", "--prior", "paired", "--penalty", "0.9", "--out", str(out), "--restarts", "0", *csvs]) == 0
    with open(out / "summary.json", encoding="utf-8") as fh:
        summary = json.load(fh)
    assert summary["penalty"] == 0.9
    assert summary["penalty_path"] == []  # a given penalty has no selection path
    assert summary["options"]["prior"] == "paired"
    res = _learned(csvs, prior="paired", penalty=0.9)
    _assert_summary_tasks_equal(summary, res, csvs)
    assert summary["log_score"] == pytest.approx(res.log_score, rel=1e-12)
    for t, path in enumerate(csvs):
        stem = _stem(path)
        edges = _read_edges_csv(out / f"{stem}.edges.csv")
        assert edges == list(res.graphs[t].edges(names=True))
        assert set(read_bif(str(out / f"{stem}.bif")).edges) == set(edges)


@pytest.mark.slow
def test_learn_auto_penalty_records_the_path(tmp_path, csvs):
    out = tmp_path / "out"
    assert main(["learn", "--penalty", "auto", "--penalty-search", "grid", "--out", str(out), "--restarts", "0",
                 *csvs]) == 0
    with open(out / "summary.json", encoding="utf-8") as fh:
        summary = json.load(fh)
    path = summary["penalty_path"]
    assert [p["penalty"] for p in path] == sorted(DEFAULT_PENALTY_GRID)
    lls = [p["validation_log_likelihood"] for p in path]
    assert summary["penalty"] in DEFAULT_PENALTY_GRID
    # The one-SE rule: the first grid point within its paired SE of the best;
    # the guard may then return penalty 0.
    first = next(p for p in path if p["validation_log_likelihood"] >= max(lls) - p["se_vs_best"] - 1e-12)
    transfer = summary["transfer"]
    assert transfer["selected_penalty"] == first["penalty"]
    expected = first["penalty"] if transfer["status"] == "accepted" else 0.0
    assert summary["penalty"] == expected
    assert all(p["validation_se"] > 0 for p in path)
    for p in path:
        assert len(p["n_edges"]) == len(csvs)
    for c in csvs:
        edges = _read_edges_csv(out / f"{_stem(c)}.edges.csv")
        assert [tuple(e) for e in summary["tasks"][_stem(c)]["edges"]] == edges
        assert set(read_bif(str(out / f"{_stem(c)}.bif")).edges) == set(edges)


# ---------------------------------------------------------------------------
# Expected errors: exit 2, one line, no traceback
# ---------------------------------------------------------------------------


def test_learn_empty_cell_names_the_column(tmp_path, asia):
    df = sample(asia, 50, random_state=1).to_dataframe()
    df.loc[7, "bronc"] = ""
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    line = _assert_one_line_error(_run_cli("learn", "--prior", "none", "--restarts", "0", "--out",
                                           str(tmp_path / "out"), str(path)))
    # row 7 of the DataFrame is line 9 of the file (after the header)
    assert line == "mtbn: error: " + text("missing-values", task="holes", count=1, columns="'bronc' (1)",
                                          where=f"file lines 9 of {str(path)!r}")


def test_learn_missing_file_is_a_one_line_error(tmp_path):
    missing = tmp_path / "nowhere.csv"
    line = _assert_one_line_error(_run_cli("learn", "--prior", "none", "--restarts", "0", "--out",
                                           str(tmp_path / "out"), str(missing)))
    assert line == "mtbn: error: " + text("cannot-read-file", path=str(missing), reason="No such file or directory")


@pytest.mark.parametrize("penalty, code", [("1.5", "option-unit-range"), ("-0.1", "option-unit-range"),
                                           ("lots", "option-unit-number")])
def test_learn_penalty_outside_unit_interval_exits_2(tmp_path, csvs, penalty, code):
    proc = _run_cli("learn", "--penalty", penalty, "--restarts", "0", "--out", str(tmp_path / "out"), csvs[0])
    assert proc.returncode == 2
    assert proc.stderr == (f"mtbn learn: error: argument --penalty: {text(code, value=penalty)} "
                           "(see 'mtbn learn --help')\n")
    assert not (tmp_path / "out").exists()


def test_learn_duplicate_column_names_is_a_one_line_error(tmp_path):
    path = tmp_path / "dupes.csv"
    path.write_text("a,b,a\nx,y,z\ny,y,x\nx,x,x\n", encoding="utf-8")
    line = _assert_one_line_error(_run_cli("learn", "--prior", "none", "--restarts", "0", "--out",
                                           str(tmp_path / "out"), str(path)))
    assert line == "mtbn: error: " + text("duplicate-column", task="dupes", value="a")


def test_learn_same_stem_in_two_folders_is_a_one_line_error(tmp_path, asia):
    paths = []
    for i, folder in enumerate(("one", "two")):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "site.csv"
        sample(asia, 50, random_state=i).to_dataframe().to_csv(path, index=False)
        paths.append(str(path))
    line = _assert_one_line_error(_run_cli("learn", "--prior", "none", "--restarts", "0", "--out",
                                           str(tmp_path / "out"), *paths))
    assert line == "mtbn: error: " + text("duplicate-task-file", name="site")


def test_learn_non_utf8_csv_is_a_one_line_error(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes(b"\xff\xfe,b\nx,y\nz,y\n")
    line = _assert_one_line_error(_run_cli("learn", "--prior", "none", "--restarts", "0", "--out",
                                           str(tmp_path / "out"), str(path)))
    assert line == "mtbn: error: " + text("not-utf8", task="latin", path=str(path))


# ---------------------------------------------------------------------------
# Help
# ---------------------------------------------------------------------------

#: Options each command is documented to take (besides -h/--help).
DOCUMENTED_OPTIONS = {
    "learn": ["--out", "--prior", "--penalty", "--reversal", "--validation", "--ess", "--seed", "--max-parents",
              "--restarts", "--jobs", "--dropna", "--progress"],
    "demo": ["--trials", "--tasks", "--rows", "--jobs", "--seed", "--out"],
    "bench": ["--tasks", "--pdel", "--train", "--validation", "--trials", "--methods", "--penalty", "--seed",
              "--jobs", "--out", "--test-rows", "--restarts", "--progress", "--no-plots"],
    "relatedness": ["--measure", "--out", "--penalty", "--folds", "--ess", "--seed", "--jobs", "--restarts",
                    "--dropna", "--progress"],
    "select": ["--principal", "--measure", "--n", "--out", "--penalty", "--relatedness-penalty", "--validation",
               "--selection-validation", "--max-tasks", "--ess", "--seed", "--jobs", "--restarts", "--dropna",
               "--progress"],
    "cluster": ["--n", "--out", "--penalty", "--relatedness-penalty", "--validation", "--selection-validation",
                "--max-clusters", "--ess", "--seed", "--jobs", "--restarts", "--dropna", "--progress"],
}


def _subparsers():
    import argparse

    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    raise AssertionError("no subcommands")


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for command in DOCUMENTED_OPTIONS:
        assert command in text, command
    assert set(_subparsers()) == set(DOCUMENTED_OPTIONS)


@pytest.mark.parametrize("command", sorted(DOCUMENTED_OPTIONS))
def test_command_help_mentions_every_option(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    defined = {s for a in _subparsers()[command]._actions for s in a.option_strings if s.startswith("--")}
    defined.discard("--help")
    assert set(DOCUMENTED_OPTIONS[command]) <= defined
    for option in sorted(defined):
        assert option in text, option


def test_help_runs_as_a_module():
    proc = _run_cli("--help")
    assert proc.returncode == 0
    assert "learn" in proc.stdout and proc.stderr == ""


# ---------------------------------------------------------------------------
# The parser is built from the library: its choices and its defaults
# ---------------------------------------------------------------------------


def _defaults(command):
    parser = _subparsers()[command]
    return {a.dest: a.default for a in parser._actions if a.option_strings}


def _signature_defaults(func):
    """The defaults a function applies: its signature's, and for ``**settings`` (task selection and
    clustering) the learner settings' with the groups' own defaults."""
    import inspect

    from mtbn.learn.settings import MULTITASK
    from mtbn.relatedness.learning import GROUP_DEFAULTS

    params = inspect.signature(func).parameters
    out = {name: p.default for name, p in params.items()}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        out = {**MULTITASK.defaults(), **GROUP_DEFAULTS, **out}
    return out


#: command -> [(library function, {CLI option dest: the function's argument})].
LIBRARY_DEFAULTS = {
    "learn": [("mtbn.learn:learn_structures", {
        "prior": "prior", "penalty": "penalty", "reversal": "reversal", "ess": "equivalent_sample_size",
        "max_parents": "max_parents", "start": "start", "cv": "cv", "validation": "validation",
        "force_transfer": "force_transfer", "restarts": "n_restarts", "joint_restarts": "n_joint_restarts",
        "seed": "random_state", "task_column": "task_column", "share_parameters": "parameter_sharing"})],
    "relatedness": [("mtbn.relatedness:direct_relatedness", {"penalty": "penalty", "restarts": "n_restarts",
                                                             "seed": "random_state"}),
                    ("mtbn.relatedness:indirect_relatedness", {"folds": "n_folds", "ess": "equivalent_sample_size"})],
    "select": [("mtbn.relatedness:select_tasks", {
        "n": "n", "selection_validation": "selection_validation", "penalty": "penalty",
        "validation": "validation", "relatedness_penalty": "relatedness_penalty", "ess": "equivalent_sample_size",
        "restarts": "n_restarts", "max_tasks": "max_tasks", "folds": "n_folds", "noise_floor": "noise_floor",
        "seed": "random_state"})],
    "cluster": [("mtbn.relatedness:cluster_tasks", {
        "n": "n_clusters", "selection_validation": "selection_validation", "penalty": "penalty",
        "validation": "validation", "relatedness_penalty": "relatedness_penalty", "ess": "equivalent_sample_size",
        "restarts": "n_restarts", "max_clusters": "max_clusters", "noise_floor": "noise_floor",
        "seed": "random_state"})],
    "bench": [("mtbn.evaluate:run_benchmark", {
        "trials": "n_trials", "seed": "seed", "tasks": "n_tasks", "pdel": "p_del", "train": "n_train",
        "validation": "validation", "test_rows": "n_test", "restarts": "n_restarts", "jobs": "n_jobs",
        "methods": "methods"})],
}


@pytest.mark.parametrize("command", sorted(LIBRARY_DEFAULTS))
def test_cli_defaults_are_the_librarys(command):
    import importlib

    from mtbn.relatedness import select_tasks

    cli = _defaults(command)
    for target, options in LIBRARY_DEFAULTS[command]:
        module, name = target.split(":")
        api = _signature_defaults(getattr(importlib.import_module(module), name))
        for dest, arg in options.items():
            expected = api[arg]
            if arg == "methods":
                expected = ",".join(expected)  # the option is the comma-separated list
            if arg == "noise_floor" and expected is True:
                expected = 10  # True = the noise floor with 10 replicates (mtbn.relatedness.noise_floor)
            assert cli[dest] == expected, (command, dest, arg)
    if command == "select":  # --measure unset: the API's "direct", or the measure of the --from run
        assert cli["measure"] is None and _signature_defaults(select_tasks)["measure"] == "direct"
    # Not compared: --jobs 1 is the API's n_jobs=None (one process); relatedness --noise-floor 10 computes
    # the floor that direct_relatedness leaves out by default (select and cluster compute it too).


def test_choices_come_from_the_library_registries():
    from mtbn.benchmarks import PROBLEMS
    from mtbn.evaluate import METHODS
    from mtbn.graph import REVERSAL_COSTS
    from mtbn.priors import PRIORS
    from mtbn.relatedness import MEASURES

    def choices(command, dest):
        return next(a.choices for a in _subparsers()[command]._actions if a.dest == dest)

    assert choices("learn", "prior") == list(PRIORS) and "none" in PRIORS
    from mtbn.heldout import SEARCHES
    from mtbn.score import SCORES

    assert choices("learn", "score") == list(SCORES) and choices("learn", "penalty_search") == list(SEARCHES)
    assert set(choices("learn", "reversal")) == set(REVERSAL_COSTS)
    for command in ("relatedness", "select"):
        assert choices(command, "measure") == list(MEASURES)
    problem_help = next(a.help for a in _subparsers()["bench"]._actions if a.dest == "problem")
    assert f"the benchmark problem: {', '.join(PROBLEMS)}; or a network file" in problem_help  # no fixed choices
    methods_help = next(a.help for a in _subparsers()["bench"]._actions if a.dest == "methods")
    assert f"methods: {', '.join(METHODS)}, mtl@DELTA " in methods_help


@pytest.mark.parametrize("methods, penalty, expected", [
    ("stl, mtl,", "auto", (["stl", "mtl"], None)),
    ("stl,mtl", "0.5", (["stl", "mtl@0.5"], None)),  # one value: multitask learning at that penalty
    # a list: a sweep, and the grid of the multitask methods that choose their penalty
    ("stl,mtl", "0,0.5", (["stl", "mtl", "mtl@0.0", "mtl@0.5"], [0.0, 0.5])),
    ("stl,sweep,mtl@0.5", "0,0.5", (["stl", "mtl@0.5", "mtl@0.0"], [0.0, 0.5])),
])
def test_bench_methods_and_penalties(methods, penalty, expected):
    from mtbn.cli.bench import bench_methods

    assert bench_methods(methods, penalty) == expected


@pytest.mark.parametrize("penalty, code, value", [("0.5,x", "option-penalty-list-number", "x"),
                                                  ("0.5,2", "option-penalty-list-range", "2")])
def test_bench_penalty_list_errors_name_the_entry(tmp_path, capsys, penalty, code, value):
    assert main(["bench", "sachs", "--penalty", penalty, "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"mtbn: error: {text(code, value=value)}\n"
    assert not (tmp_path / "out").exists()


def test_out_that_is_a_file_is_refused_before_any_work(tmp_path, capsys, csvs):
    target = tmp_path / "taken"
    target.write_text("mine")
    assert main(["learn", "--prior", "none", "--restarts", "0", "--out", str(target), *csvs]) == 2
    assert capsys.readouterr().err == f"mtbn: error: {text('out-is-a-file', out=str(target))}\n"
    assert target.read_text() == "mine"


def test_transfer_per_task_option_reads_auto_on_off():
    from mtbn.cli.parser import build_parser

    parser = build_parser()
    read = [parser.parse_args(["learn", "a.csv", "--out", "o", *extra]).transfer_per_task
            for extra in ([], ["--transfer-per-task"], ["--transfer-per-task", "on"], ["--transfer-per-task", "off"],
                          ["--transfer-per-task", "auto"])]
    assert read == ["auto", True, True, False, "auto"]
    proc = _run_cli("learn", "a.csv", "--out", "o", "--transfer-per-task", "maybe")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr
    assert "--transfer-per-task: must be 'auto', 'on' or 'off'; got 'maybe'" in lines[0]


def test_summary_json_is_strict_json_with_null_for_numbers_json_cannot_hold(tmp_path):
    # A held-out log-likelihood of -inf was written as -Infinity, which strict JSON readers refuse.
    from mtbn.cli.files import write_summary

    write_summary(tmp_path / "s.json", {"a": float("-inf"), "b": [np.float64(1.5), float("nan")],
                                        "c": {"d": np.int64(3), "e": (math.inf, "x")}})
    text = (tmp_path / "s.json").read_text()
    assert json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}")) == {
        "a": None, "b": [1.5, None], "c": {"d": 3, "e": [None, "x"]}}
