"""The registry of mtbn's error messages: each one with its cause and its fix.

Every module registers the messages it raises, next to the code that raises
them, and raises them through :func:`error` (or formats them with
:func:`text` where another mechanism raises, e.g. argparse)::

    register("penalty-range", InvalidParameterError, "{name} must be in [0, 1]; got {value!r}.",
             cause="The penalty delta is a probability-like weight.",
             fix="Pass a number between 0 (independent tasks) and 1 (identical structures).")
    ...
    raise error("penalty-range", name=name, value=value)

One style for all of them: one line, naming the task, column or argument
and what is allowed. The command line replaces API argument names by the
option the user typed (``n_folds=10`` reads ``--folds 10``).

``docs/errors.md`` is generated from the registry
(``python -m mtbn.messages > docs/errors.md``); a test keeps the two equal
and checks that no module raises an unregistered message.
"""

import importlib
import os
import sys
import warnings
from dataclasses import dataclass

__all__ = ["Message", "REGISTRY", "register", "error", "text", "warn", "markdown"]


@dataclass(frozen=True)
class Message:
    """One registered message: ``template`` is a ``str.format`` pattern.

    Parameters
    ----------
    code : str
        The message's key in :data:`REGISTRY`, e.g. ``"penalty-range"``; also the heading in ``docs/errors.md``.
    kind : type
        The exception class :func:`error` raises the message as (or a warning class, for messages that are
        warned with :func:`text`).
    template : str
        The one-line message, a ``str.format`` pattern whose ``{fields}`` are filled in from the caller's input.
    cause : str
        What leads to the message, for ``docs/errors.md``.
    fix : str
        What the user can do about it, for ``docs/errors.md``.
    module : str
        The module of mtbn that registered it (the subpackage for a subpackage's modules, e.g. ``"data"``),
        which groups the messages in ``docs/errors.md``.
    """

    code: str
    kind: type
    template: str
    cause: str
    fix: str
    module: str


REGISTRY: "dict[str, Message]" = {}

# The modules whose messages the documentation lists, in the order of the layers.
MODULES = ("_validation", "engine", "data", "score", "graph", "priors", "search", "joint", "heldout", "networks",
           "learn", "estimators", "metrics", "stats", "bootstrap", "relatedness", "benchmarks", "evaluate", "report", "cli")


def register(code, kind, template, *, cause, fix, module=None):
    """Add a message to the registry (once per code; returns the code).

    Registering a code again with the same template replaces its entry; with another template it is an error.

    Parameters
    ----------
    code : str
        The message's key, used by :func:`error` and :func:`text`.
    kind : type
        The exception (or warning) class the message is raised as.
    template : str
        The message, a ``str.format`` pattern of named fields.
    cause : str
        What leads to the message (listed in ``docs/errors.md``).
    fix : str
        What the user can do about it (listed in ``docs/errors.md``).
    module : str, optional
        The module the message is listed under in ``docs/errors.md``; None takes the calling module's name
        (the subpackage's for a module inside one, e.g. ``"data"`` for :mod:`mtbn.data.frames`).

    Returns
    -------
    str
        ``code``, unchanged.

    Raises
    ------
    RuntimeError
        ``code`` is already registered with a different template.
    """
    if code in REGISTRY and REGISTRY[code].template != template:
        raise RuntimeError(f"message code {code!r} registered twice with different templates")
    REGISTRY[code] = Message(code, kind, template, cause, fix, module or _caller_module())
    return code


def _caller_module():
    frame = sys._getframe(2)
    name = frame.f_globals.get("__name__", "?").split(".")
    return name[1] if len(name) > 1 and name[0] == "mtbn" else name[-1]  # a subpackage's modules: the package


def text(code, **fields):
    """The message ``code`` with its fields filled in.

    Parameters
    ----------
    code : str
        A registered message code.
    **fields
        The values of the template's named fields.

    Returns
    -------
    str
        The registered template formatted with ``fields``.
    """
    return REGISTRY[code].template.format(**fields)


def error(code, **fields):
    """The exception of message ``code`` (its registered class), ready to raise.

    Parameters
    ----------
    code : str
        A registered message code.
    **fields
        The values of the template's named fields (see :func:`text`).

    Returns
    -------
    Exception
        An instance of the message's registered class holding the formatted message, with its ``code``
        attribute set to ``code``.
    """
    exc = REGISTRY[code].kind(text(code, **fields))
    exc.code = code
    return exc


