"""Where the parallel work runs: local processes, or a Dask cluster behind joblib.

Every embarrassingly parallel loop of mtbn (the penalty grid x CV folds, the
single-task starts, bench trials, the relatedness null and folds, the task
selection and clustering candidates, bootstrap replicates) is a
``joblib.Parallel`` call. joblib decides where it runs, so the same code runs
on local processes (``n_jobs``) or on a Dask cluster::

    import joblib
    from distributed import Client

    client = Client("tcp://scheduler:8786")
    with joblib.parallel_config(backend="dask"):
        learner.fit(tasks)

:func:`dask_engine` is that, for the command line (``--scheduler ADDRESS``).
Results do not depend on where the work runs: every job draws its random
numbers from a stream keyed by what it computes, never by the worker or the
order of completion.

Data is shipped once per job batch, not once per job: joblib's Dask backend
scatters every large argument that can be weakly referenced to the cluster
and passes a reference to the jobs that share it. mtbn passes the task data
and score caches as such objects (:class:`Shared`), sized by
``__sizeof__`` so that the backend sees that they are large.

Dask is an optional dependency: ``pip install "mtbn[dask]"``.

Every loop runs through :func:`parallel` and :func:`job` (or :func:`run_jobs`),
which bound the number of local workers and make every worker process die
with the process that started it, however that one ends (SIGKILL and the
OOM killer included). A warning a job raises in a local worker process comes
back with its result and is warned again here (:func:`_shown`), so that it
meets this process's filters and display (the command line's ``mtbn:
warning:`` line), once, as if the job had run here.
"""

import contextlib
import os
import signal
import sys
import threading
import time
import warnings

from mtbn._validation import check_n_jobs
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = ["dask_engine", "job", "parallel", "run_jobs", "sent_once", "tracing", "Shared", "usable_cores",
           "warm_workers", "worker_count"]

register("dask-missing", InvalidParameterError,
         "{what} needs dask.distributed, which is not installed: pip install \"mtbn[dask]\"",
         cause="A Dask scheduler was named but the optional Dask dependency is missing.",
         fix="Install the extra (pip install \"mtbn[dask]\") or leave out the scheduler to run locally.")
register("dask-connect", InvalidParameterError,
         "cannot reach the Dask scheduler at {address!r} ({reason})",
         cause="No scheduler answered at the address within the timeout.",
         fix="Start one (dask scheduler) and its workers (dask worker ADDRESS), and pass the address it prints, "
             "e.g. tcp://10.0.0.5:8786.")


class Shared(list):
    """A list of objects that parallel jobs share (e.g. one scorer per task).

    A list subclass, so it can be weakly referenced, with a ``__sizeof__``
    that counts its items' own sizes: joblib's Dask backend then scatters it
    to the cluster once and the jobs receive a reference.

    Parameters
    ----------
    iterable : iterable, optional
        The shared objects, in the order the jobs index them (as for ``list``); none when omitted.
    """

    def __sizeof__(self):
        return super().__sizeof__() + sum(sys.getsizeof(x) for x in self)


@contextlib.contextmanager
def dask_engine(address, *, what="scheduler", timeout=10):
    """Run mtbn's parallel loops on the Dask cluster at ``address`` inside this context.

    Connects a ``distributed.Client`` (closed on exit) and sets joblib's
    backend to ``"dask"``. ``address`` may also be a ``distributed`` cluster
    object (e.g. a ``LocalCluster``).

    Parameters
    ----------
    address : str or distributed cluster
        The scheduler's address (e.g. ``"tcp://10.0.0.5:8786"``) or a cluster object, passed to
        ``distributed.Client``.
    what : str, default "scheduler"
        How the caller names the scheduler in the message raised when Dask is not installed (the command line
        passes its option, e.g. ``"--scheduler"``).
    timeout : float, default 10
        Seconds to wait for the scheduler to answer before giving up.

    Yields
    ------
    distributed.Client
        The connected client; it is closed when the context ends.

    Raises
    ------
    InvalidParameterError
        ``distributed`` is not installed, or no scheduler answered at ``address``.
    """
    try:
        import joblib
        from distributed import Client
    except ImportError:
        raise error("dask-missing", what=what) from None
    try:
        client = Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise error("dask-connect", address=str(address), reason=str(exc).splitlines()[0] or type(exc).__name__) from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()


