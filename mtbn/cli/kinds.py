"""``mtbn learn`` on tasks a registered kind of data claims (:mod:`mtbn.learn.kinds`): continuous CSV files
(every column a number, some continuous) are learned as linear Gaussian networks with no option to set.

Written: what the kind writes per task (``DIR/<task>.edges.csv``; for continuous tasks also
``DIR/<task>.gaussian.json``: pgmpy's JSON for linear Gaussian networks, each variable's parents, intercept,
coefficients and residual variance; ``LinearGaussianBayesianNetwork.load`` reads it),
``DIR/summary.json`` (``"kind"``, the penalty, each task's edges and mean log-likelihood per row, and what the
kind records: for continuous tasks the penalty path, the guard's verdict, the sharing strength) and, with
``--report``, ``DIR/report.html`` and ``DIR/report.md``. Continuous tasks with ``--interventions`` (interventional
conditions, :mod:`mtbn.learn.gaussian_interventions`) also get ``DIR/interventions/`` (the causal DAG's
``causal.gaussian.json`` and ``causal.edges.csv``, ``mechanisms.csv``, with ``--predict`` the predicted
condition's) and ``summary.json``'s ``"interventions"``. An option of the discrete learner the kind's learner
does not take is refused with one line naming it.
"""

import os
import time

from mtbn.cli.files import task_file_stems, write_summary
from mtbn.cli.interventions import (
    mechanism_lines,
    predict_condition,
    predicted_targets,
    summary_entry,
    write_interventions,
)
from mtbn.cli.values import _usage_error, _UsageError
from mtbn.exceptions import InvalidDataError
from mtbn.messages import error, register

__all__ = ["kind_frames", "kind_frames_of_column", "complete_frames", "cmd_learn_kind", "stray_labels"]

register("kind-option", _UsageError,
         "{option} is not available for {kind} tasks (learned as {learned_as}); drop it, or give --discretize "
         "to learn discrete networks",
         cause="The learner of this kind of data does not take this option of the discrete one.",
         fix="Drop the option, or discretise the columns (--discretize quantile) to use it.")

register("numbers-with-labels", InvalidDataError,
         "task {task!r}, column {column!r}, file line {line}: {value!r} is not a number; the files hold numbers but "
         "for {count} cell(s) of {labels}, so they were read as discrete data, whose continuous columns need "
         "--discretize. Leave missing values empty (--dropna drops their rows) to learn Gaussian networks, or "
         "discretise.",
         cause="A file of measurements marks missing values with a word (NA, nan, ?) instead of an empty cell; only "
               "an empty cell is missing, so the word is a label and the files are read as discrete data.",
         fix="Write missing values as empty cells (pandas: to_csv(na_rep='')) and learn with --dropna or impute "
             "them; or discretise the columns (--discretize quantile).")

#: Distinct labels at most that :func:`stray_labels` takes for missing-value marks in files of numbers.
STRAY_LABELS = 3

#: The options of ``mtbn learn`` that are not learner settings, refused for every kind of data but the discrete
#: one when set (dest: flag); :data:`KNOWLEDGE_FILES` are read for a kind whose learner takes background knowledge.
COMMAND_ONLY = {"bootstrap": "--bootstrap", "require": "--require", "forbid": "--forbid", "tiers": "--tiers",
                "task_column": "--task-column", "predict": "--predict", "predict_children": "--predict-children"}
#: The background knowledge files (dest), read into ``required_edges``, ``forbidden_edges`` and ``tiers``.
KNOWLEDGE_FILES = ("require", "forbid", "tiers")


