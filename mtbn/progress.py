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
  tqdm bar per counted stage (reading a CSV file, the single-task starts,
  penalty grid x folds, bench trials, bootstrap replicates) when stderr is a
  terminal. A bar moves as each job finishes, in whatever order the jobs end.

A stage is announced once (``"penalty grid x folds: 65 searches"``) and its
end is logged with the time it took, so a log file of a run that is not on a
terminal has one line per stage, not one per job.
"""

import contextlib
import logging
import os
import sys
import time

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = ["Reporter", "reporter", "stderr_reporter", "logger"]

logger = logging.getLogger("mtbn")

register("progress-type", InvalidParameterError,
         "progress must be None, True, False, a callable or a mtbn.progress.Reporter; got {value!r}.",
         cause="progress= was given something that cannot receive progress messages.",
         fix="Pass progress=True for lines and bars on stderr, or a function that takes one string.")


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
        """Announce a stage of ``total`` jobs; yields ``tick(n=1)`` to call as jobs finish.

        ``unit="B"`` counts bytes: the stage is announced with its size
        (``"reading a.csv: 53.8 MB"``) and the bar shows bytes read.

        Parameters
        ----------
        label : str
            The stage's name, at the start of the announcement (``"LABEL: AMOUNT"``), of the bar and of the
            closing ``"LABEL: done in S s"`` log record.
        total : int
            The number of jobs (or of bytes when ``unit="B"``) the stage counts; a bar is drawn only when
            ``bars`` is set and ``total`` is more than 1.
        unit : str, default "job"
            What is counted, named in the announcement and on the bar; ``"B"`` announces ``total`` as a size in
            bytes (kB, MB, ...).
        plural : str, optional
            The plural of ``unit`` when ``total`` is not 1; None adds an ``"s"`` to ``unit``.

        Yields
        ------
        callable
            ``tick(n=1)``: advances the bar by ``n`` jobs (or bytes) as they finish; it does nothing without a
            bar.
        """
        size = unit == "B"
        amount = _format_size(total) if size else f"{total} {unit if total == 1 else plural or unit + 's'}"
        self(f"{label}: {amount}")
        bar = self._bar(label, total, unit, size) if self.bars and total > 1 else None
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

    @staticmethod
    def _bar(label, total, unit, size):
        """A tqdm bar on stderr, redrawn at every tick (at most 10 times a second).

        Its size follows the terminal's. A pseudo-terminal that reports no
        size (0 x 0: ``script -c`` started by a program, ``docker exec -t``,
        CI runners) gets 80 x 24: tqdm reads 0 x 0 as -1 rows there and
        draws no bar at all (measured with tqdm 4.70).
        """
        from tqdm.auto import tqdm

        try:
            columns, lines = os.get_terminal_size(sys.stderr.fileno())
        except (AttributeError, OSError, ValueError):
            columns, lines = 0, 0
        width = dict(dynamic_ncols=True) if columns > 0 and lines > 0 else dict(ncols=columns or 80, nrows=lines or 24)
        scale = dict(unit_scale=True, unit_divisor=1000) if size else {}
        return tqdm(total=total, desc=label, unit=unit, file=sys.stderr, leave=False, miniters=1, **width, **scale)


def _format_size(n_bytes):
    """``"53.8 MB"``, ``"204.1 kB"``, ``"12 bytes"``."""
    if n_bytes < 1000:
        return f"{n_bytes} byte{'' if n_bytes == 1 else 's'}"
    for prefix in "kMGT":
        n_bytes /= 1000
        if n_bytes < 1000 or prefix == "T":
            return f"{n_bytes:.1f} {prefix}B"


def stderr_reporter(*, bars=None):
    """Progress on stderr, as the command line shows it: a line per stage, and a bar per counted stage.

    ``bars=None`` draws bars where they can be seen: stderr is a terminal, or
    a Jupyter kernel runs (tqdm.auto draws a widget there).

    Parameters
    ----------
    bars : bool, optional
        True draws a tqdm bar per counted stage (messages then go through ``tqdm.write`` so that they do not
        break the bars); False prints the messages only; None decides as above.

    Returns
    -------
    Reporter
        A reporter that logs each message and writes it as a line to stderr.
    """
    if bars is None:
        bars = sys.stderr.isatty() or "ipykernel" in sys.modules
    if bars:
        from tqdm.auto import tqdm

        return Reporter(callback=lambda message: tqdm.write(message, file=sys.stderr), bars=True)
    return Reporter(callback=lambda message: print(message, file=sys.stderr, flush=True))


def reporter(progress=None):
    """The :class:`Reporter` for a function's ``progress=`` argument.

    ``None`` or ``False``: log records only (the ``"mtbn"`` logger). ``True``:
    :func:`stderr_reporter` (lines, and bars on a terminal or in a notebook).
    A callable receives every message; a :class:`Reporter` is used as given.

    Parameters
    ----------
    progress : None, bool, callable or Reporter, optional
        Where the messages go besides the ``"mtbn"`` logger, as above.

    Returns
    -------
    Reporter
        The reporter to send the function's messages (and stages) to.

    Raises
    ------
    InvalidParameterError
        ``progress`` is none of the above.

    Examples
    --------
    >>> reporter(True).bars in (True, False)
    True
    >>> reporter(3)
    Traceback (most recent call last):
    ...
    mtbn.exceptions.InvalidParameterError: progress must be None, True, False, a callable or a mtbn.progress.Reporter; got 3.
    """
    if isinstance(progress, Reporter):
        return progress
    if progress is True:
        return stderr_reporter()
    if progress is None or progress is False:
        return Reporter()
    if not callable(progress):
        raise error("progress-type", value=progress)
    return Reporter(callback=progress)