#: The package's folder: frames of files under it are mtbn's own (:func:`warn` skips them).
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message, category=UserWarning):
    """Warn ``message`` at the user's line: the first caller outside the mtbn package.

    A fixed ``stacklevel`` names the user's line from one entry point only
    (``learn_structures`` called directly, from an estimator or from the
    bootstrap each put another number of mtbn's frames between the user and
    the warning); this counts them. (A worker process's warnings are warned
    again in the parent by :mod:`mtbn.engine`.)

    Parameters
    ----------
    message : str or Warning
        The text, or a warning instance (e.g. :func:`error` of a message registered as a warning class),
        whose class is then the category.
    category : type, default UserWarning
        The warning class of a text message.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("a note")
    >>> caught[0].filename.startswith(_PACKAGE)
    False
    """
    frame, level = sys._getframe(1), 2  # level 1 is this function, 2 its caller
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def markdown():
    """``docs/errors.md``: every registered message with its cause and fix, by module.

    Imports the modules of :data:`MODULES` first, so that every message is registered.

    Returns
    -------
    str
        The Markdown text of ``docs/errors.md``: an introduction, then per module a section of its messages
        sorted by code, each with its exception class, template, cause and fix.
    """
    for name in MODULES:
        importlib.import_module(f"mtbn.{name}")
    out = [
        "# Error messages",
        "",
        "Generated from the message registry (`mtbn/messages.py`) by "
        "`python -m mtbn.messages > docs/errors.md`; do not edit by hand.",
        "",
        "Every error is one line. In Python it is raised as the class shown: mtbn's own classes "
        "subclass `mtbn.exceptions.MtbnError` (and `ValueError`; `NotFittedError` is a `ValueError` and "
        "an `AttributeError`, and once scikit-learn is imported also scikit-learn's `NotFittedError`); a few checks of internal arguments raise a plain `TypeError` or "
        "`ValueError`. The `mtbn` command prints `mtbn: error: <message>` and exits with status 2, "
        "naming the option you typed where the library names an argument; messages marked *option* "
        "come from parsing an option and read `mtbn COMMAND: error: argument --OPTION: <message>`. "
        "`{...}` marks a part filled in from your input.",
        "",
        "Exit statuses of `mtbn`: 0 done; 2 an error below; 130 interrupted (Ctrl-C, SIGINT); "
        "143 terminated (SIGTERM). On 2, 130 and 143 `learn`, `relatedness`, `select` and `cluster` "
        "leave no output behind and do not touch an earlier result in `--out`; `bench` keeps the "
        "trials it finished and resumes from them.",
        "",
        "Limits: at most 255 states per variable (`too-many-states`), so `--discretize METHOD:K` takes K from 2 "
        "to 255 (`discretize-spec`, checked when the option is read); a numeric column with more than 20 "
        "distinct numbers must be discretised (`continuous-column`).",
        "",
        "Memory: every table whose size grows with state counts, parents or tasks is bounded by a limit known "
        "before the work, and checked before the table is allocated. Count tables for the scores hold only the "
        "parent configurations observed in the rows, so they grow with rows and family size, never with the "
        "product of the parents' state counts (single-task learning of 300 three-state variables on 300 rows "
        "peaks at about 53 MB of allocations; tests/test_reliability.py holds it under 200 MB). No structure "
        "search gives a variable a parent set whose CPT would exceed `mtbn.data.MAX_LEARNED_CPT_SIZE` = 10^6 "
        "entries (8 MB): such a move is never proposed, as a move past `max_parents` is not, so every learned "
        "network can be fitted and written, the networks of k tasks over n variables hold at most k x n x 10^6 "
        "entries, and fitting them (each task alone, or with parameter sharing, which scores held-out rows at "
        "their cells only) allocates a few tables of that size per family; start graphs and required edges "
        "past it are refused before any search (`start-cpt-size`). A network mtbn fits on a structure you give "
        "holds at most `MAX_CPT_SIZE` = 10^8 entries per table, checked before the table is allocated, and a "
        "network built from given tables or read from a file is refused past it (`network-cpt-size`). The exact "
        "marginals of the benchmark constructions that delete edges build no factor above "
        "`mtbn.benchmarks.discrete.MAX_FACTOR_CELLS` = 2^27 cells (1 GiB), checked before it is built "
        "(`marginal-too-large`); every construction builds within 1 GiB on pgmpy's DIABETES, MUNIN, LINK, PIGS "
        "and MILDEW. tests/test_checked_inputs.py runs the command lines that used to exhaust memory (parameter "
        "sharing on the Sachs conditions cut into 200 and 50 bins; single-task learning of WIN95PTS on 50 rows) "
        "under a 3 GB address-space limit.",
        "",
    ]
    for name in MODULES:
        msgs = sorted((m for m in REGISTRY.values() if m.module == name), key=lambda m: m.code)
        if not msgs:
            continue
        out += [f"## `mtbn.{name}`" if not name.startswith("_") else f"## argument checks (`mtbn.{name}`)", ""]
        for m in msgs:
            kind = {"ArgumentTypeError": "*option*", "_UsageError": "*command line*"}.get(
                m.kind.__name__, m.kind.__name__)
            out += [f"### `{m.code}` ({kind})", "", f"    {m.template}", "", f"- Cause: {m.cause}",
                    f"- Fix: {m.fix}", ""]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    import sys

    from mtbn import messages  # the registry the modules fill, not this __main__ copy

    sys.stdout.write(messages.markdown())
