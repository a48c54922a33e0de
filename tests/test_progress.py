"""Progress reporting (issue 12): log records in the API, bars or lines on the command line, no prints."""

import logging
import warnings

import pytest

import numpy as np
import pandas as pd

from mtbn.benchmarks import make_problem
from mtbn.cli import main
from mtbn.learn import learn_structures
from mtbn.networks import sample
from mtbn.progress import Reporter

KW = dict(cv=2, penalty_grid=(0.0, 0.9), n_restarts=1, n_joint_restarts=0, random_state=0)


def _tasks(k=2, n=120):
    rng = np.random.default_rng(0)
    nets = make_problem("sachs", n_tasks=k, random_state=rng)
    return {f"t{t}": sample(net, n, random_state=rng).to_dataframe() for t, net in enumerate(nets)}


def test_api_logs_each_stage_and_prints_nothing(caplog, capsys):
    with caplog.at_level(logging.INFO, logger="mtbn"), warnings.catch_warnings(record=True):
        learn_structures(_tasks(), **KW)  # a TransferWarning is the warnings module's, not a print
    messages = [r.getMessage() for r in caplog.records if r.name == "mtbn"]
    # grid (0, 0.9): 2 points x 2 folds = 4 searches
    assert "penalty grid x folds: 4 searches" in messages
    # the start searches of both folds and the final run's single-task searches: one section
    assert messages.count("single-task and identical-structure searches: 8 searches") == 1
    assert any(m.startswith("penalty grid x folds: done in ") for m in messages)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_a_callable_gets_the_same_lines():
    got = []
    learn_structures(_tasks(), progress=got.append, **KW)
    assert "penalty grid x folds: 4 searches" in got and any(m.startswith("multitask search at penalty") for m in got)


def test_bars_are_drawn_on_stderr_for_counted_stages(capsys):
    r = Reporter(bars=True)
    with r.stage("replicates", 3, "replicate") as tick:
        for _ in range(3):
            tick()
    err = capsys.readouterr().err
    assert "replicates:" in err and "0/3" in err  # the bar (cleared when the stage ends: leave=False)
    # one job: no bar, only the log record
    with r.stage("single", 1) as tick:
        tick()
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_cli_progress_writes_one_line_per_stage_without_bars(tmp_path, capsys):
    paths = []
    for name, df in _tasks().items():
        paths.append(str(tmp_path / f"{name}.csv"))
        df.to_csv(paths[-1], index=False)
    assert main(["learn", "--progress", "--cv", "2", "--restarts", "1", "--joint-restarts", "0",
                 "--out", str(tmp_path / "o"), *paths]) == 0
    err = capsys.readouterr().err
    # the refined search's first round: every other point of the default grid (7 of 13) x 2 folds
    assert "penalty grid x folds: 14 searches" in err
    assert "\r" not in err  # not a terminal: lines, no bars
    # without --progress (and not on a terminal): silent
    assert main(["learn", "--cv", "2", "--restarts", "1", "--joint-restarts", "0",
                 "--out", str(tmp_path / "p"), *paths]) == 0
    assert capsys.readouterr().err == ""


def test_bench_reports_trials(tmp_path):
    from mtbn.evaluate import run_benchmark

    got = []
    run_benchmark("sachs", str(tmp_path), n_trials=2, n_tasks=2, n_train=100, n_test=100, methods=("stl",),
                  n_restarts=1, plots=False, progress=got.append)
    assert "sachs trials: 2 trials" in got and sum(" finished in " in m for m in got) == 2
    # each method of each trial says when it is done, so a long trial is not silent (issue 45)
    assert sorted(m.split(" learned")[0] for m in got if " learned in " in m) == ["trial 0: stl", "trial 1: stl"]
    assert isinstance(pd.read_csv(tmp_path / "results.csv"), pd.DataFrame)


def test_progress_true_shows_stages_on_stderr_and_a_wrong_type_is_named(capsys):
    # issue 34: MultitaskStructureLearner(progress=True) raised "'bool' object is not callable"
    from mtbn.estimators import MultitaskStructureLearner
    from mtbn.exceptions import InvalidParameterError
    from mtbn.networks import load_network, sample

    net = load_network("asia")
    tasks = {f"t{i}": sample(net, 100, random_state=i).to_dataframe() for i in range(2)}
    MultitaskStructureLearner(penalty=0.5, n_restarts=0, n_joint_restarts=0, progress=True).fit(tasks)
    err = capsys.readouterr().err
    assert "single-task and identical-structure searches: 17 searches" in err  # 5 folds x 3, 2 on all rows
    assert "multitask search at penalty 0.5 on all rows" in err
    MultitaskStructureLearner(penalty=0.5, n_restarts=0, n_joint_restarts=0, progress=False).fit(tasks)
    assert capsys.readouterr().err == ""
    with pytest.raises(InvalidParameterError, match="progress must be None, True, False, a callable"):
        MultitaskStructureLearner(penalty=0.5, n_restarts=0, progress="yes").fit(tasks)
