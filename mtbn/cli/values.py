"""Option values: turn the text of a command-line option into a checked value.

Each function here is an argparse ``type=`` (it raises
:class:`argparse.ArgumentTypeError`, printed as ``mtbn COMMAND: error:
argument --OPTION: <message>``), except :func:`penalty_list`, which a command
calls itself and which raises :class:`_UsageError`, printed by
:func:`mtbn.cli.main` as ``mtbn: error: <message>``. The messages are
registered in :mod:`mtbn.messages`.
"""

import argparse

from mtbn._validation import MAX_ESS, is_penalty
from mtbn.messages import error, register, text

__all__ = ["unit_interval", "penalty", "validation", "int_at_least", "nonneg_int", "seed", "folds", "jobs",
           "positive_float", "export_formats", "select_n", "cluster_n", "noise_floor", "penalty_list"]


class _UsageError(Exception):
    """A command-line mistake found before any work (printed as ``mtbn: error: ...``)."""


def _usage_error(code, **fields):
    return _UsageError(text(code, **fields))


A = argparse.ArgumentTypeError  # printed by argparse as "mtbn COMMAND: error: argument --OPTION: <message>"
register("option-unit-number", A, "must be a number in [0, 1]; got {value!r}",
         cause="A penalty option that is not a number.", fix="Write a number between 0 and 1 (e.g. 0.9).")
register("option-unit-range", A, "must be in [0, 1]; got {value!r}",
         cause="A penalty option outside [0, 1] (or nan).", fix="Write a number between 0 and 1, or 'auto'.")
register("option-validation", A, "must be a fraction in (0, 1) or a row count >= 1; got {value!r}",
         cause="--validation / --selection-validation that is neither a fraction nor a whole row count.",
         fix="Write e.g. 0.05 (5% of each task's rows) or 50 (rows per task).")
register("option-integer", A, "must be an integer >= {minimum}; got {value!r}",
         cause="An option that takes a whole number got text, a fraction or a number too small.",
         fix="Write a whole number at least as large as the minimum named.")
register("option-export", A, "unknown format {value!r}; give some of {formats}",
         cause="--export names a graph format mtbn does not write.", fix="Write e.g. --export dot,gml,json.")
register("option-jobs", A, "must be a positive integer or -1 (all cores); got {value!r}",
         cause="--jobs 0, below -1, or not a whole number.", fix="Write 1, a number of processes, or -1.")
register("option-positive", A, "must be a number > 0 and at most {limit:g}; got {value!r}",
         cause="--ess that is zero, negative, not a number, or above 10^6 (where BDeu loses its precision).",
         fix="Write a number above 0 (usually 1 to 10).")
register("option-select-n", A, "must be 'auto', 'gap' or an integer >= 0; got {value!r}",
         cause="select --n that is neither 'auto', 'gap' nor a whole number.",
         fix="Write auto, gap or the number of tasks to select.")
register("option-cluster-n", A, "must be 'auto' or an integer >= 1; got {value!r}",
         cause="cluster --n that is neither 'auto' nor a whole number >= 1.", fix="Write auto or a number of clusters.")
register("option-noise-floor", A, "must be 0 (no floor) or a number of replicates >= 2; got {value!r}",
         cause="--noise-floor 1: a floor is a quantile over replicates, so one replicate cannot give it.",
         fix="Write 0 for no floor or 2 or more (10 is the default).")
register("option-penalty-list-number", _UsageError, "--penalty: {value!r} is not a number",
         cause="bench --penalty with an entry that is not a number.", fix="Write numbers in [0, 1] separated by commas.")
register("option-penalty-list-range", _UsageError, "--penalty: {value!r} is outside [0, 1]",
         cause="bench --penalty with an entry outside [0, 1].", fix="Write numbers in [0, 1] separated by commas.")

register("option-sharing", A, "must be 'auto', 'none' or a strength >= 0 (inf = pooled); got {value!r}",
         cause="--share-parameters that is neither 'auto', 'none' nor a non-negative number.",
         fix="Write auto, none (each task's CPTs alone), a number of pseudo-counts (e.g. 100), 0 or inf (pooled).")
register("option-auto-switch", A, "must be 'auto', 'on' or 'off'; got {value!r}",
         cause="An on/off option with an automatic default got another word.",
         fix="Write auto (the default), on or off.")


register("option-interventions", A, "cannot read {path!r} as interventions ({reason})",
         cause="--interventions was given a file that is missing, unreadable, or neither a JSON object of task -> "
               "list of targets nor a CSV file with columns task,variable.",
         fix="Write e.g. {\"control\": [], \"drug\": [\"pmek\"]} in a .json file, or a CSV file with a "
             "header task,variable and one row per target (a row with an empty variable: an observational task).")