# ---------------------------------------------------------------------------
# Local workers: how many, and that they die with their parent
# ---------------------------------------------------------------------------

#: Seconds between two looks of a worker's watchdog at its parent.
WATCHDOG_INTERVAL = 0.5

_LOCAL_BACKENDS = ("loky", "multiprocessing", "threading", "sequential")


def usable_cores():
    """The cores this process may run on (its CPU affinity where the OS has one, else all cores).

    Returns
    -------
    int
        ``len(os.sched_getaffinity(0))`` where the OS has it, else ``os.cpu_count()`` (1 if unknown).
    """
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows
        return os.cpu_count() or 1


def worker_count(n_jobs, n_items):
    """The number of local workers for ``n_items`` jobs when ``n_jobs`` are asked for.

    ``min(requested, usable cores, n_items)`` and at least 1, where
    ``requested`` reads ``n_jobs`` as joblib does: None is 1, -1 all usable
    cores, -2 all but one, and so on.

    Parameters
    ----------
    n_jobs : int or None
        The workers asked for: a positive count, a negative count from the usable cores, or None (1); 0 and
        non-integers are refused.
    n_items : int
        The number of jobs to run; no more workers than jobs are started.

    Returns
    -------
    int
        The number of local workers, from 1 to the number of usable cores (:func:`usable_cores`).
    """
    cores = usable_cores()
    n_jobs = check_n_jobs(n_jobs)
    requested = 1 if n_jobs is None else n_jobs if n_jobs > 0 else cores + 1 + n_jobs
    return max(1, min(requested, cores, n_items))


def _runs_locally(backend):
    """True for joblib's own backends (processes or threads on this machine), False for Dask and the like."""
    from joblib.parallel import BACKENDS

    return isinstance(backend, tuple(BACKENDS[name] for name in _LOCAL_BACKENDS if name in BACKENDS))


def parallel(n_jobs, n_items, *, return_as="list"):
    """The ``joblib.Parallel`` that runs ``n_items`` jobs made by :func:`job`.

    Locally (joblib's loky, multiprocessing or threading backends) the number
    of workers is bounded: at most ``min(n_jobs, usable cores, n_items)``,
    where the usable cores are those of the process's CPU affinity
    (``os.sched_getaffinity``, else ``os.cpu_count()``); ``n_jobs=-1`` is
    every usable core and ``-2, -3, ...`` leave one, two, ... of them free, as
    in joblib. A larger ``--jobs`` therefore never starts more processes than
    there are cores or jobs. ``n_jobs=None`` takes the count of an enclosing
    ``joblib.parallel_config`` (else 1). Under a backend that runs elsewhere
    (``joblib.parallel_config(backend="dask")``, see :func:`dask_engine`)
    ``n_jobs`` is passed on as given: the cluster decides.

    Results never depend on the number of workers or the backend: every job
    draws its random numbers from a stream keyed by what it computes.

    Parameters
    ----------
    n_jobs : int or None
        The workers asked for, read as joblib does (see :func:`worker_count`); None takes the enclosing
        ``joblib.parallel_config``'s count.
    n_items : int
        The number of jobs that will run, which bounds the local workers.
    return_as : str, default "list"
        Passed to ``joblib.Parallel``: ``"list"`` returns the results in the order of the jobs,
        ``"generator"`` yields them in that order as they come, ``"generator_unordered"`` as they finish.

    Returns
    -------
    joblib.Parallel
        The configured ``Parallel`` object, to call on an iterable of jobs made by :func:`job`.
    """
    _wait_for_warm_workers()
    return _parallel(n_jobs, n_items, return_as)


