"""The nine Sachs et al. (2005) signalling conditions: single-task, multitask and pooled learning (issue 31).

Run: ``python experiments/sachs_conditions.py [--folds 5] [--bins 3] [--seed 0]`` (a few minutes on 2 cores;
``MTBN_JOBS`` sets the jobs, default 2). Writes ``experiments/out/sachs/``:

* ``heldout.csv``: per fold and condition, the mean held-out log-likelihood per row of each method;
  one file per fold under ``folds/`` as it finishes, so a killed run resumes;
* ``structures.json``: the structures learned on all rows (single-task and the default multitask learner),
  the chosen penalty and the transfer verdict, for the per-condition arc comparison.

Protocol. Each condition's rows are cut into ``--folds`` folds (a stream per condition and seed). For each
fold, the cut points (quantile, ``--bins`` bins) are computed on the training rows of all conditions pooled
and applied to the held-out rows; then STL (``learn_structures(prior="none")``), MTL (the default learner:
5-fold CV of the penalty, the guard) and POOLED (one network, structure and parameters, learned on the
training rows of all conditions together) are learned on the training rows and score each condition's
held-out rows. There is no true network per condition, so held-out log-likelihood is the evidence.
``python experiments/results_doc.py`` turns the outputs into the Sachs section of docs/results.md.
"""

import argparse
import json
import os
import warnings

import numpy as np
import pandas as pd
from _common import OUT, jobs, progress

from mtbn.data import from_dataframe, load_sachs_conditions, make_taskset
from mtbn.data.discretization import discretize
from mtbn.learn import learn_structure, learn_structures
from mtbn.networks import fit_parameters, log_likelihood

FOLDER = os.path.join(OUT, "sachs")


def _folds(n_rows, n_folds, seed, t):
    order = np.random.default_rng([seed, 31, t]).permutation(n_rows)
    return np.array_split(order, n_folds)


def _split(tasks, n_folds, seed, fold):
    train, test = {}, {}
    for t, (name, frame) in enumerate(tasks.items()):
        held = np.sort(_folds(len(frame), n_folds, seed, t)[fold])
        mask = np.zeros(len(frame), dtype=bool)
        mask[held] = True
        train[name], test[name] = frame[~mask].reset_index(drop=True), frame[mask].reset_index(drop=True)
    return train, test


def _learn_all(train, n_bins, seed):
    """STL and MTL results and the pooled network, on discretised training rows; and the cut points."""
    frames, cuts = discretize(train, f"quantile:{n_bins}")
    ts = make_taskset(frames)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stl = learn_structures(ts, prior="none", random_state=seed, n_jobs=jobs())
        mtl = learn_structures(ts, random_state=seed, n_jobs=jobs())
    pooled_data = make_taskset({"pooled": pd.concat(list(frames.values()), ignore_index=True)}).tasks[0]
    pooled_graph = learn_structure(pooled_data, random_state=seed).graph
    pooled = fit_parameters(pooled_graph, pooled_data)
    return ts, cuts, stl, mtl, pooled


def run_fold(tasks, n_folds, n_bins, seed, fold):
    train, test = _split(tasks, n_folds, seed, fold)
    ts, cuts, stl, mtl, pooled = _learn_all(train, n_bins, seed)
    rows = []
    for t, name in enumerate(ts.names):
        held = from_dataframe(cuts.transform(test[name], name), name=name)
        rows.append({"fold": fold, "condition": name, "n_test": held.n_samples,
                     "stl": log_likelihood(stl.networks[t], held), "mtl": log_likelihood(mtl.networks[t], held),
                     "pooled": log_likelihood(pooled, held), "mtl_penalty": mtl.penalty,
                     "mtl_transfer": mtl.transfer["status"]})
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--bins", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tasks = load_sachs_conditions().tasks
    os.makedirs(os.path.join(FOLDER, "folds"), exist_ok=True)
    with open(os.path.join(FOLDER, "config.json"), "w", encoding="utf-8") as fh:
        json.dump(vars(args), fh, indent=2)
    parts = []
    for fold in range(args.folds):
        path = os.path.join(FOLDER, "folds", f"fold{fold}.csv")
        if not os.path.exists(path):
            progress(f"fold {fold + 1}/{args.folds}")
            run_fold(tasks, args.folds, args.bins, args.seed, fold).to_csv(path + ".part", index=False)
            os.replace(path + ".part", path)
        parts.append(pd.read_csv(path))
    pd.concat(parts, ignore_index=True).to_csv(os.path.join(FOLDER, "heldout.csv"), index=False)
    progress("all rows")
    ts, cuts, stl, mtl, _ = _learn_all(tasks, args.bins, args.seed)
    record = {"penalty": mtl.penalty, "transfer": mtl.transfer["message"], "status": mtl.transfer["status"],
              "in_selection_gain": mtl.transfer["gain"], "in_selection_se": mtl.transfer["se"],
              "discretization": cuts.to_dict(),
              "stl": {n: [list(e) for e in g.edges(names=True)] for n, g in zip(ts.names, stl.graphs)},
              "mtl": {n: [list(e) for e in g.edges(names=True)] for n, g in zip(ts.names, mtl.graphs)}}
    with open(os.path.join(FOLDER, "structures.json"), "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
    progress(f"wrote {FOLDER}")


if __name__ == "__main__":
    main()
