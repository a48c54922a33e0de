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
"""

import contextlib
import sys

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = ["dask_engine", "Shared"]

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
    """

    def __sizeof__(self):
        return super().__sizeof__() + sum(sys.getsizeof(x) for x in self)


@contextlib.contextmanager
def dask_engine(address, *, what="scheduler", timeout=10):
    """Run mtbn's parallel loops on the Dask cluster at ``address`` inside this context.

    Connects a ``distributed.Client`` (closed on exit) and sets joblib's
    backend to ``"dask"``. ``address`` may also be a ``distributed`` cluster
    object (e.g. a ``LocalCluster``).
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
