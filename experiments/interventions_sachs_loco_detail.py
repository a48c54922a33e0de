"""Where the left-out Sachs conditions' predictions lose (issue 46): per variable, and with hedged CPTs.

Run: ``python experiments/interventions_sachs_loco_detail.py [--bins 3] [--seed 0]`` (``MTBN_JOBS`` sets the
parallel conditions, default 2; a few minutes). The set-up of ``interventions_sachs.py``'s leave-one-condition-out
part: each of the seven conditions with targets left out in turn, the methods learned on the other eight
(cut points on those eight). Writes ``experiments/out/interventions_sachs/``:

* ``loco_variables.csv`` / ``loco_variables.md``: per left-out condition and non-target variable, the mean
  per-row ``log P(v | parents)`` of its rows under ``known`` (the learner's default, as a user gets it), under
  ``known-kept`` (the same model predicted with ``children="keep"``, the targets' children keeping their
  reference CPTs as if they still saw the targets: ``known`` chose activity interventions, whose prediction
  averages each child's CPT over its target's states), under ``known-perfect`` (perfect interventions on the
  default learner's adjacencies) and under the default learner's structure with CPTs fitted on the eight
  conditions pooled, read as ``do(targets)`` (its factors of the non-targets; ``interventions_sachs.py`` scores
  it by conditioning on the targets instead, which differs where a target has parents), each with the
  variable's parents;
* ``loco_hedged.md``: the mean over the seven conditions of the per-row log-likelihood of the non-targets when
  every predicted CPT is mixed with the uniform distribution, ``lam * P(v | parents) + (1 - lam) / r_v``: whether
  hedging against a shift no training condition showed changes which model predicts better.
"""

import argparse
import os

import numpy as np
import pandas as pd
from _common import OUT, jobs, write_out
from interventions_sachs import INTERVENTIONAL, factors, left_out

from mtbn.data import load_sachs_conditions
from mtbn.engine import job, parallel
from mtbn.learn.interventional import learn_interventional
from mtbn.networks import fit_parameters

FOLDER = os.path.join(OUT, "interventions_sachs")
MODELS = ("known", "known-kept", "known-perfect", "default")
WEIGHTS = (1.0, 0.95, 0.9, 0.8, 0.7, 0.5)


def _factors(network, data, targets):
    """Per non-target variable of ``network``: its rows' ``P(v | parents)``, its state count and its parents."""
    return {network.names[v]: (p, len(network.states[v]), [network.names[q] for q in network.parents[v]])
            for v, p in factors(network, data, targets)}


def detail(condition, bins, seed):
    """One left-out condition: per model and non-target variable, its rows' factors (and parents)."""
    targets, ts, held, given, default = left_out(condition, bins, seed)
    nets = {"default": fit_parameters(default.graphs[0], ts.pooled())}
    for method in ("known", "known-perfect"):
        res = learn_interventional(ts, given, random_state=seed, adjacencies_from=default, **INTERVENTIONAL[method])
        nets[method] = res.interventions.predict(targets)
        if method == "known":  # the same model, its targets' children keeping their reference CPTs
            nets["known-kept"] = res.interventions.predict(targets, children="keep")
    rows = []
    for model, net in nets.items():
        for name, (p, r, parents) in _factors(net, held, targets).items():
            row = {"condition": condition, "targets": ",".join(targets), "model": model, "variable": name,
                   "parents": ",".join(parents)}
            row.update({f"lam={w:g}": float(np.log(w * p + (1 - w) / r).mean()) for w in WEIGHTS})
            rows.append(row)
    return rows


def variables_table(frame):
    """Markdown: per condition and variable, each model's mean log factor (lam = 1) and parents."""
    wide = frame.pivot_table(index=["condition", "variable"], columns="model", values="lam=1", sort=False)
    parents = frame.pivot_table(index=["condition", "variable"], columns="model", values="parents",
                                aggfunc="first", sort=False)
    lines = ["| condition | variable | " + " | ".join(f"{m} | {m}: parents" for m in MODELS) + " |",
             "|---" * (2 + 2 * len(MODELS)) + "|"]
    for (condition, variable), row in wide.iterrows():
        cells = [f"{row[m]:.3f} | {parents.loc[(condition, variable), m] or '-'}" for m in MODELS]
        lines.append(f"| {condition} | {variable} | " + " | ".join(cells) + " |")
    totals = frame.groupby(["condition", "model"], sort=False)["lam=1"].sum().unstack()
    lines += ["", "Per condition, the sum over its non-targets (the per-row log-likelihood of `loco.md`, the default's "
                  "read as do(targets)):", "", "| condition | " + " | ".join(MODELS) + " |",
              "|---" * (1 + len(MODELS)) + "|"]
    for condition, row in totals.iterrows():
        lines.append(f"| {condition} | " + " | ".join(f"{row[m]:.3f}" for m in MODELS) + " |")
    return "\n".join(lines) + "\n"


def hedged_table(frame):
    """Markdown: per model and weight, the mean over the conditions of the summed log factors."""
    cols = [f"lam={w:g}" for w in WEIGHTS]
    per = frame.groupby(["model", "condition"], sort=False)[cols].sum().groupby(level=0, sort=False).mean()
    lines = ["Mean over the seven left-out conditions of the per-row log-likelihood of the non-targets, each "
             "predicted CPT mixed with the uniform distribution (weight `lam` on the model):", "",
             "| model | " + " | ".join(cols) + " |", "|---" * (1 + len(cols)) + "|"]
    for model in MODELS:
        lines.append(f"| {model} | " + " | ".join(f"{per.loc[model, c]:.3f}" for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bins", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    conditions = [n for n, v in load_sachs_conditions().intervention_targets().items() if v]
    found = parallel(jobs(), len(conditions))(job(detail)(c, args.bins, args.seed) for c in conditions)
    frame = pd.DataFrame([row for rows in found for row in rows])
    frame.to_csv(os.path.join(FOLDER, "loco_variables.csv"), index=False)
    write_out("interventions_sachs/loco_variables.md", variables_table(frame))
    write_out("interventions_sachs/loco_hedged.md", hedged_table(frame))


if __name__ == "__main__":
    main()
