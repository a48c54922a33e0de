"""What the held-out choices cost (issue 46): the interventional learner as a user gets it (``intervention_type=
"auto"``, ``skeleton="heldout"``: the model and the adjacencies chosen on held-out rows) against the mechanism
model with the held-out choice of the adjacencies only, against keeping the multitask learner's adjacencies, and
against the default multitask learner alone, on the same tasks, one after another in one process.

Run: ``python experiments/interventions_cost.py [--cells sachs:1000 insurance:1000 alarm:1000 hepar2:250]``.
Each cell is trial 0 of the synthetic suite's mechanism-change cell (interventions_synthetic.py: one
observational task and six single-variable interventions). Writes ``experiments/out/interventions/cost.md``.
"""

import argparse
import time
import warnings

from _common import write_out
from interventions_synthetic import trial_tasks

from mtbn.learn import learn_structures
from mtbn.learn.interventional import learn_interventional


def cell(network, rows, trial=0):
    """Seconds of the default learner, and of the interventional learner (first stage included) with each
    skeleton, on the trial's tasks."""
    warnings.simplefilter("ignore")
    ts, targets, _, _, seed = trial_tasks(network, rows, "mechanism", trial)
    t0 = time.perf_counter()
    default = learn_structures(ts, random_state=seed)
    out = {"default": time.perf_counter() - t0}
    for label, settings in (("multitask", {"skeleton": "multitask", "intervention_type": "mechanism"}),
                            ("heldout", {"intervention_type": "mechanism"}), ("auto", {})):
        t0 = time.perf_counter()
        learn_interventional(ts, targets, random_state=seed, adjacencies_from=default, **settings)
        out[label] = out["default"] + time.perf_counter() - t0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", default=["sachs:1000", "insurance:1000", "alarm:1000", "hepar2:250"])
    args = ap.parse_args()
    lines = ["| network | rows | default learner (s) | interventional, multitask adjacencies (s) | "
             "held-out choice of the adjacencies (s) | and of the model (the default, s) | default / multitask | "
             "default / default learner |", "|---" * 8 + "|"]
    for spec in args.cells:
        network, rows = spec.split(":")
        s = cell(network, int(rows))
        lines.append(f"| {network} | {rows} | {s['default']:.1f} | {s['multitask']:.1f} | {s['heldout']:.1f} | "
                     f"{s['auto']:.1f} | {s['auto'] / s['multitask']:.2f} | {s['auto'] / s['default']:.2f} |")
        print(lines[-1], flush=True)
    write_out("interventions/cost.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
