"""``mtbn learn`` on continuous tasks: CSV files whose every column is a number and some look continuous are
learned as linear Gaussian networks (:func:`mtbn.learn.learn_gaussian_structures`), with no option to set.

Written: ``DIR/<task>.edges.csv`` and ``DIR/<task>.gaussian.json`` (each variable's parents, intercept,
coefficients and residual variance) per task, ``DIR/summary.json`` (``"kind": "gaussian"``, the penalty, its
path, the guard's verdict, the sharing strength) and, with ``--report``, ``DIR/report.html`` and ``DIR/report.md``. The options of the discrete learner that the Gaussian one does
not take are refused with one line naming them.
"""

import json
import os
import time

import numpy as np

from mtbn.cli.values import _usage_error, _UsageError
from mtbn.messages import register

__all__ = ["continuous_frames", "cmd_learn_gaussian"]

register("gaussian-option", _UsageError,
         "{option} is not available for continuous tasks (learned as Gaussian networks); drop it, or give "
         "--discretize to learn discrete networks",
         cause="The Gaussian learner does not yet take this option of the discrete one.",
         fix="Drop the option, or discretise the columns (--discretize quantile) to use it.")

#: The options of ``mtbn learn`` the Gaussian path refuses when set (dest: flag).
UNSUPPORTED = {"interventions": "--interventions", "bootstrap": "--bootstrap", "require": "--require",
               "forbid": "--forbid", "tiers": "--tiers", "export": "--export",
               "task_column": "--task-column", "dropna": "--dropna", "predict": "--predict"}


def continuous_frames(paths, progress=None):
    """``{task: DataFrame of floats}`` when every column of every file is a number and some column looks
    continuous (some values not whole, more than 20 distinct), else None (the discrete path reads them).

    Parameters
    ----------
    paths : list of str
        The CSV files, one task each.
    progress : Reporter, optional
        Sees each file read.

    Returns
    -------
    dict of str -> pandas.DataFrame or None
    """
    import pandas as pd

    from mtbn.data.csvfile import read_csv_frame

    frames, looks_continuous = {}, False
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        raw = read_csv_frame(path, name=stem, progress=progress)
        numbers = raw.apply(pd.to_numeric, errors="coerce")
        if numbers.isna().to_numpy().any() or not len(numbers.columns):
            return None  # a label, or a missing cell: the discrete reader says which
        values = numbers.to_numpy(dtype=float)
        for j in range(values.shape[1]):
            col = values[:, j]
            if np.any(col != np.round(col)) and len(np.unique(col)) > 20:
                looks_continuous = True
        frames[stem] = numbers.astype(float)
    return frames if looks_continuous else None


def cmd_learn_gaussian(args, frames):
    """Learn the continuous tasks ``frames`` as Gaussian networks and write them into ``--out``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``mtbn learn`` options.
    frames : dict of str -> pandas.DataFrame
        The tasks (from :func:`continuous_frames`).

    Returns
    -------
    int
        The exit status (0).
    """
    from mtbn.cli.common import _run_in_out_folder

    for dest, flag in UNSUPPORTED.items():
        if getattr(args, dest, None):
            raise _usage_error("gaussian-option", option=flag)
    return _run_in_out_folder(args, lambda progress: _learn(args, frames), _write, _print)


def _learn(args, frames):
    from mtbn.learn.gaussian import learn_gaussian_structures
    from mtbn.learn.settings import MULTITASK

    t0 = time.perf_counter()
    s = MULTITASK.from_args(args)
    score = s["score"] if s["score"] in ("bge", "bic-g") else "bge"  # BDeu (the default) names no Gaussian score
    penalty = 0.0 if s["prior"] == "none" else s["penalty"]
    res = learn_gaussian_structures(frames, penalty=penalty, prior="paired" if s["prior"] == "none" else s["prior"],
                                    score=score, max_parents=s["max_parents"], n_restarts=s["n_restarts"],
                                    n_joint_restarts=s["n_joint_restarts"], cv=s["cv"],
                                    force_transfer=bool(s["force_transfer"]), random_state=s["random_state"])
    if res.transfer is not None:
        print(res.transfer["message"])
    summary = {"kind": "gaussian", "score": score, "penalty": res.penalty,
               "penalty_path": [{"penalty": p, "validation_log_likelihood": m, "se_vs_best": e}
                                for p, m, e in res.penalty_path],
               "transfer": None if res.transfer is None else {k: v for k, v in res.transfer.items()
                                                             if k != "tasks"},
               "sharing_strength": res.sharing_strength,
               "tasks": {name: {"n_edges": len(g.edges()), "log_likelihood": net.log_likelihood(d)}
                         for name, g, net, d in zip(res.task_names, res.graphs, res.networks,
                                                    _datas(frames))},
               "options": {"out": args.out, "prior": args.prior, "score": score, "report": bool(args.report)},
               "seconds": time.perf_counter() - t0}
    return res, summary


def _datas(frames):
    from mtbn.data import continuous_from_dataframe

    return [continuous_from_dataframe(f, name=n) for n, f in frames.items()]


def _write(done, out, progress):
    res, summary = done
    for name, graph, net in zip(res.task_names, res.graphs, res.networks):
        stem = name  # a file's stem (the tasks are files)
        graph.write(os.path.join(out, f"{stem}.edges.csv"))
        params = {v: {"parents": [net.names[p] for p in ps], "intercept": float(net.intercepts[i]),
                      "coefficients": [float(b) for b in net.coefficients[i]], "variance": float(net.variances[i])}
                  for i, (v, ps) in enumerate(zip(net.names, net.parents))}
        with open(os.path.join(out, f"{stem}.gaussian.json"), "w", encoding="utf-8") as fh:
            json.dump({"name": name, "variables": params}, fh, indent=1)
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=2, default=float)
    if summary["options"].get("report"):
        from mtbn.report import write_learn_report

        write_learn_report(res, out, options=summary["options"])
    return None


def _print(done, seconds, written):
    res, summary = done
    print(f"learned {len(res.task_names)} continuous task(s) as Gaussian networks ({summary['score']}, penalty "
          f"{res.penalty:g}) in {summary['seconds']:.2f} s; wrote {summary['options']['out']}")
    for name, info in summary["tasks"].items():
        print(f"  {name}: {info['n_edges']} edges, log-likelihood {info['log_likelihood']:.2f}")
