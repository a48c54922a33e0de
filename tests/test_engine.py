"""The Dask engine (issue 12): the same results on a Dask cluster as in one process.

Truth: the same calls run with ``n_jobs=1`` in this process. The cluster is
a ``distributed.LocalCluster`` of two worker processes, so every job really
crosses a process boundary (pickled arguments, scattered data, no shared
caches).
"""

import json
import sys
import weakref

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

from mtbn.benchmarks import make_problem  # noqa: E402
from mtbn.bootstrap import bootstrap_structures  # noqa: E402
from mtbn.cli import main  # noqa: E402
from mtbn.engine import Shared, dask_engine  # noqa: E402
from mtbn.evaluate import run_benchmark  # noqa: E402
from mtbn.exceptions import InvalidParameterError  # noqa: E402
from mtbn.learn import learn_structures  # noqa: E402
from mtbn.networks import sample  # noqa: E402
from mtbn.relatedness import indirect_relatedness  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def _tasks(k=3, n=200, seed=0):
    rng = np.random.default_rng(seed)
    nets = make_problem("sachs", n_tasks=k, random_state=rng)
    return {f"t{t}": sample(net, n, random_state=rng).to_dataframe() for t, net in enumerate(nets)}


LEARN = dict(cv=2, penalty_grid=(0.0, 0.9, 0.999), n_restarts=2, n_joint_restarts=1, random_state=3)


def _same_result(a, b):
    assert [g.parents for g in a.graphs] == [g.parents for g in b.graphs]
    assert a.penalty == b.penalty
    assert [p.validation_log_likelihood for p in a.penalty_path] == [p.validation_log_likelihood
                                                                       for p in b.penalty_path]


@pytest.mark.slow
def test_learn_structures_on_a_dask_cluster_equals_one_process(cluster):
    tasks = _tasks()
    local = learn_structures(tasks, n_jobs=1, **LEARN)
    with dask_engine(cluster) as client, distributed.get_task_stream(client) as stream:
        remote = learn_structures(tasks, **LEARN)
    # the (fold, penalty) searches did run on both workers
    assert len(stream.data) >= 2 * 3 and len({t["worker"] for t in stream.data}) == 2
    _same_result(local, remote)


@pytest.mark.slow
def test_bootstrap_and_indirect_measure_on_a_dask_cluster(cluster):
    tasks = _tasks(k=2, n=150, seed=1)
    kw = dict(n_boot=3, penalty=0.9, n_restarts=2, n_joint_restarts=0, random_state=0)
    local = bootstrap_structures(tasks, n_jobs=1, **kw)
    rel_local = indirect_relatedness(tasks, n_folds=3, n_restarts=2, n_jobs=1)
    with dask_engine(cluster):
        remote = bootstrap_structures(tasks, **kw)
        rel_remote = indirect_relatedness(tasks, n_folds=3, n_restarts=2)
    for name in tasks:
        pd.testing.assert_frame_equal(local.strength(name), remote.strength(name))
    pd.testing.assert_frame_equal(rel_local.distance, rel_remote.distance)


@pytest.mark.slow
def test_bench_trials_on_a_dask_cluster(cluster, tmp_path):
    kw = dict(n_trials=2, n_tasks=2, n_train=150, n_test=200, methods=("stl", "mtl@0.9"), n_restarts=2,
              plots=False)
    local, _ = run_benchmark("sachs", str(tmp_path / "local"), n_jobs=1, **kw)
    with dask_engine(cluster):
        remote, _ = run_benchmark("sachs", str(tmp_path / "remote"), n_jobs=2, **kw)
    cols = ["trial", "method", "task", "edit_distance", "cpdag_shd", "kl", "log_likelihood"]
    pd.testing.assert_frame_equal(local[cols].sort_values(cols[:3]).reset_index(drop=True),
                                  remote[cols].sort_values(cols[:3]).reset_index(drop=True))