def _parallel(n_jobs, n_items, return_as):
    from joblib import Parallel
    from joblib.parallel import get_active_backend

    backend, configured = get_active_backend()
    if n_jobs is None:
        n_jobs = configured
    if _runs_locally(backend):
        n_jobs = worker_count(n_jobs, n_items)
    return _Relaying(Parallel(n_jobs=n_jobs, return_as=return_as))


class _Relaying:
    """A ``joblib.Parallel`` whose results come back without the warnings their jobs raised in worker processes,
    which are warned again in this process as each result arrives (:func:`_shown`)."""

    def __init__(self, parallel):
        self._parallel = parallel

    def __call__(self, iterable):
        results = self._parallel(iterable)
        return [_shown(r) for r in results] if isinstance(results, list) else _relayed(results)

    def __getattr__(self, name):
        return getattr(self._parallel, name)


def _relayed(results):
    """The results of a generator of joblib's, each :func:`_shown`; closing this closes it (cancels its jobs)."""
    try:
        for result in results:
            yield _shown(result)
    finally:
        results.close()


class _Reported:
    """A job's result and the warnings it raised in a worker process: ``(text, category, filename, lineno)``."""

    def __init__(self, result, caught):
        self.result = result
        self.warnings = caught


def _shown(result):
    """``result`` itself; a :class:`_Reported` one's warnings warned here first, each in the registry of the
    module that raised it when that module is loaded here (the registry the job's own ``warnings.warn`` would
    have used in this process: the same warning is shown once, whichever process raised it)."""
    if not isinstance(result, _Reported):
        return result
    for text, category, filename, lineno in result.warnings:
        module = next((m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == filename), None)
        registry = (_RELAYED.setdefault(filename, {}) if module is None
                    else module.__dict__.setdefault("__warningregistry__", {}))
        warnings.warn_explicit(text, category, filename, lineno,
                               module=None if module is None else module.__name__, registry=registry)
    return result.result


#: The registries of the relayed warnings raised by modules this process has not loaded (per file name).
_RELAYED: dict = {}


#: The thread of :func:`warm_workers` while it runs (joined before any parallel section starts).
_WARMING: dict = {"thread": None}


def warm_workers(n_jobs, modules=()):
    """Start the local worker processes for ``n_jobs`` in the background, so that the first parallel section
    does not wait for them to start (nor for them to import ``modules``).

    A thread runs one empty job per worker while the caller goes on with
    its serial work (e.g. the relatedness test); :func:`parallel` waits for
    that thread before it hands out any job, so the sections find the
    workers running. Nothing happens with one worker or a backend that runs
    elsewhere (Dask). Results never depend on it.

    Parameters
    ----------
    n_jobs : int or None
        The workers the coming sections ask for, as for :func:`parallel`.
    modules : sequence of str, default ()
        Modules every worker imports meanwhile (those the coming jobs run).
    """
    from joblib.parallel import get_active_backend

    workers = local_workers(n_jobs, usable_cores())
    if workers is None or workers < 2 or _WARMING["thread"] is not None:
        return
    if type(get_active_backend()[0]).__name__ != "LokyBackend":
        return  # only joblib's default process pool is worth starting early (the thread would not see the caller's)
    thread = threading.Thread(target=_warm, args=(n_jobs, workers, tuple(modules)), name="mtbn-warm-workers",
                              daemon=True)
    _WARMING["thread"] = thread
    thread.start()


def _warm(n_jobs, workers, modules):
    try:
        _parallel(n_jobs, workers, "list")(job(_imports)(modules) for _ in range(workers))
    except Exception:  # noqa: BLE001 - a failure to start workers is reported by the section that needs them
        pass


def _imports(modules):
    import importlib

    for name in modules:
        importlib.import_module(name)
    time.sleep(0.05)  # long enough that each worker gets one of these jobs, not one worker all of them


def _wait_for_warm_workers():
    thread = _WARMING["thread"]
    if thread is not None and thread is not threading.current_thread():
        thread.join()
        _WARMING["thread"] = None


