"""Local workers (issue 29, case 4): bounded by cores and jobs, and never outliving the process that started them."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import joblib
import pytest

from mtbn.engine import job, parallel, run_jobs, sent_once, usable_cores, worker_count
from mtbn.exceptions import InvalidParameterError


def _pid_after(seconds):
    time.sleep(seconds)
    return os.getpid()


def test_a_huge_n_jobs_starts_no_more_workers_than_cores_or_jobs():
    cores = usable_cores()
    assert parallel(1000, 3).n_jobs == min(3, cores)
    pids = parallel(1000, 3)(job(_pid_after)(0.3) for _ in range(3))
    assert len(pids) == 3 and len(set(pids)) <= min(3, cores)
    # run_jobs (the counted stages) goes through the same bound and keeps the order of the calls
    assert run_jobs((job(pow)(2, i) for i in range(5)), n_jobs=1000) == [2 ** i for i in range(5)]


class _CountsPickles:
    """Counts how often it is pickled, in this process."""

    pickled = 0

    def __init__(self, payload):
        self.payload = payload

    def __reduce__(self):
        type(self).pickled += 1
        return _CountsPickles, (self.payload,)


def _payload_and_pid(value):
    return type(value).__name__, value.payload, os.getpid()


@pytest.mark.skipif(usable_cores() < 2, reason="needs two usable cores")
def test_a_value_sent_once_is_pickled_once_for_every_job_and_arrives_as_itself():
    value = _CountsPickles([1, 2, 3])
    _CountsPickles.pickled = 0
    shipped = sent_once(value, 2, 4)
    out = run_jobs((job(_payload_and_pid)(shipped) for _ in range(4)), n_jobs=2)
    assert [o[:2] for o in out] == [("_CountsPickles", [1, 2, 3])] * 4
    assert all(o[2] != os.getpid() for o in out)  # each job in a worker process, from the one pickle
    assert _CountsPickles.pickled == 1
    # in this process, under threads, or for one job: the value itself
    assert sent_once(value, 1, 4) is value and sent_once(value, 2, 1) is value
    with joblib.parallel_config(backend="threading"):
        assert sent_once(value, 2, 4) is value


@pytest.mark.skipif(usable_cores() < 2, reason="needs two usable cores")
def test_jobs_run_in_worker_processes_only_with_two_local_processes_or_more():
    from mtbn.engine import in_worker_processes
    from mtbn.learn.grid import grid_cut, problem_here

    assert in_worker_processes(2, 4) and in_worker_processes(-1, 4)
    assert not in_worker_processes(1, 4) and not in_worker_processes(2, 1)  # one process, or one job
    with joblib.parallel_config(backend="threading"):
        assert not in_worker_processes(2, 4)
    # the grid: with worker processes and more folds than workers, this process takes the last fold whole
    assert problem_here(5, 2, 10) == 4 and problem_here(2, 2, 10) is None and problem_here(5, 1, 10) is None
    assert grid_cut(5, 3, 2, 4) == [(p, [0, 1, 2]) for p in range(5)]
    assert grid_cut(3, 3, 2, 2) == [(0, [0, 1, 2]), (1, [0, 1, 2]), (2, [0, 1, 2])]
    assert grid_cut(5, 3, 2) == [(p, [0, 1, 2]) for p in range(4)] + [(4, [0, 2]), (4, [1])]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_work_beside_the_jobs_runs_in_this_process_and_comes_last(n_jobs):
    ticks = []
    out = run_jobs((job(_pid_after)(0.2) for _ in range(3)), n_jobs=n_jobs, tick=ticks.append, sizes=[1, 1, 1, 5],
                   beside=lambda: ("here", os.getpid()))
    assert len(out) == 4 and out[-1] == ("here", os.getpid())
    assert (all(pid != os.getpid() for pid in out[:3]) if n_jobs == 2 and usable_cores() >= 2
            else all(pid == os.getpid() for pid in out[:3]))
    assert sorted(ticks) == [1, 1, 1, 5]


@pytest.mark.skipif(usable_cores() < 2, reason="needs two usable cores")
def test_an_error_beside_the_jobs_cancels_them_and_warns_of_nothing():
    # Ctrl-C (or any error) while this process works beside the jobs: the error propagates as it is, and
    # joblib's "tasks ... have been cancelled" warning is not printed after mtbn's own message.
    import gc
    import warnings

    def fails():
        raise ValueError("from this process's share")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="this process's share"):
            run_jobs((job(_pid_after)(0.3) for _ in range(8)), n_jobs=2, beside=fails)
        gc.collect()
    assert not [w for w in caught if "cancelled" in str(w.message)], [str(w.message) for w in caught]


def test_negative_n_jobs_counts_usable_cores_as_joblib_does():
    cores = usable_cores()
    assert parallel(-1, 10**6).n_jobs == cores
    assert worker_count(-1, 10**6) == cores
    assert worker_count(-2, 10**6) == max(1, cores - 1)
    assert worker_count(-10**6, 10) == 1  # never fewer than one worker
    assert worker_count(None, 10) == 1
    assert worker_count(4, 0) == 1  # an empty loop still gets a valid joblib.Parallel
    with pytest.raises(InvalidParameterError):
        worker_count(0, 10)


def test_usable_cores_follow_the_cpu_affinity(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert usable_cores() == 1 and worker_count(-1, 100) == 1 and worker_count(8, 100) == 1
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # macOS, Windows
    assert usable_cores() == (os.cpu_count() or 1)


def test_an_enclosing_parallel_config_is_bounded_too():
    with joblib.parallel_config(n_jobs=1000):
        assert parallel(None, 2).n_jobs == min(2, usable_cores())
    with joblib.parallel_config(backend="threading"):
        assert parallel(1000, 3).n_jobs == min(3, usable_cores())


def test_a_dask_cluster_is_not_bounded_by_local_cores():
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None), \
            joblib.parallel_config(backend="dask"):
        assert parallel(1000, 3).n_jobs == 1000
        assert parallel(None, 3)(job(pow)(2, i) for i in range(3)) == [1, 2, 4]


def test_no_watchdog_in_the_parent_process():
    # n_jobs=1 and threads run the jobs here: the parent must never watch (and exit on) its own parent
    assert parallel(1, 3)(job(_pid_after)(0) for _ in range(3)) == [os.getpid()] * 3
    with joblib.parallel_config(backend="threading"):
        parallel(2, 2)(job(_pid_after)(0) for _ in range(2))
    assert not any(t.name == "mtbn-parent-watchdog" for t in threading.enumerate())


SCRIPT = textwrap.dedent("""
    import os, sys, time
    from mtbn.engine import job, parallel

    def work(folder, computes):
        with open(os.path.join(folder, str(os.getpid())), "w"):
            pass
        end = time.time() + 300
        while time.time() < end:  # one job computes, one sleeps: both must die with their parent
            sum(range(10000)) if computes else time.sleep(0.1)

    parallel(2, 2)(job(work)(sys.argv[1], computes) for computes in (False, True))
