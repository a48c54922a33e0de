"""SIGINT and SIGTERM for the ``mtbn`` command: stop the run, and remember that it was asked to.

A handler records the signal and raises in the main thread (KeyboardInterrupt
for SIGINT, :class:`Terminated` for SIGTERM). Third-party code can swallow
that exception (loky logs and drops exceptions raised inside a future's
done-callback, which may run in the main thread), so the record is checked
again before any output is published (:func:`raise_if_stopped`) and when
the command returns: an interrupted run never publishes, and always exits
with the signal's status.
"""

import contextlib
import signal
import threading

__all__ = ["Terminated", "handled", "raise_if_stopped", "stopped"]


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the clean-up of a run happens."""


_received: "list[int]" = []


def _exception(signum):
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _handler(signum, frame):
    _received.append(signum)
    raise _exception(signum)


def stopped():
    """The first signal received during :func:`handled`, or None."""
    return _received[0] if _received else None


def raise_if_stopped():
    """Raise the exception of a signal received earlier (one a library may have swallowed)."""
    if _received:
        raise _exception(_received[0])


@contextlib.contextmanager
def handled():
    """Install the handlers for the duration of a command (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    del _received[:]
    previous = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
