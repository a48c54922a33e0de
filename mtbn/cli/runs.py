"""What earlier runs wrote, read back (``--from``) only after it is checked like user data.

A run folder holds JSON that a user can edit or damage: ``summary.json`` of
``mtbn learn``, ``relatedness.json`` of ``mtbn relatedness``. Every field
``--from`` uses is checked for its type, shape and range (one line naming
the field), and the data must be the data the run was computed from: each
task's :meth:`~mtbn.data.DiscreteData.fingerprint` (recorded from mtbn
0.2.0 on; older folders are checked by task names and row counts only).
"""

import json
import math
import os

from mtbn.cli.files import MARKER
from mtbn.cli.values import _usage_error, _UsageError
from mtbn.messages import register

__all__ = ["read_from", "fingerprints"]

register("measure-required", _UsageError, "--measure is required (direct or indirect) unless --from is given",
         cause="mtbn relatedness needs to know which measure to compute.",
         fix="Add --measure direct or --measure indirect, or --from DIR to reuse an earlier run's structures.")
register("from-not-a-run", _UsageError,
         "--from {path!r} is not the output of 'mtbn learn' or 'mtbn relatedness' ({why})",
         cause="--from reuses what an earlier learn or relatedness run wrote; the folder holds no such run.",
         fix="Give the --out folder of a finished 'mtbn learn' or 'mtbn relatedness' run.")
register("from-damaged", _UsageError, "--from {path!r}: {file} is damaged or was edited: {problem}",
         cause="A field of the earlier run's record has the wrong type, shape or range (e.g. a negative or NaN "
               "distance, an asymmetric matrix, edges that are not pairs of variable names).",
         fix="Run the earlier command again (its record is written whole), or restore the file.")
register("from-other-tasks", _UsageError,
         "--from {path!r} was computed on the tasks {given}, not on the CSV files given ({names})",
         cause="The earlier run had other tasks (a file added, removed or renamed).",
         fix="Give the same CSV files as the earlier run, or run it again on these files.")
register("from-other-rows", _UsageError,
         "--from {path!r}: task {task!r} had {before} rows there and has {now} now",
         cause="The CSV file changed since the earlier run (or --dropna differs), so its structures describe "
         "other data.",
         fix="Give the same data as the earlier run, or run it again.")
register("from-other-data", _UsageError,
         "--from {path!r}: task {task!r} holds other data than the run computed its distances from "
         "(fingerprint {before} there, {now} now)",
         cause="The CSV file's cells changed since the earlier run (same name and row count, other values), so "
               "the earlier structures and distances describe other data.",
         fix="Give the same data as the earlier run, or run it again on these files.")


def fingerprints(tasks):
    """``{task name: fingerprint}`` of the tasks (DiscreteData), as a run folder records them."""
    return {t.name: t.fingerprint() for t in tasks}


