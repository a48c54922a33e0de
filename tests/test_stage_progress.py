"""Progress inside long stages (issue 29, case 9): every counted stage ticks once per job, reading included."""

import os

import numpy as np
import pytest

from mtbn.benchmarks import make_problem
from mtbn.data import read_csv
from mtbn.learn import learn_structures
from mtbn.networks import sample
from mtbn.progress import Reporter

KW = dict(cv=2, penalty_grid=(0.0, 0.9, 0.999), n_restarts=1, n_joint_restarts=0, random_state=0,
          penalty_search="grid")


class FakeBar:
    """Records what a tqdm bar is given and how far it is moved."""

    made = []

    def __init__(self, **kwargs):
        self.kwargs, self.n, self.updates, self.closed = kwargs, 0, 0, False
        FakeBar.made.append(self)

    def update(self, n=1):
        self.n += n
        self.updates += 1

    def close(self):
        self.closed = True


@pytest.fixture
def bars(monkeypatch):
    import tqdm.auto

    FakeBar.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", FakeBar)
    return FakeBar.made


def _tasks(k=2, n=150):
    rng = np.random.default_rng(1)
    nets = make_problem("sachs", n_tasks=k, random_state=rng)
    return {f"t{t}": sample(net, n, random_state=rng).to_dataframe() for t, net in enumerate(nets)}


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_every_counted_stage_of_learn_ticks_once_per_job(bars, n_jobs):
    lines = []
    res = learn_structures(_tasks(), progress=Reporter(callback=lines.append, bars=True), n_jobs=n_jobs, **KW)
    grid = [b for b in bars if b.kwargs["desc"] == "penalty grid x folds"]
    assert "penalty grid x folds: 6 searches" in lines  # 3 points x 2 folds
    # one job per search in one process; with two workers, one job per fold (two folds divide evenly between
    # them: mtbn.learn.grid.grid_jobs), each ticking the searches it ran
    assert len(grid) == 1 and grid[0].kwargs["total"] == 6 and grid[0].n == 6
    assert grid[0].updates == (6 if n_jobs == 1 else 2)
    # the start searches of both folds (2 single-task, 1 identical-structure each) and the final search's
    # single-task searches: one bar, ticked per search; then the final search's three chains, one tick each
    chains = [("multitask search chains", 3)] if res.penalty > 0 else []
    assert [(b.kwargs["desc"], b.n) for b in bars if b is not grid[0]] == \
        [("single-task and identical-structure searches", 8)] + chains
    assert all(b.closed and b.n == b.kwargs["total"] for b in bars)
    assert res.penalty in KW["penalty_grid"]


def test_each_round_of_the_refined_search_is_a_counted_stage(bars):
    lines = []
    kw = dict(KW, penalty_search="refine", penalty_grid=(0.0, 0.9, 0.99, 0.999, 0.9999))
    res = learn_structures(_tasks(), progress=Reporter(callback=lines.append, bars=True), **kw)
    rounds = [b for b in bars if b.kwargs["desc"] == "penalty grid x folds"]
    # first round: points 0, 2, 4 of 5 on 2 folds; later rounds: the points next to the best and the chosen
    assert rounds[0].kwargs["total"] == 6 and lines.count("penalty grid x folds: 6 searches") == 1
    assert sum(b.kwargs["total"] for b in rounds) == 2 * len(res.penalty_path)
    assert all(b.closed and b.n == b.kwargs["total"] for b in bars)