@pytest.mark.slow
def test_cli_scheduler_option_gives_the_local_result(cluster, tmp_path, capsys):
    paths = []
    for name, df in _tasks(k=2, n=150, seed=2).items():
        paths.append(str(tmp_path / f"{name}.csv"))
        df.to_csv(paths[-1], index=False)
    common = ["learn", "--restarts", "2", "--joint-restarts", "0", "--cv", "2", *paths]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--out", str(tmp_path / "remote"), "--scheduler", cluster.scheduler_address]) == 0
    capsys.readouterr()
    a = json.loads((tmp_path / "local" / "summary.json").read_text())
    b = json.loads((tmp_path / "remote" / "summary.json").read_text())
    assert a["tasks"] == b["tasks"] and a["penalty"] == b["penalty"]


@pytest.mark.slow
def test_unreachable_scheduler_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "a.csv"
    pd.DataFrame({"x": ["a", "b"] * 10, "y": ["c", "d"] * 10}).to_csv(path, index=False)
    code = main(["learn", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "o"), str(path), str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_missing_dask_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(InvalidParameterError, match=r'--scheduler needs dask.distributed.*mtbn\[dask\]'):
        with dask_engine("tcp://127.0.0.1:9", what="--scheduler"):
            pass


def test_shared_data_is_what_joblib_scatters():
    # joblib's Dask backend scatters an argument once when it can be weakly
    # referenced and dask's sizeof says it is larger than 1 kB.
    from dask.sizeof import sizeof

    from mtbn.evaluate import trial_data
    from mtbn.score import make_scorer

    _, train, _, _ = trial_data("sachs", 0, n_train=500, n_test=1)
    shared = Shared(make_scorer(d) for d in train)
    weakref.ref(shared)
    assert sizeof(shared) >= sum(d.codes.size for d in train) > 1e3  # a scorer keeps one byte per code
    with pytest.raises(TypeError, match="cannot create weak reference"):
        weakref.ref(list(shared))  # a plain list would be shipped with every job


def _square(x):
    return x * x


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_run_jobs_hands_each_result_to_receive_and_keeps_what_it_returns(n_jobs):
    # A large result (a fold's held-out rows) is stored where it belongs as it arrives, and only what receive
    # returns is kept; the work beside the jobs comes back as it is, whatever runs where.
    from mtbn.engine import job, run_jobs

    seen = {}

    def receive(i, result):
        seen[i] = result
        return -result

    out = run_jobs((job(_square)(i) for i in range(4)), n_jobs=n_jobs, receive=receive, beside=lambda: "here")
    assert out == [0, -1, -4, -9, "here"] and seen == {0: 0, 1: 1, 2: 4, 3: 9}
    assert run_jobs((job(_square)(i) for i in range(3)), n_jobs=n_jobs, receive=lambda i, r: (i, r)) == \
        [(0, 0), (1, 1), (2, 4)]


def test_tracing_records_each_job_and_changes_no_result(tmp_path):
    import json

    from mtbn.engine import job, run_jobs, tracing

    plain = run_jobs((job(_square)(i) for i in range(5)), n_jobs=1)
    path = tmp_path / "trace.jsonl"
    with tracing(str(path)):
        traced = run_jobs((job(_square)(i) for i in range(5)), n_jobs=1)
    run_jobs((job(_square)(i) for i in range(3)), n_jobs=1)  # after the block: not recorded
    assert traced == plain == [0, 1, 4, 9, 16]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["section"] == "_square"
    jobs = lines[0]["jobs"]
    assert sorted(j["index"] for j in jobs) == [0, 1, 2, 3, 4]
    assert all(lines[0]["start"] <= j["start"] <= j["end"] <= lines[0]["end"] for j in jobs)
    # in one process nothing is sent: no bytes are measured (pickling only to measure them would cost time)
    assert all(j["sent"] == 0 and j["received"] == 0 and j["size"] == 1 for j in jobs)
    with tracing(str(tmp_path / "two.jsonl")):
        assert run_jobs((job(_square)(i) for i in range(4)), n_jobs=2, sizes=[1, 2, 1, 3]) == [0, 1, 4, 9]
    two = json.loads((tmp_path / "two.jsonl").read_text().splitlines()[0])["jobs"]
    assert all(j["sent"] > 0 and j["received"] > 0 for j in two)
    assert sorted((j["index"], j["size"]) for j in two) == [(0, 1), (1, 2), (2, 1), (3, 3)]
