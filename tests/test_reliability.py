"""Regression tests for the reliability defects of issue 11."""

import pandas as pd
import pytest

from mtbn.cli import main
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.learn import learn_structure, learn_structures
from mtbn.relatedness import cluster_tasks, direct_relatedness, indirect_relatedness, select_tasks


def _two_tasks():
    a = pd.DataFrame({"x": list("ababbaab" * 4), "y": list("ccddcdcd" * 4)})
    return {"t1": a, "t2": a.iloc[::-1].reset_index(drop=True)}


def test_a_single_variable_task_learns_an_empty_graph(tmp_path, capsys):
    one = pd.DataFrame({"x": list("ababbaab")})
    assert learn_structure(one).graph.n_edges == 0
    res = learn_structures({"t1": one, "t2": one.copy()}, cv=2, n_restarts=3, force_transfer=True)
    assert [g.n_edges for g in res.graphs] == [0, 0]
    path = tmp_path / "one.csv"
    one.to_csv(path, index=False)
    assert main(["learn", "--prior", "none", "--out", str(tmp_path / "out"), str(path)]) == 0
    assert (tmp_path / "out" / "one.edges.csv").is_file()


@pytest.mark.parametrize("option,value", [("--jobs", "0"), ("--seed", "-5"), ("--jobs", "two")])
@pytest.mark.parametrize("command", ["learn", "relatedness", "select", "cluster"])
def test_bad_jobs_or_seed_is_a_one_line_error(tmp_path, capsys, command, option, value):
    paths = []
    for name, df in _two_tasks().items():
        paths.append(str(tmp_path / f"{name}.csv"))
        df.to_csv(paths[-1], index=False)
    extra = ["--principal", "t1"] if command == "select" else []
    with pytest.raises(SystemExit) as exc:
        main([command, "--out", str(tmp_path / "o"), option, value, *extra, *paths])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mtbn {command}: error:") and option in err[0]
    assert not (tmp_path / "o").exists()


def test_bench_bad_jobs_is_refused_before_anything_is_written(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "alarm", "--out", str(tmp_path / "b"), "--jobs", "0"])
    assert exc.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("kw,match", [(dict(n_jobs=0), "n_jobs"), (dict(random_state=-5), "random_state"),
                                      (dict(n_jobs=True), "n_jobs")])
def test_api_refuses_bad_jobs_and_seeds(kw, match):
    tasks = _two_tasks()
    for call in (lambda: learn_structures(tasks, **kw),
                 lambda: indirect_relatedness(tasks, **kw),
                 lambda: select_tasks(tasks, "t1", **kw),
                 lambda: cluster_tasks(tasks, **kw)):
        with pytest.raises(InvalidParameterError, match=match):
            call()
    if "random_state" in kw:
        with pytest.raises(InvalidParameterError, match=match):
            direct_relatedness(tasks, **kw)


def test_names_and_labels_bif_cannot_hold_are_learned_and_written(tmp_path, capsys):
    import json

    from mtbn.networks import read_network

    path = tmp_path / "wide.csv"
    rows = ['age (years),"smokes; daily", flag']
    for i in range(40):
        rows.append(f'{"young" if i % 3 else "old"},"{"no, false" if i % 2 else "yes"}",{" a" if i % 5 else "b "}')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["learn", "--prior", "none", "--restarts", "0", "--out", str(out), str(path)]) == 0
    capsys.readouterr()
    assert not (out / "wide.bif").exists()  # BIF readers would change these names: XMLBIF only
    net = read_network(out / "wide.bifxml")
    assert net.names == ("age (years)", "smokes; daily", "flag")  # header names are stripped; labels are not
    assert set(net.states[1]) == {"no, false", "yes"} and set(net.states[2]) == {" a", "b "}
    summary = json.loads((out / "summary.json").read_text())
    edges = {tuple(e) for e in summary["tasks"]["wide"]["edges"]}
    assert set(net.edges) == edges


