"""Files of the command line: read the input CSV files, write the outputs into a staged folder.

The ``--out`` convention, for every command: ``--out`` is a new or empty
folder, or, with ``--overwrite``, a folder an earlier mtbn command wrote
(it holds the marker file :data:`MARKER`), which is then replaced whole. A
folder holding files mtbn did not write is never touched. ``--out`` is
checked before any work (:func:`check_out`). The outputs go first into a
hidden folder beside ``--out`` and are published only when the command
succeeds (:func:`staged_output`), so a failed or interrupted run leaves
nothing behind and never mixes with an earlier result. ``mtbn bench``
writes into its folder as it goes, so that a killed run resumes: it
continues a folder holding the same benchmark's run.

Task names come from the data (file stems, ``--task-column`` values), so
they never choose where a file goes: each task's files are named by
:func:`task_file_stem`, which keeps letters, digits, ``-``, ``_`` and ``.``
and writes every other character as ``%XX`` (its UTF-8 bytes).
"""

import contextlib
import hashlib
import json
import os
import shutil
import string
import tempfile

from mtbn.cli.signals import raise_if_stopped
from mtbn.cli.values import _usage_error, _UsageError
from mtbn.messages import register

__all__ = ["writable_tasks", "read_named_tasks", "read_taskset", "read_constraints", "check_out", "claimed_out", "out_path",
           "staged_output",
           "write_task_outputs", "write_summary", "bif_note", "task_file_stem", "task_file_stems", "write_marker",
           "clear_out", "MARKER",
           "discretize_option", "write_discretization"]

#: The file every command writes into its ``--out`` folder (the command, the mtbn version, the files written):
#: only a folder that holds it may be replaced, with ``--overwrite``.
MARKER = ".mtbn-output.json"

register("out-empty", _UsageError, "--out is empty; give the folder to write into",
         cause="--out was given an empty (or blank) path, which would have meant the current folder.",
         fix="Name a new or empty folder, e.g. --out results (--out . for the current folder, if it is empty).")
register("out-dangling-link", _UsageError, "--out {out!r} is a symbolic link to {target!r}, which does not exist",
         cause="The output path is a symbolic link whose target is missing, so nothing could be written through it.",
         fix="Create the link's target folder, remove the link, or give another folder.")
register("out-busy", _UsageError,
         "--out {out!r} is being written by another mtbn run (process {pid}); wait for it to finish or give "
         "another folder",
         cause="Two runs writing one output folder at the same time would replace or mix each other's results.",
         fix="Wait for the other run (its process id is shown), or choose another --out folder.")
register("out-is-a-file", _UsageError, "--out {out!r} is a file, not a folder",
         cause="The output path names an existing file.", fix="Give a folder path (new or existing).")
register("out-not-writable", _UsageError, "--out {out!r} cannot be created or written ({probe!r} is not a writable folder)",
         cause="The output folder, or the folder it would be created in, cannot be written.",
         fix="Choose a folder you can write to, or fix its permissions.")
register("constraint-file-columns", _UsageError, "{option} {path}: the file needs the columns {columns}",
         cause="A constraint file (--require, --forbid, --tiers) lacks its header columns.",
         fix="Write a header line: source,target for --require/--forbid; variable,tier for --tiers.")
register("constraint-file-read", _UsageError, "{option} {path}: cannot read it as a CSV file ({reason})",
         cause="A constraint file (--require, --forbid, --tiers) is missing, unreadable, or has a row with more "
               "cells than its header.",
         fix="Check the path; write one edge (source,target) or one variable (variable,tier) per line.")
register("task-column-one-file", _UsageError, "--task-column splits one CSV file into tasks; got {n} files",
         cause="With --task-column every task comes from the rows of a single file.",
         fix="Give one CSV file, or leave out --task-column to read one task per file.")
register("out-not-empty", _UsageError,
         "--out {out!r} already holds the results of an earlier run; give a new folder, or --overwrite to replace it",
         cause="Writing into a folder that holds another run's outputs would mix the two runs' files.",
         fix="Give a new or empty folder, or add --overwrite to replace the earlier run's folder whole.")