def test_results_and_ticks_do_not_depend_on_n_jobs(bars):
    one = learn_structures(_tasks(), progress=Reporter(bars=True), n_jobs=1, **KW)
    two = learn_structures(_tasks(), progress=Reporter(bars=True), n_jobs=2, **KW)
    assert [g.parents for g in one.graphs] == [g.parents for g in two.graphs]
    assert [p.validation_log_likelihood for p in one.penalty_path] == [p.validation_log_likelihood
                                                                         for p in two.penalty_path]
    assert [(b.kwargs["desc"], b.n) for b in bars[:len(bars) // 2]] == [(b.kwargs["desc"], b.n)
                                                                          for b in bars[len(bars) // 2:]]


def test_with_two_folds_per_worker_a_folds_starts_and_first_round_are_one_job(bars):
    """cv=4 on 2 workers: each fold's start searches and its first grid round run in one job (one stage with the
    final search's start searches); the same results as in one process, where they are two stages."""
    kw = dict(KW, cv=4)
    one = learn_structures(_tasks(), n_jobs=1, **kw)
    lines = []
    two = learn_structures(_tasks(), progress=Reporter(callback=lines.append, bars=True), n_jobs=2, **kw)
    assert [g.parents for g in one.graphs] == [g.parents for g in two.graphs] and one.penalty == two.penalty
    assert [p.validation_log_likelihood for p in one.penalty_path] == [p.validation_log_likelihood
                                                                         for p in two.penalty_path]
    assert one.log_score == two.log_score
    # 4 folds x (3 points + 2 single-task + 1 identical-structure search) + the final search's 2 single-task and
    # its identical-structure search; a tick per job: 3 folds and a single-task search in the workers, then this
    # process's work (the last fold, the other single-task search and the identical-structure search)
    fused = [b for b in bars if b.kwargs["desc"] == "starts and the first penalty round of 4 folds"]
    assert "starts and the first penalty round of 4 folds: 27 searches" in lines
    assert len(fused) == 1 and fused[0].n == 27 and fused[0].updates == 3 + 1 + 1
    assert not any(line.startswith("penalty grid x folds") for line in lines)  # the whole grid was the first round


def test_a_terminal_without_a_size_still_gets_a_bar(bars, monkeypatch):
    # script -c from a program, docker exec -t: the pseudo-terminal reports 0 x 0, and tqdm then draws nothing
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((0, 0)))
    with Reporter(bars=True).stage("replicates", 3, "replicate") as tick:
        tick()
    assert bars[0].kwargs["ncols"] > 0 and bars[0].kwargs["nrows"] > 0
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((120, 40)))
    with Reporter(bars=True).stage("replicates", 3, "replicate") as tick:
        tick()
    assert bars[1].kwargs.get("dynamic_ncols") and "ncols" not in bars[1].kwargs


def test_reading_a_csv_in_chunks_reports_its_progress_and_the_same_data(bars, tmp_path):
    df = _tasks(k=1, n=100)["t0"]
    path = tmp_path / "north.csv"
    df.to_csv(path, index=False)
    lines = []
    chunked = read_csv(path, progress=Reporter(callback=lines.append, bars=True), chunksize=7)
    whole = read_csv(path)
    size = os.path.getsize(path)
    assert lines[0] == f"reading north.csv: {size / 1000:.1f} kB"
    assert lines[1] == f"coding north: 100 rows x {df.shape[1]} columns"
    (bar,) = bars
    assert bar.kwargs["unit"] == "B" and bar.kwargs["total"] == size
    assert bar.updates == 16 and bar.n == size  # 100 rows in chunks of 7: one tick per chunk, one at the end
    assert whole.names == chunked.names and whole.states == chunked.states and whole.kinds == chunked.kinds
    assert np.array_equal(whole.codes, chunked.codes)
    assert whole.to_dataframe().equals(chunked.to_dataframe())
    # a plain callable gets the same lines
    got = []
    read_csv(path, progress=got.append, chunksize=7)
    assert got == lines


def test_with_worker_processes_this_process_searches_the_last_fold_itself(tmp_path):
    """cv=4 on 2 workers, the refined grid: in the first round this process searches the last fold (its starts and
    first points), half of the final search's single-task searches and its identical-structure search, in the
    later rounds the last fold's points, and one of the final search's chains, while the workers search the
    others (traced: which process ran each job); the answers are those of one process."""
    import json

    from mtbn.engine import tracing

    kw = dict(KW, cv=4, penalty_search="refine", penalty_grid=(0.0, 0.5, 0.9, 0.99, 0.999), parameter_sharing=None)
    one = learn_structures(_tasks(), n_jobs=1, **kw)
    path = tmp_path / "trace.jsonl"
    with tracing(str(path)):
        two = learn_structures(_tasks(), n_jobs=2, **kw)
    assert [g.parents for g in one.graphs] == [g.parents for g in two.graphs] and one.penalty == two.penalty
    assert [(p.penalty, p.validation_log_likelihood) for p in one.penalty_path] == \
        [(p.penalty, p.validation_log_likelihood) for p in two.penalty_path]
    assert one.log_score == two.log_score
    sections = [json.loads(line) for line in path.read_text().splitlines()]
    rounds = [s for s in sections if s["section"] in ("call_function", "run_penalties")]
    assert rounds[0]["section"] == "call_function" and len(rounds) >= 2  # the fused first round, then the grid's
    for section in rounds:
        jobs = sorted(section["jobs"], key=lambda j: j["index"])
        assert [j["pid"] == os.getpid() for j in jobs] == [False] * (len(jobs) - 1) + [True]
        assert jobs[-1]["sent"] == jobs[-1]["received"] == 0 and all(j["sent"] > 0 for j in jobs[:-1])
    # the first round: 3 folds and one of the final search's 2 single-task searches sent; this process's fold, the
    # other single-task search and the final search's identical-structure search (sizes: searches per job)
    assert [j["size"] for j in sorted(rounds[0]["jobs"], key=lambda j: j["index"])] == [6, 6, 6, 1, 6 + 1 + 1]
    # the final search's chains: one per process, this process's first
    (chains,) = [s for s in sections if s["section"] == "_chains"]  # penalty 0.5: a joint search
    jobs = sorted(chains["jobs"], key=lambda j: j["index"])
    assert [j["size"] for j in jobs] == [1, 1, 1] and [j["pid"] == os.getpid() for j in jobs] == [False] * 2 + [True]


def test_single_task_learning_searches_a_share_of_the_tasks_in_this_process(tmp_path, bars):
    """prior="none" on 5 tasks with 2 workers: a longest-first split among the 2 workers and this process gives
    this process 2 of the 5 searches (5 equal searches take 2.5 searches' time, not 3); the same answers and the
    same ticks as in one process."""
    import json

    from mtbn.engine import tracing, usable_cores

    if usable_cores() < 2:
        pytest.skip("needs 2 cores for worker processes")
    tasks = _tasks(k=5)
    one = learn_structures(tasks, prior="none", n_restarts=2, n_jobs=1, progress=Reporter(bars=True))
    path = tmp_path / "trace.jsonl"
    with tracing(str(path)):
        two = learn_structures(tasks, prior="none", n_restarts=2, n_jobs=2, progress=Reporter(bars=True))
    assert [g.parents for g in one.graphs] == [g.parents for g in two.graphs]
    assert [r.log_score for r in one.single_task] == [r.log_score for r in two.single_task]
    assert [(b.kwargs["desc"], b.n) for b in bars[:len(bars) // 2]] == [(b.kwargs["desc"], b.n)
                                                                          for b in bars[len(bars) // 2:]]
    (section,) = [json.loads(line) for line in path.read_text().splitlines()]
    jobs = sorted(section["jobs"], key=lambda j: j["index"])
    assert [j["size"] for j in jobs] == [1, 1, 1, 2]  # 3 searches sent, 2 here (one tick for both)
    assert [j["pid"] == os.getpid() for j in jobs] == [False, False, False, True]
    assert jobs[-1]["sent"] == jobs[-1]["received"] == 0 and all(j["sent"] > 0 for j in jobs[:-1])