def job(function):
    """``joblib.delayed(function)`` for :func:`parallel`: the job also makes its worker die with its parent.

    The first job that runs in a worker process started by this process
    starts a watchdog thread there (see :class:`_Job`); jobs that run in this
    process (``n_jobs=1``, threads) or on another machine (Dask) start none.

    Parameters
    ----------
    function : callable
        The work of the job; it must be picklable to run in another process.

    Returns
    -------
    callable
        A delayed function: called with the job's arguments it returns the ``(function, args, kwargs)`` triple
        that :func:`parallel`'s ``Parallel`` object (or :func:`run_jobs`) runs.
    """
    from joblib import delayed

    return delayed(_Job(function, os.getpid()))


def local_workers(n_jobs, n_items):
    """The number of worker processes :func:`parallel` starts on this machine for ``n_items`` jobs, or None
    when the active joblib backend runs elsewhere (Dask), where the cluster decides."""
    from joblib.parallel import get_active_backend

    backend, configured = get_active_backend()
    if not _runs_locally(backend):
        return None
    return worker_count(configured if n_jobs is None else n_jobs, n_items)


def sent_once(value, n_jobs, n_items):
    """``value`` as an argument of ``n_items`` jobs: pickled once for all the jobs that run in worker processes.

    joblib pickles each job's arguments anew, so an object that every job of
    a section receives (e.g. the scorers of the final search's chains, with
    their caches) is pickled once per job, by the process that also has to
    hand out the jobs. Under a local process backend (loky, multiprocessing)
    with more than one worker, the value is wrapped so that it is pickled
    once and each job receives a copy of that one pickle, unpickled as the
    value itself; elsewhere (one worker, threads, Dask, which scatters
    :class:`Shared` values itself) it is returned unchanged.

    Parameters
    ----------
    value : object
        What the jobs receive; it must not change while the jobs are being handed out.
    n_jobs : int or None
        The workers asked for, as for :func:`parallel`.
    n_items : int
        The number of jobs.

    Returns
    -------
    object
        ``value``, or a wrapper that pickles as ``value`` (not to be used in this process).
    """
    return _PickledOnce(value) if in_worker_processes(n_jobs, n_items) else value


def in_worker_processes(n_jobs, n_items):
    """Whether ``n_items`` jobs run in more than one local worker process (loky or multiprocessing), so that
    this process sits idle while they run unless it takes work of its own (``run_jobs(..., beside=)``).

    Parameters
    ----------
    n_jobs : int or None
        The workers asked for, as for :func:`parallel`.
    n_items : int
        The number of jobs.

    Returns
    -------
    bool
        False in one process, under threads and where a cluster runs the jobs (Dask).
    """
    from joblib.parallel import get_active_backend

    workers = local_workers(n_jobs, n_items)
    process_pool = type(get_active_backend()[0]).__name__ in ("LokyBackend", "MultiprocessingBackend")
    return workers is not None and workers > 1 and process_pool


class _PickledOnce:
    """:func:`sent_once`'s wrapper: pickles as ``value``, computing the pickle only the first time."""

    def __init__(self, value):
        self.value = value
        self._blob = None

    def freeze(self):
        """Pickle ``value`` now: later changes to it (e.g. by work in this process) do not reach the jobs."""
        import pickle

        from joblib.externals.loky.backend.reduction import dumps  # the pickler of the jobs themselves

        if self._blob is None:
            self._blob = bytes(dumps(self.value, protocol=pickle.HIGHEST_PROTOCOL))
        return self

    def __reduce__(self):
        import pickle

        return pickle.loads, (self.freeze()._blob,)