def kind_frames(paths, progress=None):
    """``(kind, {stem: DataFrame})`` when a registered kind of data claims the files, else None. The first file
    is asked first. While every registered kind takes numbers only
    (:attr:`mtbn.learn.kinds.DataKind.numbers_only`), each file is read as numbers
    (:func:`mtbn.data.csvfile.read_csv_numbers`: 8 bytes per cell, never its text) and a file with a label ends
    the question after its first chunk of rows holding one (no kind claims it): discrete files are read once
    more only in part. Otherwise the cells are read as text (:func:`mtbn.data.csvfile.read_csv_frame`). While
    every kind needs a fraction (:attr:`mtbn.learn.kinds.DataKind.needs_fractions`), a first file whose numbers
    are all written whole (:func:`mtbn.data.csvfile.written_whole`: integer codes) is not read at all.

    Parameters
    ----------
    paths : list of str
        The CSV files, one task each.
    progress : Reporter, optional
        Sees each file read.

    Returns
    -------
    tuple of (DataKind, dict of str -> pandas.DataFrame) or None
    """
    from mtbn.data.csvfile import read_csv_frame, read_csv_numbers, written_whole
    from mtbn.learn.kinds import DATA_KINDS, kind_of

    kinds = DATA_KINDS.values()
    if paths and all(kind.needs_fractions for kind in kinds) and written_whole(paths[0]):
        return None  # no number with a fraction in the first file: no kind claims it, nothing read
    read = read_csv_numbers if all(kind.numbers_only for kind in kinds) else read_csv_frame
    frames = {}
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        frame = read(path, name=stem, progress=progress)
        if frame is None:
            return None  # a label: no kind that takes numbers only claims the tasks
        frames[stem] = frame
        if len(frames) == 1 and kind_of(frames) is None:
            return None
    kind = kind_of(frames)
    return None if kind is None else (kind, frames)


def kind_frames_of_column(path, task_column, progress=None):
    """``(kind, {task: DataFrame})`` when a registered kind of data claims the tasks of the file ``path`` split by
    the values of ``task_column`` (``mtbn learn --task-column``), else None. Its first
    :data:`mtbn.data.csvfile.CHUNK_ROWS` rows are asked first, so a file no kind claims (discrete data) is read
    once more only in part; a file that cannot be read so is left to the discrete reader, which says why.

    Parameters
    ----------
    path : str
        The CSV file.
    task_column : str
        The column whose values name the tasks.
    progress : Reporter, optional
        Sees the file read.

    Returns
    -------
    tuple of (DataKind, dict of str -> pandas.DataFrame) or None
        The tasks as the cells' text, the task column dropped.
    """
    from mtbn.data.csvfile import read_csv_frame, read_csv_head
    from mtbn.learn.kinds import kind_of, split_by_task_column

    head = read_csv_head(path)
    if head is None:  # the discrete reader names what is wrong
        return None
    if task_column not in head.columns:
        raise error("task-column-missing", column=task_column)
    if kind_of(split_by_task_column(head, task_column)) is None:
        return None
    frames = split_by_task_column(read_csv_frame(path, progress=progress), task_column)
    kind = kind_of(frames)
    return None if kind is None else (kind, frames)


def stray_labels(paths):
    """The error for files of numbers that hold a few cells of at most :data:`STRAY_LABELS` labels (a word
    marking missing values: ``NA``, ``nan``, ``?``) and that, read with those cells missing, a registered kind
    of data would claim (e.g. continuous files), naming the first such cell; None for other files (discrete
    ones, a column of labels, files no kind claims anyway). Read when the discrete reader refuses a continuous
    column of the files (:func:`mtbn.data.csvfile.numbers_and_labels`: a float per cell held, not their text).

    Parameters
    ----------
    paths : list of str
        The CSV files, one task each.

    Returns
    -------
    InvalidDataError or None
    """
    import numpy as np

    from mtbn.data.csvfile import numbers_and_labels
    from mtbn.learn.kinds import kind_of

    first, labels, frames = None, {}, {}
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        found = numbers_and_labels(path, name=stem, limit=STRAY_LABELS)
        if found is None:
            return None
        frame, words, where = found
        if np.isnan(frame.to_numpy()).all(axis=0).any():
            return None  # a column without a number: labels, not words for missing values
        for word, n in words.items():
            labels[word] = labels.get(word, 0) + n
        if len(labels) > STRAY_LABELS:
            return None
        if first is None and where is not None:
            first = (stem, *where)
        frames[stem] = frame
    if first is None or kind_of(frames) is None:  # no word to blame, or no kind would take the numbers
        return None
    task, column, value, line = first
    return error("numbers-with-labels", task=task, column=column, line=line, value=value,
                 count=sum(labels.values()), labels=", ".join(map(repr, sorted(labels))))