register("out-not-mtbn", _UsageError,
         "--out {out!r} holds files mtbn did not write (e.g. {example!r}); give a new or empty folder",
         cause="A non-empty folder without mtbn's marker file: mtbn never replaces or mixes files it did not write, "
               "even with --overwrite.",
         fix="Give a new or empty folder.")
register("task-file-clash", _UsageError,
         "tasks {a!r} and {b!r} would write files whose names differ at most in case ({stem_a!r}, {stem_b!r}); "
         "rename one",
         cause="Two task names map to file names that are equal on a case-insensitive file system (Windows, macOS).",
         fix="Rename one of the tasks (the file, or its value in the --task-column).")
register("duplicate-task-file", _UsageError, "two CSV files give the task name {name!r}; rename one",
         cause="Two input files with the same file name (in different folders) would be the same task.",
         fix="Rename one of the files: the task name is the file name without .csv.")


# ---------------------------------------------------------------------------
# Task names as file names
# ---------------------------------------------------------------------------

_SAFE = frozenset(string.ascii_letters + string.digits + "-_.")
# Device names Windows reserves whatever the extension.
_RESERVED = frozenset(["con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))])
#: The longest stem written; a longer one is cut and ends in ``~`` and 16 hex digits of the name's SHA-256.
MAX_STEM = 120


def _escape(char):
    return "".join(f"%{b:02X}" for b in char.encode("utf-8", "surrogatepass"))


def write_summary(path, summary):
    """Write a run's ``summary.json``: strict JSON, a number JSON cannot hold (NaN, an infinite log-likelihood)
    written as null, numpy numbers as Python ones.

    Parameters
    ----------
    path : str
        The file written.
    summary : dict
        The run's record.
    """
    import math

    import numpy as np

    def ready(value):
        if isinstance(value, dict):
            return {k: ready(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [ready(v) for v in value]
        if isinstance(value, np.generic):  # a numpy scalar
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    with open(path, "w", encoding="utf-8") as fh:
        json.dump(ready(summary), fh, indent=2, allow_nan=False)


def task_file_stem(name):
    """The stem of a task's file names: the task name with every character outside ``[A-Za-z0-9._-]`` as ``%XX``.

    A leading or trailing dot is escaped too (no hidden file, no ``..``), a
    name Windows reserves (``CON``, ``nul``, ``COM1``, ...) gets its first
    letter escaped, an empty name becomes ``_``, and a stem longer than :data:`MAX_STEM` characters is cut and ends in
    ``~`` and 16 hex digits of the name's SHA-256, so it stays unique.

    >>> task_file_stem("north")
    'north'
    >>> task_file_stem("../../escaped")
    '%2E.%2F..%2Fescaped'
    >>> task_file_stem("a/b c")
    'a%2Fb%20c'
    >>> task_file_stem("CON")
    '%43ON'
    """
    stem = "".join(c if c in _SAFE else _escape(c) for c in name) or "_"
    if stem.startswith("."):
        stem = "%2E" + stem[1:]
    if stem.endswith("."):
        stem = stem[:-1] + "%2E"
    if stem.split(".")[0].lower() in _RESERVED:
        stem = _escape(stem[0]) + stem[1:]
    if len(stem) > MAX_STEM:
        head = stem[:MAX_STEM - 17]
        head = head[:head.rfind("%")] if "%" in head[-2:] else head  # never cut an escape in two
        stem = f"{head}~{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return stem


def task_file_stems(names):
    """``{task name: file stem}`` (:func:`task_file_stem`); refuses two stems equal after case folding."""
    stems = {name: task_file_stem(name) for name in names}
    seen = {}
    for name, stem in stems.items():
        other = seen.setdefault(stem.casefold(), name)
        if other != name:
            raise _usage_error("task-file-clash", a=other, b=name, stem_a=stems[other], stem_b=stem)
    return stems


def writable_tasks(tasks):
    """Each task's file stem (:func:`task_file_stems`), after checking that every writer can hold the tasks'
    variable names and state labels (XMLBIF is the strictest: no control characters but tab and line breaks),
    so that a run never fails after its work."""
    from mtbn.networks import check_xmlbif_text

    for task in tasks:
        check_xmlbif_text(task.names, task.states)
    return task_file_stems([t.name for t in tasks])


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _task_names(paths):
    """The task names of one-task-per-file inputs (the file stems), refused when two are the same."""
    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _usage_error("duplicate-task-file", name=dupes[0])
    return names


def read_named_tasks(paths, dropna, progress=None, discretize=None):
    """Read one task per CSV file, named by the file stem (names must be unique); ``progress`` sees each file read.

    Returns the list of tasks and the :class:`~mtbn.data.discretization.Discretization` applied (None without
    ``discretize``, see :func:`discretize_option`).
    """
    from mtbn.data import read_csv

    names = _task_names(paths)
    if discretize is None:
        return [read_csv(p, dropna=dropna, progress=progress) for p in paths], None
    ts = _discretized(paths, names, discretize, progress, dropna)
    return list(ts.tasks), ts.discretization


def read_taskset(paths, *, dropna, task_column, progress=None, discretize=None):
    """The tasks of ``mtbn learn``: one per CSV file, or one per value of ``task_column`` of one file; one
    :func:`~mtbn.data.make_taskset` call names, splits, discretises and aligns them."""
    from mtbn.data import make_taskset, read_csv

    if task_column is not None and len(paths) != 1:
        raise _usage_error("task-column-one-file", n=len(paths))
    names = _task_names(paths)
    if discretize is not None:
        return _discretized(paths, names, discretize, progress, dropna, task_column)

    def read(path):
        data = read_csv(path, dropna=dropna, progress=progress)  # coded chunk by chunk: bounded memory
        return data if task_column is None else data.to_dataframe()

    tasks = read(paths[0]) if task_column is not None else {n: read(p) for n, p in zip(names, paths)}
    return make_taskset(tasks, dropna=dropna, task_column=task_column)


def _discretized(paths, names, discretize, progress, dropna, task_column=None):
    """The tasks of the CSV files (one per file, or per value of ``task_column`` of one file) with
    ``discretize`` applied: :func:`~mtbn.data.make_taskset`'s TaskSet of them (its ``discretization`` the one
    applied, :func:`mtbn.data.discretization.apply_discretization`).

    Each file is read with its continuous columns as numbers (:func:`mtbn.data.csvfile.read_csv_columns`:
    8 bytes per cell, not their text); a task with such a column that is not discretised is read again as text
    and given the same cut points, so every task is what its text gives (the same labels, the same messages).
    """
    import dataclasses

    from mtbn.data import make_taskset
    from mtbn.data.csvfile import read_csv_columns, read_csv_frame
    from mtbn.data.discretization import apply_discretization
    from mtbn.data.taskset import as_named_items

    def items(read, which=None):
        if task_column is not None:
            return as_named_items(read(paths[0], names[0]), task_column)
        return [(n, read(p, n)) for n, p in zip(names, paths) if which is None or n in which]

    keep = () if task_column is None else (task_column,)  # the tasks' names as written
    frames = dict(items(lambda p, n: read_csv_columns(p, name=n, progress=progress, text=keep)))
    done, discretization = apply_discretization(frames, discretize)
    stale = {n for n, f in frames.items() if any(f[c].dtype.kind == "f" == done[n][c].dtype.kind for c in f.columns)}
    if stale:
        for n, text in items(lambda p, n: read_csv_frame(p, name=n, progress=progress), stale):
            if n in stale:
                done[n] = discretization.transform(text, n)
    return dataclasses.replace(make_taskset(done, dropna=dropna), discretization=discretization)


def discretize_option(args):
    """``--discretize METHOD[:K]|FILE.json``, ``--discretize-columns`` and ``--discretize-per-task`` as one value
    for :func:`read_named_tasks` and :func:`read_taskset` (None without ``--discretize``)."""
    spec = getattr(args, "discretize", None)
    if spec is None:
        return None
    if spec.endswith(".json") or os.path.isfile(spec):
        from mtbn.data.discretization import Discretization

        try:
            with open(spec, encoding="utf-8") as fh:
                spec = Discretization.from_dict(json.load(fh))
        except (OSError, ValueError) as exc:
            raise _usage_error("discretize-file", path=spec, reason=getattr(exc, "strerror", None) or exc) from None
    columns = [c.strip() for c in args.discretize_columns.split(",") if c.strip()] if args.discretize_columns else None
    return {"method": spec, "columns": columns, "per_task": args.discretize_per_task}


def write_discretization(out, discretization):
    """``discretization.json`` in ``out`` (nothing without a discretisation)."""
    if discretization is None:
        return
    with open(os.path.join(out, "discretization.json"), "w", encoding="utf-8") as fh:
        json.dump(discretization.to_dict(), fh, indent=2)


def _read_table(path, option, columns):
    """Rows of the given columns of a small CSV file (constraints), as tuples of str; None without a file."""
    if path is None:
        return None
    import pandas as pd

    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        reason = getattr(exc, "strerror", None) or " ".join(str(exc).split()).removeprefix("Error tokenizing data. ")
        raise _usage_error("constraint-file-read", option=option, path=path, reason=reason) from None
    df.columns = [c.strip() for c in df.columns]
    if any(c not in df.columns for c in columns):
        raise _usage_error("constraint-file-columns", option=option, path=path, columns=",".join(columns))
    return [tuple(str(x).strip() for x in row) for row in df[list(columns)].itertuples(index=False)]


def _tier_key(level):
    """Tiers sort as numbers where they are numbers, then as labels."""
    try:
        return (0, float(level), "")
    except ValueError:
        return (1, 0.0, level)


def read_constraints(require, forbid, tiers):
    """``learn_structures``'s ``required_edges``, ``forbidden_edges`` and ``tiers`` from the constraint files."""
    rows = _read_table(tiers, "--tiers", ("variable", "tier"))
    if rows is not None:
        rows = [[v for v, t in rows if t == level] for level in sorted({t for _, t in rows}, key=_tier_key)]
    return {"required_edges": _read_table(require, "--require", ("source", "target")),
            "forbidden_edges": _read_table(forbid, "--forbid", ("source", "target")),
            "tiers": rows}


#: What ``--bootstrap`` writes, as ``summary.json`` lists it.
BOOTSTRAP_FILES = ("bootstrap/<task>.strength.csv (per task: from, to, strength, direction), "
                   "bootstrap/edges.csv (per adjacency: each task's strength, present in all / one / no task), "
                   "bootstrap/<task>.averaged.edges.csv (the averaged network at the threshold); with "
                   "--interventions bootstrap/mechanisms.csv (task x variable: how often its mechanism changes)")


def bootstrap_summary(boot, n_boot, averaged):
    """``summary.json``'s ``bootstrap`` entry: the replicates, their penalty and structures, each task's threshold."""
    return {"n_boot": n_boot, "penalty": boot.penalty,
            "structures": "interventional" if boot.changed is not None else "pooled" if boot.pooled else "multitask",
            "learned_alone": list(boot.alone), "thresholds": {name: thr for name, (_, thr) in averaged.items()},
            "files": BOOTSTRAP_FILES}


def write_bootstrap(out, boot, averaged, stems):
    """``--bootstrap``'s files in ``out/bootstrap`` (:data:`BOOTSTRAP_FILES`): ``averaged`` is each task's
    ``(averaged network, threshold)`` by name, ``stems`` each task's file stem."""
    folder = os.path.join(out, "bootstrap")
    os.makedirs(folder)
    boot.edge_table().to_csv(os.path.join(folder, "edges.csv"), index=False)
    for name, (dag, _) in averaged.items():
        boot.strength(name).to_csv(os.path.join(folder, f"{stems[name]}.strength.csv"), index=False)
        dag.write(os.path.join(folder, f"{stems[name]}.averaged.edges.csv"))
    frequency = boot.mechanism_frequency()
    if frequency is not None:  # task x variable: how often the mechanism changes
        frequency.rename_axis("task").to_csv(os.path.join(folder, "mechanisms.csv"))


# ---------------------------------------------------------------------------
# --from: the structures and distances of an earlier run
# ---------------------------------------------------------------------------

register("discretize-file", _UsageError, "--discretize {path!r}: cannot read it as a discretization.json ({reason})",
         cause="--discretize was given a file that is not a discretization.json an mtbn run wrote.",
         fix="Give METHOD[:K] (e.g. quantile:3), or the discretization.json of an earlier run.")
# ---------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------


def _is_mtbn_output(path):
    return os.path.isfile(os.path.join(path, MARKER))


def out_path(out):
    """The real path of ``--out``: symbolic links resolved (the outputs go to the link's target folder), a
    link to nothing refused."""
    if not str(out).strip():
        raise _usage_error("out-empty")
    path = os.path.abspath(out)
    if os.path.islink(path) and not os.path.exists(path):
        raise _usage_error("out-dangling-link", out=out, target=os.readlink(path))
    return os.path.realpath(path)


def check_out(out, *, overwrite=False, resumes=None):
    """Refuse an --out folder that cannot be written, or that holds another run, before any work is done.

    ``resumes(path)``: for ``mtbn bench``, true when the folder holds a run
    the command continues (the command then checks that its settings match).
    """
    path = out_path(out)
    if os.path.exists(path) and not os.path.isdir(path):
        raise _usage_error("out-is-a-file", out=out)
    # The outputs are staged in a hidden folder beside --out, so its parent must be writable too.
    probe = os.path.dirname(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK | os.X_OK):
        raise _usage_error("out-not-writable", out=out, probe=probe)
    if not os.path.isdir(path):
        return
    if not os.access(path, os.W_OK | os.X_OK):
        raise _usage_error("out-not-writable", out=out, probe=path)
    entries = sorted(os.listdir(path))
    if not entries or (resumes is not None and resumes(path)):
        return
    if not _is_mtbn_output(path):
        raise _usage_error("out-not-mtbn", out=out, example=entries[0])
    if not overwrite:
        raise _usage_error("out-not-empty", out=out)


@contextlib.contextmanager
def claimed_out(out, *, overwrite=False, resumes=None):
    """:func:`check_out`, then hold ``--out``'s lock until the block ends: a second run into the same folder
    is refused (``out-busy``) instead of replacing or mixing with this one.

    The lock is an ``fcntl`` lock on a hidden file beside the folder, which
    the system releases when the process ends, however it ends (on systems
    without ``fcntl`` there is no lock).
    """
    check_out(out, overwrite=overwrite, resumes=resumes)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    final = out_path(out)
    parent = os.path.dirname(final)
    created = []  # the folders made for the lock, removed again if the run leaves them empty
    probe = parent
    while not os.path.exists(probe):
        created.append(probe)
        probe = os.path.dirname(probe)
    os.makedirs(parent, exist_ok=True)
    lock = os.path.join(parent, f".{os.path.basename(final)}.mtbn-lock")
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pid = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise _usage_error("out-busy", out=out, pid=pid) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:  # not a lock file its previous holder removed while we waited for it
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        # Again, holding the lock: a run that published between the first check and the lock is seen now.
        check_out(out, overwrite=overwrite, resumes=resumes)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.remove(lock)
        os.close(fd)
        for folder in created:  # deepest first; a folder that holds the outputs is not empty
            with contextlib.suppress(OSError):
                os.rmdir(folder)


def write_marker(folder, command):
    """Write :data:`MARKER`: the command, the mtbn version and the files in ``folder``."""
    from mtbn import __version__

    written = sorted(os.path.relpath(os.path.join(root, f), folder)
                     for root, _, names in os.walk(folder) for f in names if f != MARKER)
    with open(os.path.join(folder, MARKER), "w", encoding="utf-8") as fh:
        json.dump({"written_by": "mtbn", "version": __version__, "command": command, "files": written}, fh,
                  indent=2)


def clear_out(out, also=None):
    """Empty an mtbn output folder (``--overwrite`` of a resumable command), or one for which ``also(path)`` is
    true (a killed benchmark, which has no marker yet); anything else is left alone."""
    path = out_path(out)
    if os.path.isdir(path) and (_is_mtbn_output(path) or (also is not None and also(path))):
        for entry in os.listdir(path):
            full = os.path.join(path, entry)
            shutil.rmtree(full) if os.path.isdir(full) and not os.path.islink(full) else os.remove(full)


@contextlib.contextmanager
def staged_output(out, command):
    """Write a command's outputs into a hidden folder beside ``out``; publish them only on success.

    A failed or interrupted run removes the hidden folder, so it leaves
    nothing behind and never touches a previous result. On success the
    folder gets :data:`MARKER` and replaces ``out`` whole: a new or empty
    ``out`` by one rename, an earlier run's folder (``--overwrite``, checked
    by :func:`check_out`) by moving it aside, renaming ours in and deleting
    the old one, so the two runs' files never mix.
    """
    final = out_path(out)
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.", suffix=".partial", dir=parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(stage, 0o777 & ~umask)
    old = None
    try:
        yield stage
        write_marker(stage, command)
        raise_if_stopped()  # an interrupted run publishes nothing, even if a library swallowed the signal
        if os.path.isdir(final) and not os.listdir(final):
            os.rmdir(final)
        if os.path.exists(final):
            if not _is_mtbn_output(final):  # appeared during the run: never replace what mtbn did not write
                raise _usage_error("out-not-mtbn", out=out, example=sorted(os.listdir(final))[0])
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.", suffix=".old", dir=parent)
            os.replace(final, os.path.join(old, "previous"))
        os.replace(stage, final)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def write_task_outputs(out, stem, dag, network, export=()):
    """``out/<stem>.bifxml``, ``out/<stem>.edges.csv``, ``out/<stem>.bif`` when BIF can hold the network, and
    ``out/<stem>.<format>`` for each ``export`` format; returns whether ``.bif`` was written (a linear Gaussian
    network: ``out/<stem>.gaussian.json`` and the edges instead, and True).

    ``stem`` is the task's :func:`task_file_stem`, never the raw task name.
    The XMLBIF file keeps every variable name and state label exactly
    (pgmpy's ``XMLBIFReader`` and pyAgrum return them as the user gave them).
    BIF is written only when every name and label is a token that pgmpy and
    pyAgrum read back unchanged (:func:`mtbn.networks.bif_portable`): a
    file other tools would read with other names is not written at all.
    """
    from mtbn.networks import bif_portable, write_bif, write_xmlbif
    from mtbn.networks.gaussian import LinearGaussianNetwork, write_gaussian_network

    if isinstance(network, LinearGaussianNetwork):  # continuous tasks: pgmpy's JSON of the regressions
        write_gaussian_network(network, os.path.join(out, f"{stem}.gaussian.json"))
        dag.write(os.path.join(out, f"{stem}.edges.csv"))
        for fmt in export:
            dag.write(os.path.join(out, f"{stem}.{fmt}"))
        return True
    portable = bif_portable(network)
    if portable:
        write_bif(network, os.path.join(out, f"{stem}.bif"))
    write_xmlbif(network, os.path.join(out, f"{stem}.bifxml"))
    dag.write(os.path.join(out, f"{stem}.edges.csv"))
    for fmt in export:
        dag.write(os.path.join(out, f"{stem}.{fmt}"))
    return portable


def bif_note(names):
    """The line printed when the tasks ``names`` got no ``.bif`` file ("" when every task got one)."""
    if not names:
        return ""
    return (f"note: no .bif for {', '.join(map(repr, names))}: a name or label BIF readers would change "
            "(spaces, punctuation, 5-7, 1.5, ...); the .bifxml files hold them exactly")