def test_unwritable_out_is_refused_before_learning(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _two_tasks()["t1"].to_csv(path, index=False)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out in (blocker, blocker / "sub"):
        assert main(["learn", "--out", str(out), str(path)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--out" in err[0]


def test_numeric_columns_get_the_same_rule_in_the_api_and_csv(tmp_path, capsys):
    from mtbn.data import read_csv
    from mtbn.exceptions import InvalidDataError

    df = pd.DataFrame({"age": list(range(98)) * 2, "b": list("ab") * 98})
    with pytest.raises(InvalidDataError, match="'age'.*98 distinct values.*discretise"):
        learn_structure(df)
    path = tmp_path / "ages.csv"
    df.to_csv(path, index=False)
    with pytest.raises(InvalidDataError, match="'age'.*98 distinct values.*discretise"):
        read_csv(path)
    assert main(["learn", "--prior", "none", "--out", str(tmp_path / "o"), str(path)]) == 2
    assert "98 distinct values" in capsys.readouterr().err
    # Few distinct numbers are state labels, in both.
    small = pd.DataFrame({"n": [1, 2, 3, 1] * 5, "b": list("abab") * 5})
    assert learn_structure(small).graph.n_edges >= 0
    small.to_csv(tmp_path / "small.csv", index=False)
    assert read_csv(tmp_path / "small.csv").states[0] == ("1", "2", "3")


@pytest.mark.parametrize("sep,word", [(";", "semicolons"), ("\t", "tabs")])
def test_a_file_separated_otherwise_gets_a_hint(tmp_path, capsys, sep, word):
    path = tmp_path / "semi.csv"
    path.write_text(f"a{sep}b\nx{sep}y\ny{sep}x\n", encoding="utf-8")
    assert main(["learn", "--prior", "none", "--out", str(tmp_path / "o"), str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and word in err[0] and "comma-separated" in err[0]


def test_version(capsys):
    import mtbn

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"mtbn {mtbn.__version__}"


def _rich_task(seed=0, n=60):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.9, x, 1 - x)
    return pd.DataFrame({"x": np.array(["a", "b"])[x], "y": np.array(["c", "d"])[y], "z": ["k"] * n})


def test_a_one_row_task_is_refused_and_a_constant_column_stays_isolated(tmp_path, capsys):
    # A one-row task can neither show a dependence nor be held out: an error naming it, before any work, with
    # the penalty chosen or fixed. A constant column has one state, so as a parent it changes no count and as
    # a child it scores 0: it stays isolated.
    one_row = _rich_task().iloc[:1]
    for penalty in ("auto", 0.5):
        with pytest.raises(InvalidDataError, match="task 'tiny' has 1 row"):
            learn_structures({"big": _rich_task(), "tiny": one_row}, penalty=penalty, n_restarts=3)
    res = learn_structures({"big": _rich_task(), "other": _rich_task(5)}, n_restarts=3, n_joint_restarts=2)
    big = res.graphs[0]
    assert ("x", "y") in big.edges(names=True) or ("y", "x") in big.edges(names=True)
    assert not [e for e in big.edges(names=True) if "z" in e]
    one_row.to_csv(tmp_path / "tiny.csv", index=False)
    _rich_task().to_csv(tmp_path / "big.csv", index=False)
    out = tmp_path / "out"
    capsys.readouterr()  # only what the command prints
    assert main(["learn", str(tmp_path / "big.csv"), str(tmp_path / "tiny.csv"), "--out", str(out),
                 "--restarts", "2", "--joint-restarts", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "mtbn: error: task 'tiny' has 1 row (n_samples=1); learning a structure needs at least 2 rows per task."
    assert not out.exists()


def test_one_task_with_penalty_auto_is_the_single_task_learner():
    task = {"only": _rich_task(3)}
    res = learn_structures(task, n_restarts=3)
    ref = learn_structures(task, prior="none", n_restarts=3)
    assert res.penalty == 0.0 and res.penalty_path == []
    assert res.transfer["status"] == "none" and "one task" in res.transfer["message"]
    assert sorted(res.graphs[0].edges(names=True)) == sorted(ref.graphs[0].edges(names=True))


@pytest.mark.slow
def test_more_folds_than_rows_is_refused_and_small_folds_warn(tmp_path, capsys):
    import numpy as np

    from mtbn.exceptions import DataWarning
    from mtbn.heldout import kfold_splits

    folds = kfold_splits(3, 5, np.random.default_rng(0))  # the splitter itself still copes
    held = np.concatenate([h for _, h in folds])
    assert sorted(held.tolist()) == [0, 1, 2]  # every row held out exactly once
    tasks = {"a": _rich_task(1), "b": _rich_task(2, n=3)}
    with pytest.raises(InvalidParameterError, match=r"cv=5 folds need at least 5 rows in every task; task 'b' has 3"):
        learn_structures(tasks, n_restarts=2, n_joint_restarts=1)
    learn_structures(tasks, penalty=0.5, n_restarts=2, n_joint_restarts=1)  # a fixed penalty needs no folds
    with pytest.warns(DataWarning, match=r"task 'b' has 3 rows: 3-fold cross-validation holds out about 1 row"):
        res = learn_structures(tasks, cv=3, n_restarts=2, n_joint_restarts=1)
    assert res.transfer["folds"] == 3
    # The command line: --cv above the rows is refused before any work; a 5-row task under 5 folds warns.
    _rich_task(1).to_csv(tmp_path / "a.csv", index=False)
    _rich_task(2, n=200).to_csv(tmp_path / "b.csv", index=False)
    _rich_task(3, n=5).to_csv(tmp_path / "five.csv", index=False)
    args = ["--restarts", "0", "--joint-restarts", "0"]
    capsys.readouterr()  # only what the command prints
    assert main(["learn", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--cv", "1000", "--out",
                 str(tmp_path / "o1"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mtbn: error: --cv 1000 folds need at least 1000 rows in every task; task 'a' has 60 ")
    assert not (tmp_path / "o1").exists()
    assert main(["learn", str(tmp_path / "a.csv"), str(tmp_path / "five.csv"), "--out", str(tmp_path / "o2"),
                 *args]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mtbn: warning: task 'five' has 5 rows: 5-fold cross-validation holds out about 1 row(s) per "
                   "fold, too few to choose the penalty reliably; give more rows, fewer folds (--cv) or a fixed "
                   "penalty.",
                   "mtbn: warning: 1 column(s) take a single value in every row of every task ('z'; e.g. 'z' is "
                   "always 'k'): each is learned as an isolated node; drop them, or check the files."]


@pytest.mark.parametrize("argv,expected", [
    (["bench", "alarm", "--pdel", "2"], "--pdel must be in [0, 1]"),
    (["bench", "alarm", "--train", "10", "--validation", "50", "--methods", "mtl-paper"],
     "--validation 50 leaves no training rows (--train 10)"),
])
def test_library_messages_name_the_cli_option_typed(tmp_path, capsys, argv, expected):
    assert main(argv + ["--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and expected in err and "_" not in err.split("error: ")[1].split()[0]
    assert not (tmp_path / "b").exists()


def test_relatedness_fold_message_and_missing_cells_name_file_lines(tmp_path, capsys):
    _rich_task(n=4).to_csv(tmp_path / "a.csv", index=False)
    _rich_task(n=8).to_csv(tmp_path / "b.csv", index=False)
    argv = ["relatedness", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--measure", "indirect",
            "--folds", "5", "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    assert "fewer than --folds 5" in capsys.readouterr().err
    (tmp_path / "holes.csv").write_text("x,y\na,c\na,\nb,d\n,c\n")
    assert main(["learn", str(tmp_path / "holes.csv"), "--out", str(tmp_path / "h")]) == 2
    err = capsys.readouterr().err
    assert "file lines 3, 5 of" in err and "--dropna" in err and "--dropna True" not in err


def _write_pair(tmp_path, n=40):
    paths = []
    for i in (1, 2):
        p = tmp_path / f"t{i}.csv"
        _rich_task(i, n=n).to_csv(p, index=False)
        paths.append(str(p))
    return paths


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".partial")]


def test_a_failed_write_leaves_no_output_and_keeps_the_previous_result(tmp_path, capsys, monkeypatch):
    csvs = _write_pair(tmp_path)
    out = tmp_path / "out"
    fast = ["--restarts", "2", "--joint-restarts", "1", "--prior", "none"]
    assert main(["learn", *csvs, "--out", str(out), *fast]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    from mtbn.cli import files

    real = files.write_task_outputs

    def fail_on_second(folder, name, dag, network, *more):
        if name == "t2":
            raise OSError("disk full (simulated)")
        real(folder, name, dag, network, *more)

    monkeypatch.setattr(files, "write_task_outputs", fail_on_second)
    assert main(["learn", *csvs, "--out", str(out), *fast, "--seed", "7", "--overwrite"]) == 2
    assert "disk full" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert main(["learn", *csvs, "--out", str(tmp_path / "new"), *fast]) == 2
    assert not (tmp_path / "new").exists() and _leftovers(tmp_path) == []


def test_a_folder_with_other_files_is_refused_and_kept(tmp_path, capsys):
    import stat

    csvs = _write_pair(tmp_path)
    out = tmp_path / "results"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for extra in ([], ["--overwrite"]):  # not even --overwrite replaces files mtbn did not write
        assert main(["learn", *csvs, "--out", str(out), "--restarts", "2", "--prior", "none", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert err == (f"mtbn: error: --out {str(out)!r} holds files mtbn did not write (e.g. 'notes.txt'); give a "
                       "new or empty folder")
        assert [p.name for p in out.iterdir()] == ["notes.txt"] and (out / "notes.txt").read_text() == "mine"
    fresh = tmp_path / "fresh" / "deeper"
    assert main(["learn", *csvs, "--out", str(fresh), "--restarts", "2", "--prior", "none"]) == 0
    # the folder gets the mode mkdir would give it (the umask decides, not mkdtemp's 0o700)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o777 & ~os_umask()
    assert _leftovers(tmp_path) == [] and _leftovers(tmp_path / "fresh") == []


def os_umask():
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def _children(pid):
    import os

    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.isdir("/proc"), reason="reads /proc to find worker processes")
@pytest.mark.parametrize("sig,code,word", [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_a_signal_stops_the_run_its_workers_and_leaves_nothing(tmp_path, sig, code, word):
    import os
    import signal
    import subprocess
    import sys
    import time

    import numpy as np

    rng = np.random.default_rng(0)
    csvs = []
    for t in range(3):
        n, m = 800, 14
        x = np.zeros((n, m), dtype=int)
        x[:, 0] = rng.integers(0, 3, n)
        for j in range(1, m):
            x[:, j] = np.where(rng.random(n) < 0.7, (x[:, j - 1] + x[:, max(0, j - 2)]) % 3, rng.integers(0, 3, n))
        path = tmp_path / f"t{t}.csv"
        pd.DataFrame(np.array(list("abc"))[x], columns=[f"v{j}" for j in range(m)]).to_csv(path, index=False)
        csvs.append(str(path))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "mtbn", "learn", *csvs, "--out", str(out), "--jobs", "2"],
                            stderr=subprocess.PIPE, text=True)
    seen = set()
    while proc.poll() is None and len(_children(proc.pid)) < 2:  # wait for the worker processes
        time.sleep(0.1)
    seen |= set(_children(proc.pid))
    assert proc.poll() is None, "the run ended before its workers started; make the data larger"
    proc.send_signal(getattr(signal, sig))
    assert proc.wait() == code
    assert proc.stderr.read().strip() == f"mtbn: {word}"
    deadline = time.monotonic() + 60  # not a speed claim: only waits for the kernel to reap them
    while any(os.path.exists(f"/proc/{k}") for k in seen) and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = [k for k in seen if os.path.exists(f"/proc/{k}") and open(f"/proc/{k}/stat").read().split()[2] != "Z"]
    assert alive == []
    assert not out.exists() and _leftovers(tmp_path) == []


@pytest.mark.slow
def test_300_variables_by_300_rows_stay_under_the_stated_memory_bound():
    # docs/errors.md states the bound: single-task learning of 300 three-state
    # variables on 300 rows peaks under 200 MB of traced allocations (numpy's
    # included); measured about 53 MB. Count tables hold observed configurations only.
    import tracemalloc

    import numpy as np

    rng = np.random.default_rng(0)
    n, m = 300, 300
    x = np.zeros((n, m), dtype=int)
    x[:, 0] = rng.integers(0, 3, n)
    for j in range(1, m):
        x[:, j] = np.where(rng.random(n) < 0.6, x[:, rng.integers(0, j)], rng.integers(0, 3, n))
    frame = pd.DataFrame(np.array(list("abc"))[x], columns=[f"v{j}" for j in range(m)])
    tracemalloc.start()
    try:
        res = learn_structure(frame, n_restarts=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.graph.n_edges > 0
    assert peak < 200e6, f"peak {peak / 1e6:.0f} MB"


def test_no_methods_and_too_many_selected_tasks_are_errors(tmp_path, capsys):
    assert main(["bench", "alarm", "--methods", ",", "--out", str(tmp_path / "b")]) == 2
    assert "--methods must name at least one method" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
    paths = _write_pair(tmp_path)
    assert main(["select", *paths, "--principal", "t1", "--n", "5", "--out", str(tmp_path / "s")]) == 2
    assert "--n must be 'auto', 'gap' or an integer in [0, 1]" in capsys.readouterr().err
    with pytest.raises(InvalidParameterError, match=r"n must be .* in \[0, 1\]"):
        select_tasks({"t1": _rich_task(1), "t2": _rich_task(2)}, "t1", n=2)


def test_bench_does_not_claim_plots_without_matplotlib(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    argv = ["bench", "alarm", "--tasks", "2", "--train", "100", "--test-rows", "200", "--trials", "1",
            "--methods", "stl", "--restarts", "0", "--out", str(tmp_path / "b")]
    assert main(argv) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert "no plots: matplotlib is not installed" in last and "and plots" not in last


def test_out_whose_parent_is_not_writable_is_refused_before_learning(tmp_path, capsys):
    import os

    if os.geteuid() == 0:
        pytest.skip("root can write anywhere")
    parent = tmp_path / "locked"
    (parent / "out").mkdir(parents=True)
    parent.chmod(0o555)
    try:
        paths = _write_pair(tmp_path)
        assert main(["learn", *paths, "--out", str(parent / "out"), "--prior", "none"]) == 2
        assert "cannot be created or written" in capsys.readouterr().err
    finally:
        parent.chmod(0o755)


def test_noise_floor_of_one_replicate_is_an_option_error(tmp_path, capsys):
    paths = _write_pair(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["relatedness", *paths, "--measure", "direct", "--noise-floor", "1", "--out", str(tmp_path / "r")])
    assert exc.value.code == 2
    assert "argument --noise-floor: must be 0 (no floor) or a number of replicates >= 2" in capsys.readouterr().err


@pytest.mark.parametrize("sig,code,word", [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_a_signal_whose_exception_a_library_swallows_still_stops_the_run(tmp_path, monkeypatch, capsys, sig, code,
                                                                        word):
    # loky drops exceptions raised in a future's done-callback; the signal must still end the run
    # with its status, and the run must publish nothing.
    import signal

    import mtbn.cli as cli
    from mtbn.cli.files import staged_output

    out = tmp_path / "out"

    def run(args):
        with staged_output(str(out), "learn") as stage:
            (tmp_path / "started").write_text("")
            try:
                signal.raise_signal(getattr(signal, sig))
            except BaseException:  # what a library that swallows it does
                pass
            with open(f"{stage}/summary.json", "w") as fh:
                fh.write("{}")
        return 0

    monkeypatch.setattr(cli, "_run", run)
    previous = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert cli.main(["learn", "x.csv", "--out", str(out)]) == code
    assert capsys.readouterr().err.strip() == f"mtbn: {word}"
    assert (tmp_path / "started").exists() and not out.exists() and _leftovers(tmp_path) == []
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == previous  # handlers restored