def cmd_learn_kind(args, kind, frames, split=False):
    """Learn the tasks ``frames`` of ``kind`` with its learner and write them into ``--out``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``mtbn learn`` options.
    kind : DataKind
        The kind that claimed the tasks (:func:`kind_frames`).
    frames : dict of str -> pandas.DataFrame
        The tasks.
    split : bool, default False
        The tasks are one file's, split by ``--task-column`` (:func:`kind_frames_of_column`).

    Returns
    -------
    int
        The exit status (0).
    """
    from mtbn.cli.common import _run_in_out_folder
    from mtbn.learn.kinds import DataKind, kind_settings
    from mtbn.learn.settings import MULTITASK

    what = dict(kind=kind.description or kind.name, learned_as=kind.learned_as)
    knows = {"required_edges", "forbidden_edges", "tiers"} <= set(kind.settings)  # background knowledge files read
    resamples = type(kind).task_data is not DataKind.task_data  # --bootstrap
    conditions = "interventions" in kind.settings  # --predict, --predict-children
    for dest, flag in COMMAND_ONLY.items():
        if getattr(args, dest, None) and not (knows and dest in KNOWLEDGE_FILES) \
                and not (resamples and dest == "bootstrap") and not (split and dest == "task_column") \
                and not (conditions and dest in ("predict", "predict_children")):
            raise _usage_error("kind-option", option=flag, **what)
    given = dict(MULTITASK.from_args(args), task_column=None)  # tasks already split
    if knows:
        from mtbn.cli.files import read_constraints

        given.update(read_constraints(args.require, args.forbid, args.tiers))
    settings = kind_settings(kind, given, MULTITASK.defaults(), {s.name: s.flag for s in MULTITASK if s.flag})
    frames = complete_frames(frames, [] if split else args.csv, bool(args.dropna))  # split tasks: not a file's lines
    stems = task_file_stems([str(name) for name in frames])  # refuses two that one file system would confuse
    first = next(iter(frames.values()), None)
    predict = None if not conditions else predicted_targets(args, [] if first is None else
                                                            [str(c) for c in first.columns])
    return _run_in_out_folder(args, lambda progress: _learn(args, kind, frames, settings, progress, predict),
                              lambda done, out, progress: _write(args, kind, done, out, stems),
                              lambda done, seconds, written: _print(kind, done))


def complete_frames(frames, paths, dropna):
    """The tasks without their incomplete rows (a cell empty, or NaN) with ``--dropna``, each task's count
    warned; else the first task with a missing cell is refused, naming its columns and file lines (as for
    discrete tasks, :func:`mtbn.data.frames.complete_rows`). An infinite number is refused either way, by its
    file line (the dropped rows counted).

    Parameters
    ----------
    frames : dict of str -> pandas.DataFrame
        The tasks, by name (a file's stem, whose lines the messages name; other names: their rows).
    paths : list of str
        The CSV files the tasks were read from.
    dropna : bool
        Drop the incomplete rows (``--dropna``) instead of refusing them.

    Returns
    -------
    dict of str -> pandas.DataFrame
        The tasks, complete.
    """
    import numpy as np

    from mtbn.data.continuous import not_finite
    from mtbn.data.frames import complete_rows

    sources = {os.path.splitext(os.path.basename(p))[0]: p for p in paths}
    out = {}
    for name, frame in frames.items():
        missing = (frame.isna() | (frame == "")).to_numpy()
        names, source = [str(c) for c in frame.columns], sources.get(name)
        keep = complete_rows(list(missing.T), names, name, dropna, frame.index, source)
        kept = frame if keep is None else frame[keep]
        if source is not None and all(dtype == np.float64 for dtype in kept.dtypes):  # an infinite cell, by line
            not_finite(kept.to_numpy(), names, name, lambda i, index=kept.index: f"file line {index[i] + 2} of "
                                                                                 f"{source!r}")
        out[name] = kept if keep is None else kept.reset_index(drop=True)
    return out