def run_jobs(calls, *, n_jobs, tick=None, sizes=None, beside=None, receive=None):
    """The results of ``calls`` (made by :func:`job`), in their order; ``tick()`` as each job finishes
    (``tick(sizes[i])`` with ``sizes``, for jobs that each do ``sizes[i]`` units of work).

    The jobs run through :func:`parallel` in any order, so a progress bar
    moves with every job that finishes rather than waiting for the slowest
    earlier one.

    Parameters
    ----------
    calls : iterable
        The jobs: ``job(function)(*args, **kwargs)`` triples.
    n_jobs : int or None
        The workers asked for, as for :func:`parallel`.
    tick : callable, optional
        Called after each job finishes (e.g. a stage's ``tick`` from :meth:`mtbn.progress.Reporter.stage`);
        None reports nothing.
    sizes : sequence of int, optional
        The units of work of each job, in the order of ``calls``, passed to ``tick``; None ticks once per job.
    beside : callable, optional
        Work for this process while the jobs run elsewhere: ``beside()`` runs here after the jobs are handed
        out, and its result is the last item returned (its size, with ``sizes``, the last of ``sizes``).
        The jobs' arguments must not be changed by it (pickle them first, :func:`sent_once`). With one local
        worker everything runs here, ``beside`` last.
    receive : callable, optional
        ``receive(i, result)`` as job ``i``'s result arrives (in any order); what it returns is kept in the
        result's place, so that large results need not all be held at once (e.g. their parts stored where they
        belong, a small summary kept). Not called for ``beside``'s result.

    Returns
    -------
    list
        The result of each job, in the order of ``calls`` (then ``beside()``'s, if given).
    """
    calls = list(calls)
    out = [None] * len(calls)
    traced = _TRACE.get("path") is not None
    workers = local_workers(n_jobs, len(calls) + (beside is not None))
    # Bytes are measured only where something is sent: in one process, pickling to measure them would be the
    # only cost of tracing (150 MB per default run).
    shipped = traced and workers != 1
    indexed = ((_Job(f.function, f.parent, i, traced), args, kwargs) for i, (f, args, kwargs) in enumerate(calls))
    start, jobs = time.perf_counter(), []
    if beside is not None and workers == 1:  # nowhere else to run: the jobs, then the work of this process
        n_calls = len(calls)
        calls.append(job(beside)())
        return run_jobs(calls, n_jobs=n_jobs, tick=tick, sizes=sizes,
                        receive=None if receive is None else lambda i, r: r if i == n_calls else receive(i, r))
    if beside is not None:  # the pool keeps its workers; the jobs are handed out before this process works
        _wait_for_warm_workers()
        from joblib import Parallel

        running = _Relaying(Parallel(n_jobs=n_jobs if workers is None else workers,
                                     return_as="generator_unordered"))(indexed)
        here, cpu = time.perf_counter(), time.process_time()
        try:
            own = beside()
        except BaseException:  # e.g. Ctrl-C while this process worked: cancel the jobs, and say nothing of it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # joblib's "tasks ... have been cancelled"
                running.close()
            raise
        if traced:  # this process's CPU time includes its threads' (joblib's, receiving the jobs' results)
            jobs.append({"start": here, "end": time.perf_counter(), "pid": os.getpid(),
                         "cpu": time.process_time() - cpu, "index": len(calls),
                         "size": 1 if sizes is None else sizes[-1], "sent": 0, "received": 0})
        if tick is not None:
            tick() if sizes is None else tick(sizes[-1])
    else:
        running = parallel(n_jobs, len(calls), return_as="generator_unordered")(indexed)
    for i, result in running:
        if traced:
            result, timing = result
            jobs.append(dict(timing, index=i, size=1 if sizes is None else sizes[i],
                             sent=_pickled_size(calls[i][1:]) if shipped else 0,
                             received=_pickled_size(result) if shipped else 0))
        out[i] = result if receive is None else receive(i, result)
        if tick is not None:
            tick() if sizes is None else tick(sizes[i])
    if traced:
        _write_trace({"section": getattr(calls[0][0], "__name__", "?") if calls else "?", "start": start,
                      "end": time.perf_counter(), "n_jobs": workers, "pid": os.getpid(), "jobs": jobs})
    return out if beside is None else out + [own]


#: Where :func:`tracing` writes, while it is active (one JSON line per :func:`run_jobs` call).
_TRACE: dict = {"path": None}


