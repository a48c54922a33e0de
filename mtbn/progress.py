"""Progress of long runs: log records for the API, bars or lines for the command line.

Every long-running function of mtbn takes ``progress=`` and reports through
:func:`reporter`:

* Always, each message is a ``logging`` record (level INFO) of the
  ``"mtbn"`` logger, so an application decides what it sees
  (``logging.basicConfig(level=logging.INFO)`` shows them all); mtbn itself
  never prints.
* ``progress=callable``: the callable also receives every message (a line
  of text).
* ``progress=Reporter(...)``: the command line's reporter, which also draws a
  tqdm bar per counted stage (the single-task starts, penalty grid x folds,
  bench trials, bootstrap replicates) when stderr is a terminal.

A stage is announced once (``"penalty grid x folds: 65 searches"``) and its
end is logged with the time it took, so a log file of a run that is not on a
terminal has one line per stage, not one per job.
"""

import contextlib
import logging
import sys
import time

__all__ = ["Reporter", "reporter", "logger"]

logger = logging.getLogger("mtbn")


class Reporter:
    """Where progress goes: log records, an optional callback, optional bars.

    Parameters
    ----------
    callback : callable, optional
        Receives each message (str).
    bars : bool, default False
        Draw a tqdm bar on stderr for each counted stage.
    """

    def __init__(self, callback=None, bars=False):
        self.callback = callback
        self.bars = bars

    def __call__(self, message):
        logger.info(message)
        if self.callback is not None:
            self.callback(message)

    @contextlib.contextmanager
    def stage(self, label, total, unit="job", plural=None):
        """Announce a stage of ``total`` jobs; yields ``tick(n=1)`` to call as jobs finish."""
        self(f"{label}: {total} {unit if total == 1 else plural or unit + 's'}")
        bar = None
        if self.bars and total > 1:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=label, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)
        start = time.perf_counter()

        def tick(n=1):
            if bar is not None:
                bar.update(n)

        try:
            yield tick
        finally:
            if bar is not None:
                bar.close()
        logger.info(f"{label}: done in {time.perf_counter() - start:.1f} s")


def reporter(progress=None):
    """The :class:`Reporter` for a function's ``progress=`` argument (None, a callable or a Reporter)."""
    if isinstance(progress, Reporter):
        return progress
    return Reporter(callback=progress)