def _learn(args, kind, frames, settings, progress, predict=None):
    from mtbn.learn.kinds import DataKind

    t0 = time.perf_counter()
    if "progress" in kind.settings:  # the command's reporter (--progress), as the discrete learner gets it
        settings = dict(settings, progress=progress)
    res = kind.learn(frames, **settings)
    transfer = getattr(res, "transfer", None)
    if transfer is not None and "message" in transfer:
        print(transfer["message"])
    model = getattr(res, "interventions", None)
    if model is not None:
        for line in mechanism_lines(model):
            print(line)
    data = kind.task_data(frames) or {}  # what --from checks the files against (the relatedness commands read it)
    provided = type(kind).mean_log_likelihoods is not DataKind.mean_log_likelihoods
    lls = kind.mean_log_likelihoods(res, data or frames) if provided else {}  # the tasks read once, not twice
    summary = {"kind": kind.name, "penalty": None if model is not None else res.penalty,  # one causal DAG: none
               "tasks": {name: _task_record(g, frames[name], lls.get(name), data.get(name))
                         for name, g in zip(res.task_names, res.graphs)},
               "options": {"out": args.out, "prior": args.prior, "score": getattr(res, "score", None) or args.score,
                           "report": bool(args.report)}}  # the score used (continuous tasks: "bdeu" means BGe)
    boot = averaged = None
    if args.bootstrap:  # the replicates at the learner's penalty (its structures only)
        from mtbn.bootstrap import bootstrap_structures
        from mtbn.cli.files import bootstrap_summary

        boot = bootstrap_structures(frames, n_boot=args.bootstrap, result=res, progress=progress,
                                    **{k: v for k, v in settings.items() if k != "progress"})
        averaged = {name: boot.averaged_network(name) for name in boot.task_names}
        summary["bootstrap"] = bootstrap_summary(boot, args.bootstrap, averaged)
    predicted = None
    if model is not None:
        summary["interventions"] = summary_entry(args, model, res.log_score, INTERVENTION_FILES)
        predicted = predict_condition(args, model, predict)
    summary["seconds"] = time.perf_counter() - t0
    return res, summary, boot, averaged, predicted


def _task_record(graph, frame, mean_log_likelihood, data):
    """A task's entry in ``summary.json``: what the discrete learner records (its edges, rows and, when the kind
    gives the task's data one, the data's fingerprint), so a later ``--from`` reads the folder as it reads theirs."""
    record = {"edges": [list(e) for e in graph.edges(names=True)], "n_edges": graph.n_edges,
              "mean_log_likelihood": mean_log_likelihood, "n_samples": int(len(frame))}
    fingerprint = getattr(data, "fingerprint", None)
    if fingerprint is not None:
        record["fingerprint"] = fingerprint()
    return record


#: The ``interventions/`` folder of continuous tasks, for ``summary.json``.
INTERVENTION_FILES = ("interventions/causal.gaussian.json and causal.edges.csv (the causal DAG with the reference "
                      "regime's regressions), interventions/mechanisms.csv (task, variable, how: given, learned or "
                      "activity), "
                      "with --predict interventions/predicted.gaussian.json and predicted.edges.csv")


def _write_gaussian(folder, stem, net):
    from mtbn.graph import DAG
    from mtbn.networks.gaussian import write_gaussian_network

    DAG([set(p) for p in net.parents], net.names).write(os.path.join(folder, f"{stem}.edges.csv"))
    write_gaussian_network(net, os.path.join(folder, f"{stem}.gaussian.json"))


def _write(args, kind, done, out, stems):
    res, summary, boot, averaged, predicted = done
    if getattr(res, "interventions", None) is not None:
        write_interventions(out, res.interventions, predicted, _write_gaussian)
    for name, info in summary["tasks"].items():
        info["file_stem"] = stems[name]
    summary.update(kind.write(res, out, stems))
    for name, graph in zip(res.task_names, res.graphs):  # --export: the structures in the graph formats asked
        for fmt in args.export:
            graph.write(os.path.join(out, f"{stems[name]}.{fmt}"))
    write_summary(os.path.join(out, "summary.json"), summary)
    if args.report:
        from mtbn.report import write_learn_report

        write_learn_report(res, out, bootstrap=boot, options=summary["options"])
    if boot is not None:
        from mtbn.cli.files import write_bootstrap

        write_bootstrap(out, boot, averaged, stems)
    return None


def _print(kind, done):
    res, summary = done[:2]
    score = f"{summary['score']}, " if "score" in summary else ""
    how = "one causal DAG" if "interventions" in summary else f"penalty {res.penalty:g}"
    print(f"learned {len(res.task_names)} {kind.description or kind.name} task(s) as {kind.learned_as} ({score}{how}) "
          f"in {summary['seconds']:.2f} s; wrote {summary['options']['out']}")
    for name, info in summary["tasks"].items():
        ll = info["mean_log_likelihood"]
        print(f"  {name}: {info['n_edges']} edges" + ("" if ll is None else f", mean log-likelihood {ll:.4f}"))