""")


def _alive(pid):
    """Whether ``pid`` runs (a zombie that nobody has reaped yet counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return not sys.platform.startswith("linux")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_workers_die_when_their_parent_is_killed(tmp_path):
    if usable_cores() < 2:
        pytest.skip("needs two usable cores for two workers")
    folder = tmp_path / "pids"
    folder.mkdir()
    main = subprocess.Popen([sys.executable, "-c", SCRIPT, str(folder)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 120  # the workers start (imports and loky's start-up)
        while len(os.listdir(folder)) < 2 and main.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = sorted(int(p) for p in os.listdir(folder))
        assert main.poll() is None and len(workers) == 2 and main.pid not in workers
        assert all(_alive(p) for p in workers)
        main.send_signal(signal.SIGKILL)  # as the OOM killer does: no cleanup in the parent
        main.wait()
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [p for p in workers if _alive(p)] == []
    finally:
        if main.poll() is None:
            main.kill()
            main.wait()
        for p in workers:  # started by the test's own subprocess: never leave them behind, even on failure
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def _warns(x):
    import warnings

    from mtbn.exceptions import DataWarning

    warnings.warn(f"value {x} is odd" if x % 2 else "value is even", DataWarning)
    return x + 1


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_warning_raised_in_a_worker_process_is_warned_here_once_as_in_one_process(n_jobs):
    """A job's warning raised in a worker process comes back with its result and meets this process's filters
    (the command line prints it as ``mtbn: warning:``): under the "default" filter each distinct warning is shown
    once, whichever process and however many jobs raised it, as when every job runs here."""
    import warnings

    from mtbn.exceptions import DataWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        ordered = run_jobs((job(_warns)(i) for i in range(4)), n_jobs=n_jobs)
        listed = parallel(n_jobs, 4)(job(_warns)(i) for i in range(4))
        streamed = list(parallel(n_jobs, 4, return_as="generator")(job(_warns)(i) for i in range(4)))
    assert ordered == listed == streamed == [1, 2, 3, 4]
    assert sorted(str(w.message) for w in caught) == ["value 1 is odd", "value 3 is odd", "value is even"]
    assert all(w.category is DataWarning and w.filename == __file__ for w in caught)
