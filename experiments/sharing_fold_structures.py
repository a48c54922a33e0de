"""Which fold structures should choose the sharing strength with a given penalty (issue 50, item 5)?

Run: ``python experiments/sharing_fold_structures.py [--rows 250 1000] [--trials 5] [--problems alarm ...]``

With a given penalty the learner chooses the parameter-sharing strength by cross-validation on structures that
never saw the held-out rows (issue 47): each fold's *joint* search at the penalty on its training rows, a fifth or
more of the whole command's time with many tasks. The cheaper candidate tried here: each fold's *single-task*
searches (the joint search's start, searched anyway). Per problem and trial (seeded as
``sharing_choice_fixed.py``: 5 tasks, edge deletion 0.05, 5000 test rows per task), one
``learn_structures(penalty=0.99, n_restarts=5, parameter_sharing="auto")`` run, whose folds, fold structures of
both kinds and held-out rows are read as it runs (hooks on :func:`mtbn.learn.multitask.fold_problems` and
:func:`mtbn.learn.multitask.choose_sharing`); the strength :func:`mtbn.learn.sharing.choose_sharing` picks on
each kind, the same folds and rows; the final structures' CPTs fitted with each strength and scored by KL from
the true networks (lower is better), with ``alone`` (0) and ``oracle`` (the grid's lowest KL; looks at the
truth, not a method).

A network path (``.bif``/``.bif.gz``, e.g. pgmpy's example models) is accepted as a problem: its related tasks.
Each trial is kept in ``experiments/out/sharing_fold_structures/`` (a killed run resumes).
"""

import argparse
import os
import sys

import numpy as np
import pandas as pd
import pgmpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mtbn.benchmarks import make_problem  # noqa: E402
from mtbn.data import make_taskset  # noqa: E402
from mtbn.graph import DAG  # noqa: E402
from mtbn.learn.sharing import choose_sharing  # noqa: E402
from mtbn.networks import sample  # noqa: E402
from mtbn.stats import paired_comparison  # noqa: E402
from sharing_choice_fixed import kl_by_strength, learn_watched, stored_trials, watch_choice, with_rules  # noqa: E402

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "sharing_fold_structures")
EXAMPLES = os.path.join(os.path.dirname(pgmpy.__file__), "utils", "example_models")
RULES = ("alone", "fold-joint", "fold-single", "oracle")


def _problem(name):
    """A benchmark problem name, or a pgmpy example network's name (its related tasks)."""
    path = os.path.join(EXAMPLES, f"{name}.bif.gz")
    return path if os.path.exists(path) else name


def trial(problem, rows, t):
    rng = np.random.default_rng([t, 32])
    nets = make_problem(_problem(problem), n_tasks=5, p_del=0.05, random_state=rng)
    train = make_taskset({f"t{i}": sample(n, rows, random_state=rng) for i, n in enumerate(nets)})
    tests = [sample(n, 5000, random_state=rng) for n in nets]
    seen = {}

    def folds_hook(real, *args, **kwargs):
        seen["prepared"] = out = real(*args, **kwargs)
        return out

    auto, seconds = learn_watched(train, {"fold_problems": folds_hook, "choose_sharing": watch_choice(seen)},
                                  n_restarts=5, random_state=t)
    trains, held_out, ess = seen["trains"], seen["held_out"], seen["ess"]
    single = []  # each fold's single-task searches: the start of its joint search
    for f, (_, starts, _) in enumerate(seen["prepared"].problems):
        config = dict(starts)["single-task"]
        single.append([DAG(parents, d.names) for parents, d in zip(config, trains[f])])
    strengths = {"alone": 0.0,
                 "fold-joint": choose_sharing(seen["joint"], trains, held_out, ess).strength,
                 "fold-single": choose_sharing(single, trains, held_out, ess).strength}
    assert strengths["fold-joint"] == (auto.sharing_strength or 0.0)
    row = {"problem": problem, "rows": rows, "trial": t, "seconds": seconds,
           "fold_edges_joint": np.mean([g.n_edges for fold in seen["joint"] for g in fold]),
           "fold_edges_single": np.mean([g.n_edges for fold in single for g in fold])}
    return with_rules(row, strengths, kl_by_strength(auto.graphs, train, nets, tests))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[250, 1000])
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--problems", nargs="+",
                    default=["alarm", "alarm-ind", "sachs", "sachs-ind", "hepar2", "hepar2-ind", "insurance",
                             "win95pts", "child", "barley"])
    args = ap.parse_args()
    d = stored_trials(FOLDER, args.rows, args.problems, args.trials, trial)
    print("\n| problem | rows | trials | " + " | ".join(f"KL {r}" for r in RULES)
          + " | strengths fold-joint | strengths fold-single | fold edges joint / single |")
    print("|---|---|---|" + "---|" * (len(RULES) + 3))
    for (problem, rows), g in d.groupby(["problem", "rows"], sort=False):
        def fmt(col):
            return ", ".join(f"{x:g}" for x in g[col])
        print(f"| {problem} | {rows} | {len(g)} | " + " | ".join(f"{g[f'kl_{r}'].mean():.4f}" for r in RULES)
              + f" | {fmt('strength_fold-joint')} | {fmt('strength_fold-single')} | "
                f"{g['fold_edges_joint'].mean():.1f} / {g['fold_edges_single'].mean():.1f} |")
    print("\nPaired over trials (first minus second, KL: negative = first better), 95% t interval:\n")
    print("| rows | comparison | trials | mean difference [95% CI] | p (t) | same strength |")
    print("|---|---|---|---|---|---|")
    for rows, g in list(d.groupby("rows")) + [("all", d)]:
        for a, b in (("fold-single", "fold-joint"), ("fold-single", "alone"), ("fold-joint", "alone")):
            c = paired_comparison(g[f"kl_{a}"], g[f"kl_{b}"])
            same = int((g[f"strength_{a}"] == g[f"strength_{b}"]).sum())
            print(f"| {rows} | {a} - {b} | {len(g)} | {c['mean_diff']:+.5f} [{c['ci_low']:+.5f}, "
                  f"{c['ci_high']:+.5f}] | {c['p_t']:.2g} | {same} of {len(g)} |")


if __name__ == "__main__":
    main()
