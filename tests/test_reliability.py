"""Regression tests for the reliability defects of issue 11."""

import pandas as pd
import pytest

from mtbn.cli import main
from mtbn.exceptions import InvalidParameterError
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

    from mtbn.networks import read_bif

    path = tmp_path / "wide.csv"
    rows = ['age (years),"smokes; daily", flag']
    for i in range(40):
        rows.append(f'{"young" if i % 3 else "old"},"{"no, false" if i % 2 else "yes"}",{" a" if i % 5 else "b "}')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["learn", "--prior", "none", "--restarts", "0", "--out", str(out), str(path)]) == 0
    capsys.readouterr()
    net = read_bif(out / "wide.bif")
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