def _load(path, name):
    try:
        with open(os.path.join(path, name), encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        raise _usage_error("from-not-a-run", path=path, why=f"no readable {name}") from None


def read_from(path, tasks):
    """The distances to reuse with ``--from path`` for ``tasks`` (a list of DiscreteData) and a one-line note.

    A ``mtbn relatedness`` folder gives its distances (and noise floor) as
    they are; a ``mtbn learn`` folder gives the direct distance between the
    structures it wrote (no noise floor). The tasks must have the names,
    the numbers of rows and (when recorded) the fingerprints of that run.
    """
    marker = _load(path, MARKER)
    command = marker.get("command") if isinstance(marker, dict) else None
    if command not in ("learn", "relatedness"):
        raise _usage_error("from-not-a-run", path=path, why=f"written by 'mtbn {command}'")
    name = "summary.json" if command == "learn" else "relatedness.json"
    record = _load(path, name)

    def damaged(problem):
        return _usage_error("from-damaged", path=path, file=name, problem=problem)

    if not isinstance(record, dict):
        raise damaged("a JSON object is needed")
    by_name = {t.name: t for t in tasks}
    if command == "learn":
        given, rows, prints = _learn_tasks(record, damaged)
    else:
        given = record.get("names")
        if not isinstance(given, list) or not all(isinstance(n, str) for n in given):
            raise damaged("'names' must be a list of task names")
        options = record.get("options", {})
        rows = options.get("task_rows", {}) if isinstance(options, dict) else {}
        prints = options.get("task_fingerprints", {}) if isinstance(options, dict) else {}
    if sorted(given) != sorted(by_name):
        raise _usage_error("from-other-tasks", path=path, given=", ".join(given), names=", ".join(by_name))
    if not isinstance(rows, dict) or not isinstance(prints, dict):
        raise damaged("the task rows and fingerprints must map task names to values")
    for n, before in rows.items():
        if n in by_name and before != by_name[n].n_samples:
            raise _usage_error("from-other-rows", path=path, task=n, before=before, now=by_name[n].n_samples)
    for n, before in prints.items():
        now = by_name[n].fingerprint() if n in by_name else None
        if now is not None and before != now:
            raise _usage_error("from-other-data", path=path, task=n, before=before, now=now)
    if command == "relatedness":
        return _relatedness(record, damaged), f"{record['measure']} distances from {path} (mtbn relatedness), " \
                                              "not recomputed"
    return _learned_distances(record, given, by_name, damaged, path)


def _learn_tasks(record, damaged):
    """The task names, row counts and fingerprints of a ``summary.json`` (fingerprints absent before they were
    recorded)."""
    tasks = record.get("tasks")
    if not isinstance(tasks, dict) or not tasks:
        raise damaged("'tasks' must map each task name to its record")
    rows, prints = {}, {}
    for n, info in tasks.items():
        if not isinstance(info, dict):
            raise damaged(f"task {n!r}: a record (edges, n_samples) is needed")
        count = info.get("n_samples")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise damaged(f"task {n!r}: n_samples must be a row count; got {count!r}")
        rows[n] = count
        if "fingerprint" in info:
            prints[n] = info["fingerprint"]
    return list(tasks), rows, prints


def _relatedness(record, damaged):
    """The :class:`~mtbn.relatedness.RelatednessResult` of a ``relatedness.json``, its fields checked."""
    from mtbn.exceptions import InvalidParameterError
    from mtbn.relatedness import RelatednessResult

    try:
        return RelatednessResult.from_dict(record)
    except InvalidParameterError as exc:
        raise damaged(str(exc).removeprefix("relatedness record: ").rstrip(".")) from None


def _learned_distances(record, given, by_name, damaged, path):
    """The direct distances between the structures a ``summary.json`` records, and the note printed."""
    from mtbn.exceptions import CycleError, InvalidParameterError
    from mtbn.graph import DAG
    from mtbn.relatedness import RelatednessResult

    graphs = {}
    for n in given:
        edges = record["tasks"][n].get("edges")
        names = by_name[n].names
        if not isinstance(edges, list) or not all(isinstance(e, list) and len(e) == 2 and all(x in names for x in e)
                                                  for e in edges):
            raise damaged(f"task {n!r}: edges must be [parent, child] pairs of the task's columns")
        try:
            graphs[n] = DAG.from_edges(names, [tuple(e) for e in edges])
        except (CycleError, InvalidParameterError) as exc:
            raise damaged(f"task {n!r}: {exc}".rstrip(".")) from None
    how = "interventional" if "interventions" in record else None
    if how is None:
        penalty = record.get("penalty", 0.0)  # absent for --prior none
        if isinstance(penalty, bool) or not isinstance(penalty, (int, float)) or not (
                math.isfinite(penalty) and 0 <= penalty <= 1):
            raise damaged(f"penalty must be a number in [0, 1]; got {penalty!r}")
        how = f"penalty {penalty:.10g}"
    return (RelatednessResult.from_structures(graphs),
            f"direct distances between the structures of {path} (mtbn learn, {how}; no noise floor), not relearned")
