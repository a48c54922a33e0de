"""The ``mtbn`` command line: argparse built from the library's registries, and calls of the library.

Every expected error (bad data, bad option, missing file) prints one line,
``mtbn: error: ...``, on stderr and exits with status 2, without a traceback;
every warning prints one line, ``mtbn: warning: ...``.
Heavy modules (pgmpy, matplotlib, pandas) are imported inside the commands
that need them, so ``mtbn --help`` starts fast.

The package, top down: this module holds :func:`main` (dispatch, exit
statuses, signals, errors in the user's terms); :mod:`mtbn.cli.parser` the
parser and the list of commands; one module per command
(:mod:`mtbn.cli.learn`, ``demo``, ``bench``, ``relatedness``, ``select``,
``cluster``) with its options and its ``cmd_*`` function, a call of the
library plus formatting; :mod:`mtbn.cli.options` the option groups several
commands share and :mod:`mtbn.cli.common` the skeleton of a command that
writes ``--out``; :mod:`mtbn.cli.files` reading the input CSV files and writing the outputs
into a staged folder; :mod:`mtbn.cli.values` the option value types.
"""

import contextlib
import os
import re
import sys
import warnings

from mtbn.cli.parser import build_parser
from mtbn.cli.signals import Terminated, handled, raise_if_stopped
from mtbn.cli.values import _UsageError

__all__ = ["main", "build_parser"]

# API argument names whose CLI option is spelled differently (the option's dest).
#: Arguments of the benchmark and relatedness functions, which no settings table declares, and the option
#: each is set by.
_OTHER_API_TO_DEST = {"p_del": "pdel", "n_train": "train", "n_folds": "folds", "n_tasks": "tasks",
                      "n_test": "test_rows", "n_trials": "trials", "n_clusters": "n"}


def _api_to_dest():
    """Each API argument whose option is spelled otherwise (``random_state`` -> ``seed``): the learner's from
    the settings tables' flags, the others from :data:`_OTHER_API_TO_DEST`."""
    from mtbn.learn.settings import ESTIMATOR_ONLY, MULTITASK, SINGLE

    out = {}
    for table in (MULTITASK, SINGLE, ESTIMATOR_ONLY):
        for s in table:
            dest = s.flag.lstrip("-").replace("-", "_") if s.flag else None
            if dest and dest != s.name:
                out.setdefault(s.name, dest)
    return {**out, **_OTHER_API_TO_DEST}


_API_TO_DEST = _api_to_dest()


def _in_cli_terms(message, command):
    """Name the option the user typed where a library message names an API argument.

    ``n_folds=10`` becomes ``--folds 10`` and ``p_del must`` becomes
    ``--pdel must``, ``(cv)`` becomes ``(--cv)``; names inside quotes (the user's own labels) or
    backticks (Python code) are kept.
    """
    if command is None:
        return message
    options = {a.dest: a.option_strings[-1] for a in command._actions if a.option_strings}

    def swap(m):
        opt = options.get(_API_TO_DEST.get(m.group(1), m.group(1)))
        if opt is None:
            return m.group(0)
        if m.group(2) == "=":  # "name=value" -> "--opt value"; "name= (" or a line's end -> "--opt (" / "--opt"
            return opt if m.string[m.end():m.end() + 1] in ("", " ") else f"{opt} "
        return f"{opt}{m.group(2)}"

    def swap_bare(m):
        opt = options.get(_API_TO_DEST.get(m.group(1), m.group(1)))
        return m.group(0) if opt is None else f"({opt})"

    message = re.sub(r"(?<![\w'\"`-])([a-z][a-z_]*)(=| must\b| <=)", swap, message)
    return re.sub(r"(?<=\s)\(([a-z][a-z_]*)\)", swap_bare, message)  # "fewer folds (cv)"


def _stop_workers():
    """Kill joblib's worker processes now instead of leaving them to time out.

    loky's manager thread can fail while its workers are killed under it
    (a traceback on stderr after the one-line message); on the way out that
    is expected, so its exceptions are not printed. joblib's ``terminate``
    kills the workers, waits for them and deletes their memory-mapping folder
    now; left to the interpreter's exit, that deletion can race with the
    executor's own clean-up and print a warning after the one-line message.
    """
    import threading

    default = threading.excepthook

    def quiet(args):
        if args.thread is None or args.thread.name != "ExecutorManagerThread":
            default(args)

    threading.excepthook = quiet
    try:
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor
        if executor is not None:
            executor.terminate(kill_workers=True)
    except Exception:  # pragma: no cover - best effort on the way out
        pass