@contextlib.contextmanager
def tracing(path):
    """Record every :func:`run_jobs` call made inside the block as one JSON line of ``path``.

    A line holds the section (the job function's name), its start and end (``time.perf_counter`` of the
    process that made the jobs), the workers, that process's id, and per job its start, end, CPU seconds
    (``time.process_time`` of the process that ran it), process id (work done beside the jobs,
    ``run_jobs(..., beside=)``: the id of the process that made them), and the pickled size of its arguments
    and of its result (bytes; joblib's memory mapping of large arrays may send less). For
    measuring where parallel time goes (``benchmarks/bench_parallel_trace.py``); the results are the same.

    Parameters
    ----------
    path : str
        The file the lines are appended to.

    Yields
    ------
    str
        ``path``.
    """
    previous = _TRACE["path"]
    _TRACE["path"] = str(path)
    try:
        yield path
    finally:
        _TRACE["path"] = previous


def _pickled_size(value):
    import pickle

    try:
        return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # an unpicklable result cannot have come from another process anyway
        return None


def _write_trace(record):
    import json

    with open(_TRACE["path"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


class _Job:
    """A job function that first makes sure its worker process dies with the process that made the job.

    ``parent`` is the pid of the process that made the job. When the job runs
    in a child of that process (a loky or multiprocessing worker), the first
    job in that worker starts a daemon thread that looks at ``os.getppid()``
    every :data:`WATCHDOG_INTERVAL` seconds and ends the worker
    (``os._exit``) as soon as the parent is gone (the worker has been
    reparented): a killed run leaves no worker behind. Elsewhere (in the
    parent itself, or on a Dask worker whose parent is not ``parent``) it
    does nothing. Linux's ``PR_SET_PDEATHSIG`` is not used: it fires when the
    *thread* that started the worker ends, and loky starts workers from
    whichever thread submits a job, so it killed the live workers of a live
    parent when that thread ended (measured).

    ``index`` (:func:`run_jobs`): return ``(index, result)``.
    """

    def __init__(self, function, parent, index=None, traced=False):
        self.function = function
        self.parent = parent
        self.index = index
        self.traced = traced
        self.__name__ = getattr(function, "__name__", type(function).__name__)  # joblib and Dask name jobs by it

    def __call__(self, *args, **kwargs):
        _watch_parent(self.parent)
        start, cpu = time.perf_counter(), time.process_time()
        # In a worker process's main thread (loky, multiprocessing): a Dask worker runs jobs in threads, where
        # catch_warnings, which swaps the process's warning state, is not safe; they warn on its log as before.
        elsewhere = os.getpid() != self.parent and threading.current_thread() is threading.main_thread()
        with warnings.catch_warnings(record=True) if elsewhere else contextlib.nullcontext() as caught:
            if elsewhere:
                warnings.simplefilter("default")  # each distinct one once per job; the parent's filters decide
            result = self.function(*args, **kwargs)
        if self.traced:  # clocks of one machine: perf_counter is CLOCK_MONOTONIC, shared by its processes
            result = (result, {"start": start, "end": time.perf_counter(), "pid": os.getpid(),
                               "cpu": time.process_time() - cpu})
        result = result if self.index is None else (self.index, result)
        if caught:
            result = _Reported(result, [(str(w.message), w.category, w.filename, w.lineno) for w in caught])
        return result


_watchdog_lock = threading.Lock()
_watchdog_pid = None  # the process whose watchdog is running (a forked child inherits the value, not the thread)


def _watch_parent(parent):
    """Start the watchdog of this worker process, once, if ``parent`` is this process's parent.

    The worker also ignores SIGINT from then on: Ctrl-C reaches every process of the terminal's group, and
    the parent, which stops its workers itself, is the one to report it (a worker would print a traceback).
    """
    global _watchdog_pid
    pid = os.getpid()
    if pid == parent or _watchdog_pid == pid or os.getppid() != parent:
        return
    with _watchdog_lock:
        if _watchdog_pid == pid:
            return
        threading.Thread(target=_watchdog, args=(parent,), name="mtbn-parent-watchdog", daemon=True).start()
        _watchdog_pid = pid
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _watchdog(parent):
    while os.getppid() == parent:
        time.sleep(WATCHDOG_INTERVAL)
    os._exit(1)