def interventions_file(path):
    """``--interventions FILE``: a JSON object ``{task: [targets] or null}``, or a CSV file with columns
    ``task,variable`` (one row per target; a task whose only row has an empty variable is observational; a task
    absent from the file has unknown targets). Returns the mapping ``interventions=`` takes."""
    import json

    def bad(reason):
        return error("option-interventions", path=path, reason=reason)

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise bad(getattr(exc, "strerror", None) or exc) from None
    if path.lower().endswith(".json") or text.lstrip().startswith("{"):
        def unique(pairs):
            keys = [k for k, _ in pairs]
            twice = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
            if twice is not None:  # json keeps the last silently
                raise bad(f"task {twice!r} is named twice")
            return dict(pairs)

        try:
            record = json.loads(text, object_pairs_hook=unique)
        except ValueError as exc:
            raise bad(f"not JSON: {exc}") from None
        if not isinstance(record, dict) or not all(
                v is None or (isinstance(v, list) and all(isinstance(x, str) for x in v)) for v in record.values()):
            raise bad("a JSON object of task name -> list of variable names (or null) is needed")
        return record
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    header = [c.strip() for c in rows[0]] if rows else []
    if header[:2] != ["task", "variable"]:
        raise bad("a CSV file needs the header task,variable")
    out = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 2:
            raise bad(f"line {line} has {len(row)} cells, not 2")
        task, variable = row[0].strip(), row[1].strip()
        out.setdefault(task, [])
        if variable:
            out[task].append(variable)
    return out


def sharing(text):
    """``--share-parameters``: ``"auto"``, ``"none"`` (None) or a strength >= 0 (``inf`` allowed)."""
    if text == "auto":
        return text
    if text == "none":
        return None
    value = _number(text, float, "option-sharing")
    if not value >= 0:  # also NaN
        raise error("option-sharing", value=text)
    return value


def auto_switch(text):
    """An on/off option whose default is ``"auto"``: ``auto``, ``on`` (True) or ``off`` (False)."""
    choices = {"auto": "auto", "on": True, "off": False}
    if text not in choices:
        raise error("option-auto-switch", value=text)
    return choices[text]


def _number(text, convert, code, **fields):
    """``convert(text)``, or the option error ``code`` when the text is not such a number."""
    try:
        return convert(text)
    except ValueError:
        raise error(code, value=text, **fields) from None


def unit_interval(text):
    """A number in [0, 1] (a fixed penalty delta)."""
    value = _number(text, float, "option-unit-number")
    if not is_penalty(value):
        raise error("option-unit-range", value=text)
    return value


def penalty(text):
    """A penalty in [0, 1], or ``"auto"`` (chosen on held-out rows)."""
    return "auto" if text == "auto" else unit_interval(text)


def validation(text):
    """A validation split: a fraction in (0, 1) or a whole number of rows >= 1."""
    value = _number(text, float, "option-validation")
    if value <= 0 or (value >= 1 and value != int(value)):
        raise error("option-validation", value=text)
    return int(value) if value >= 1 else value


def int_at_least(minimum):
    """An argparse type: an integer >= ``minimum``."""

    def parse(text):
        value = _number(text, int, "option-integer", minimum=minimum)
        if value < minimum:
            raise error("option-integer", minimum=minimum, value=text)
        return value

    return parse


nonneg_int = int_at_least(0)
seed = int_at_least(0)
folds = int_at_least(2)


def jobs(text):
    """A number of parallel jobs: a positive integer, or -1 for all cores."""
    value = _number(text, int, "option-jobs")
    if value == 0 or value < -1:
        raise error("option-jobs", value=text)
    return value


def positive_float(text):
    """A number > 0 and at most :data:`mtbn._validation.MAX_ESS` (the BDeu equivalent sample size)."""
    value = _number(text, float, "option-positive", limit=MAX_ESS)
    if not 0 < value <= MAX_ESS:
        raise error("option-positive", value=text, limit=MAX_ESS)
    return value


def export_formats(text):
    """Comma-separated graph formats of :data:`mtbn.graph.GRAPH_FORMATS` (but csv, always written)."""
    from mtbn.graph import GRAPH_FORMATS

    formats = [f.strip().lower().lstrip(".") for f in text.split(",") if f.strip()]
    for f in formats:
        if f not in GRAPH_FORMATS or f == "csv":
            raise error("option-export", value=f, formats=", ".join(x for x in GRAPH_FORMATS if x != "csv"))
    return tuple(dict.fromkeys(formats))


def select_n(text):
    """``select --n``: ``"auto"``, ``"gap"`` or a number of tasks >= 0."""
    if text in ("auto", "gap"):
        return text
    value = _number(text, int, "option-select-n")
    if value < 0:
        raise error("option-select-n", value=text)
    return value


def cluster_n(text):
    """``cluster --n``: ``"auto"`` or a number of clusters >= 1."""
    if text == "auto":
        return text
    value = _number(text, int, "option-cluster-n")
    if value < 1:
        raise error("option-cluster-n", value=text)
    return value


def noise_floor(text):
    """``--noise-floor``: 0 (none) or a number of permutation replicates >= 2."""
    value = nonneg_int(text)
    if value == 1:
        raise error("option-noise-floor", value=text)
    return value


#: How the command line reads each ``kind`` of setting (:class:`mtbn.learn.settings.Setting`).
CONVERTERS = {"positive_float": positive_float, "nonneg_int": nonneg_int, "penalty": penalty,
              "int_at_least_2": folds, "validation": validation, "seed": seed, "jobs": jobs, "sharing": sharing,
              "auto_switch": auto_switch, "interventions_file": interventions_file}


def penalty_list(text):
    """``bench --penalty D1,D2,...``: the penalties, each in [0, 1]."""
    values = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise _usage_error("option-penalty-list-number", value=part) from None
        if not is_penalty(v):
            raise _usage_error("option-penalty-list-range", value=part)
        values.append(v)
    return values
