"""Files of the command line: read the input CSV files, write the outputs into a staged folder.

The outputs of a command go first into a hidden folder beside ``--out`` and
are published only when the command succeeds (:func:`staged_output`), so a
failed or interrupted run leaves nothing behind and never touches an earlier
result. ``--out`` is checked before any work (:func:`check_out`).
"""

import contextlib
import errno
import os
import shutil
import tempfile

from mtbn.cli.signals import raise_if_stopped
from mtbn.cli.values import _usage_error, _UsageError
from mtbn.messages import register

__all__ = ["read_named_tasks", "read_taskset", "read_constraints", "check_out", "staged_output",
           "write_task_outputs"]

register("out-is-a-file", _UsageError, "--out {out!r} is a file, not a folder",
         cause="The output path names an existing file.", fix="Give a folder path (new or existing).")
register("out-not-writable", _UsageError, "--out {out!r} cannot be created or written ({probe!r} is not a writable folder)",
         cause="The output folder, or the folder it would be created in, cannot be written.",
         fix="Choose a folder you can write to, or fix its permissions.")
register("constraint-file-columns", _UsageError, "{option} {path}: the file needs the columns {columns}",
         cause="A constraint file (--require, --forbid, --tiers) lacks its header columns.",
         fix="Write a header line: source,target for --require/--forbid; variable,tier for --tiers.")
register("task-column-one-file", _UsageError, "--task-column splits one CSV file into tasks; got {n} files",
         cause="With --task-column every task comes from the rows of a single file.",
         fix="Give one CSV file, or leave out --task-column to read one task per file.")
register("duplicate-task-file", _UsageError, "two CSV files give the task name {name!r}; rename one",
         cause="Two input files with the same file name (in different folders) would be the same task.",
         fix="Rename one of the files: the task name is the file name without .csv.")


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def read_named_tasks(paths, dropna):
    """Read one task per CSV file, named by the file stem (names must be unique)."""
    from mtbn.data import read_csv

    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _usage_error("duplicate-task-file", name=dupes[0])
    return [read_csv(p, dropna=dropna) for p in paths]


def read_taskset(paths, *, dropna, task_column):
    """The tasks of ``mtbn learn``: one per CSV file, or one per value of ``task_column`` of one file."""
    from mtbn.data import make_taskset, read_csv

    if task_column is None:
        return make_taskset(read_named_tasks(paths, dropna))
    if len(paths) != 1:
        raise _usage_error("task-column-one-file", n=len(paths))
    return make_taskset(read_csv(paths[0], dropna=dropna).to_dataframe(), task_column=task_column)


def _read_table(path, option, columns):
    """Rows of the given columns of a small CSV file (constraints), as tuples of str; None without a file."""
    if path is None:
        return None
    import pandas as pd

    df = pd.read_csv(path, dtype=str, keep_default_na=False)
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


# ---------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------


def check_out(out):
    """Refuse an --out folder that cannot be written, before any work is done."""
    path = os.path.abspath(out)
    if os.path.exists(path) and not os.path.isdir(path):
        raise _usage_error("out-is-a-file", out=out)
    # The outputs are staged in a hidden folder beside --out, so its parent must be writable too.
    probe = os.path.dirname(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe) or not os.access(probe, os.W_OK | os.X_OK):
        raise _usage_error("out-not-writable", out=out, probe=probe)
    if os.path.isdir(path) and not os.access(path, os.W_OK | os.X_OK):
        raise _usage_error("out-not-writable", out=out, probe=path)


@contextlib.contextmanager
def staged_output(out):
    """Write a command's outputs into a hidden folder beside ``out``; publish them only on success.

    A failed or interrupted run removes the hidden folder, so it leaves
    nothing behind and never touches a previous result. On success a new or
    empty ``out`` is replaced by one rename; an ``out`` that already holds
    files gets ours file by file (each an atomic rename), keeping the rest.
    """
    final = os.path.abspath(out)
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.", suffix=".partial", dir=parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(stage, 0o777 & ~umask)
    try:
        yield stage
        raise_if_stopped()  # an interrupted run publishes nothing, even if a library swallowed the signal
        if os.path.isdir(final) and not os.listdir(final):
            os.rmdir(final)
        if not os.path.exists(final):
            os.replace(stage, final)
            return
        for root, _, files in os.walk(stage):
            dest = os.path.normpath(os.path.join(final, os.path.relpath(root, stage)))
            os.makedirs(dest, exist_ok=True)
            for name in files:
                _move_file(os.path.join(root, name), os.path.join(dest, name))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _move_file(src, dst):
    """Replace ``dst`` by ``src`` atomically, also when ``dst`` is on another file system (a mount point)."""
    try:
        os.replace(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        tmp = f"{dst}.mtbn-partial"
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)


def write_task_outputs(out, name, dag, network, export=()):
    """``out/<name>.bif``, ``out/<name>.edges.csv`` and ``out/<name>.<format>`` for each ``export`` format."""
    from mtbn.networks import write_bif

    write_bif(network, os.path.join(out, f"{name}.bif"))  # first: it refuses labels BIF cannot hold
    dag.write(os.path.join(out, f"{name}.edges.csv"))
    for fmt in export:
        dag.write(os.path.join(out, f"{name}.{fmt}"))