def _run(args):
    """Run the command, on the Dask scheduler of ``--scheduler`` if one is given (all its workers)."""
    scheduler = getattr(args, "scheduler", None)
    if scheduler is None:
        return args.func(args)
    from mtbn.engine import dask_engine

    with dask_engine(scheduler, what="--scheduler"):
        args.jobs = -1
        return args.func(args)


class _PipeSafe:
    """stdout that stops writing, without an error, once its reader has gone (``mtbn learn ... | head``): the
    run goes on and publishes its outputs; only the rest of the printed summary is lost."""

    def __init__(self, stream):
        self._stream = stream
        self.broken = False

    def write(self, text):
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self.broken = True
        return len(text)

    def flush(self):
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self.broken = True

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def _pipe_safe_stdout():
    original = sys.stdout
    safe = _PipeSafe(original)
    sys.stdout = safe
    try:
        yield
    finally:
        sys.stdout = original
        if safe.broken:  # the interpreter would flush into the closed pipe on its way out
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), original.fileno())
            except (OSError, ValueError, AttributeError):  # pragma: no cover - not a real file
                pass


#: Entry-point groups whose entries (name = "module:Class") are registered before the parser is built.
PLUGIN_GROUPS = ("mtbn.scores", "mtbn.priors", "mtbn.data_kinds")


def load_plugins(groups=PLUGIN_GROUPS):
    """Register the scores, priors and kinds of data other installed packages declare as entry points.

    A package offers a score with, in its ``pyproject.toml``::

        [project.entry-points."mtbn.scores"]
        myscore = "mypackage.scores:MyScore"

    (``"mtbn.priors"`` for a prior, ``"mtbn.data_kinds"`` for a
    :class:`~mtbn.learn.kinds.DataKind` subclass, registered as an instance);
    ``--score myscore`` then takes it. An
    entry that cannot be loaded or registered is skipped with a warning
    naming it, so one broken plug-in does not stop the command.

    Parameters
    ----------
    groups : tuple of str
        The entry-point groups to read.

    Returns
    -------
    list of str
        The ``group:name`` of every entry registered.
    """
    from importlib.metadata import entry_points

    from mtbn.learn.kinds import register_data_kind
    from mtbn.priors import register_prior
    from mtbn.score import register_score

    registrars = {"mtbn.scores": register_score, "mtbn.priors": register_prior,
                  "mtbn.data_kinds": lambda name, cls: register_data_kind(cls())}
    done = []
    for group in groups:
        for ep in entry_points(group=group):
            try:
                registrars[group](ep.name, ep.load())
            except Exception as exc:  # a third party's broken plug-in: said, then skipped
                print(f"mtbn: warning: plug-in {ep.name!r} of {group!r} not loaded: {exc}", file=sys.stderr)
                continue
            done.append(f"{group}:{ep.name}")
    return done


def main(argv=None):
    """Entry point of the ``mtbn`` command.

    Exit status: 0 done, 2 a one-line error, 130 interrupted (SIGINT),
    143 terminated (SIGTERM); on 130 and 143 the worker processes are
    stopped and no partial output is left.
    """
    from mtbn.exceptions import MtbnError

    load_plugins()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        print("mtbn: error: choose a command (see the list above)", file=sys.stderr)
        return 2
    command = parser.commands.get(args.command)
    with handled(), warnings.catch_warnings(), _pipe_safe_stdout():
        warnings.showwarning = lambda message, *_, **__: print(
            f"mtbn: warning: {_in_cli_terms(str(message), command)}", file=sys.stderr, flush=True)
        try:
            status = _run(args)
            raise_if_stopped()  # a signal whose exception a library swallowed
            return status
        except (MtbnError, _UsageError, OSError) as exc:
            print(f"mtbn: error: {_in_cli_terms(str(exc), command)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            _stop_workers()
            print("mtbn: interrupted", file=sys.stderr)
            return 130
        except Terminated:
            _stop_workers()
            print("mtbn: terminated", file=sys.stderr)
            return 143
