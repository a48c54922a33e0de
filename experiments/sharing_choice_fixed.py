"""How to choose the sharing strength with a given penalty without a leak (issue 47, item 3; issue 50, item 5).

Run: ``python experiments/sharing_choice_fixed.py [--rows 250] [--trials 5] [--problems alarm,...]``

Per problem and trial (seeded like ``parameter_sharing_probe.py``: 5 related tasks, edge deletion 0.05): the
training rows and 5000 test rows per task; ``learn_structures(penalty=0.99, n_restarts=5)`` with
``parameter_sharing="auto"`` (its strength: cross-validation on every fold's own structures, learned at the
penalty on the fold's training rows, so no held-out row was seen by the structures scoring it), timed, and
with ``parameter_sharing=None`` (timed: the same final structures, no choice). On the final structures, the
CPTs are fitted with the strength each rule picks and scored by KL from the true networks (lower is better):

* ``alone`` (0) and ``pooled`` (inf);
* ``fold-cv``: the learner's choice above;
* ``evidence``: the strength of highest marginal likelihood
  (:func:`mtbn.networks.shared_fitting.evidence_by_strength`; no held-out rows, no extra search);
* ``leaky-cv``: the rule before issue 47 (:func:`mtbn.networks.choose_sharing_strength` on the final
  structures, which saw every held-out row);
* ``oracle``: the strength of the grid with the lowest KL (looks at the truth; not a method).

Each trial is stored in ``experiments/out/sharing_choice/`` and reused (a killed run resumes). Prints the mean
KL per rule, paired t-tests of ``evidence`` against ``fold-cv`` and of each against ``alone`` (over all
trials of the table), and the seconds of the choice.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mtbn.benchmarks import make_problem  # noqa: E402
from mtbn.data import make_taskset  # noqa: E402
from mtbn.learn import learn_structures  # noqa: E402
from mtbn.metrics import kl_divergence  # noqa: E402
from mtbn.networks import choose_sharing_strength, evidence_by_strength, fit_shared_parameters, sample  # noqa: E402
from mtbn.networks.shared_fitting import STRENGTH_GRID  # noqa: E402
from mtbn.stats import paired_comparison  # noqa: E402

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "sharing_choice")
RULES = ("alone", "fold-cv", "evidence", "leaky-cv", "pooled", "oracle")


def trial(problem, rows, t):
    rng = np.random.default_rng([t, 32])
    nets = make_problem(problem, n_tasks=5, p_del=0.05, random_state=rng)
    train = make_taskset({f"t{i}": sample(n, rows, random_state=rng) for i, n in enumerate(nets)})
    tests = [sample(n, 5000, random_state=rng) for n in nets]
    kw = dict(penalty=0.99, n_restarts=5, random_state=t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        plain = learn_structures(train, parameter_sharing=None, **kw)
        t_plain = time.perf_counter() - t0
        t0 = time.perf_counter()
        auto = learn_structures(train, parameter_sharing="auto", **kw)
        t_auto = time.perf_counter() - t0
    assert [g.parents for g in plain.graphs] == [g.parents for g in auto.graphs]
    graphs = auto.graphs
    t0 = time.perf_counter()
    ev = evidence_by_strength(graphs, train)
    evidence = max(STRENGTH_GRID, key=lambda g: (ev[g], -g))
    t_evidence = time.perf_counter() - t0
    leaky, _ = choose_sharing_strength(graphs, train, random_state=t)
    kl = kl_by_strength(graphs, train, nets, tests)
    strengths = {"alone": 0.0, "fold-cv": auto.sharing_strength if auto.sharing_strength is not None else 0.0,
                 "evidence": evidence, "leaky-cv": leaky, "pooled": float("inf")}
    row = {"problem": problem, "rows": rows, "trial": t, "seconds_none": t_plain, "seconds_fold_cv": t_auto,
           "seconds_evidence": t_evidence}
    return with_rules(row, strengths, kl)


def learn_watched(train, hooks, **kw):
    """``learn_structures(train, parameter_sharing="auto", penalty=0.99, **kw)``, warnings silenced, with each
    ``hooks[name](real, *args, **kwargs)`` called in place of ``mtbn.learn.multitask``'s function ``name`` (the
    real one passed first) during the run; returns ``(result, seconds)``."""
    import mtbn.learn.multitask as multitask

    real = {name: getattr(multitask, name) for name in hooks}
    for name, hook in hooks.items():
        setattr(multitask, name, lambda *args, _hook=hook, _real=real[name], **kwargs: _hook(_real, *args, **kwargs))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            result = learn_structures(train, parameter_sharing="auto", penalty=0.99, **kw)
            return result, time.perf_counter() - t0
    finally:
        for name, function in real.items():
            setattr(multitask, name, function)


def watch_choice(seen):
    """A hook for :func:`learn_watched` on ``choose_sharing``: keeps its fold structures, training and held-out
    rows and ess in ``seen`` (``joint``, ``trains``, ``held_out``, ``ess``)."""
    def hook(real, fold_graphs, trains, held_out, ess, *args, **kwargs):
        seen.update(joint=fold_graphs, trains=trains, held_out=held_out, ess=ess)
        return real(fold_graphs, trains, held_out, ess, *args, **kwargs)
    return hook


def with_rules(row, strengths, kl):
    """``row`` with each rule's strength and KL (``strengths``: rule -> strength; ``kl``: strength -> KL), and
    the oracle's (the grid's lowest KL, ties to the smaller strength)."""
    strengths = dict(strengths, oracle=min(STRENGTH_GRID, key=lambda g: (kl[g], g)))
    for rule, g in strengths.items():
        row[f"strength_{rule}"] = g
        row[f"kl_{rule}"] = kl[g]
    return row


def kl_by_strength(graphs, train, nets, tests):
    """Per strength of the grid, the mean KL from the true networks ``nets`` (on ``tests``) of ``graphs``' CPTs
    fitted on ``train`` at that strength."""
    kl = {}
    for g in STRENGTH_GRID:
        fitted = fit_shared_parameters(graphs, train, strength=g)
        kl[g] = float(np.mean([kl_divergence(n, f, d) for n, f, d in zip(nets, fitted, tests)]))
    return kl


def stored_trials(folder, rows_list, problems, trials, trial_fn):
    """Every ``trial_fn(problem, rows, t)`` row, each kept in ``folder`` as one CSV and reused (a killed run
    resumes); one DataFrame."""
    os.makedirs(folder, exist_ok=True)
    done = []
    for rows in rows_list:
        for problem in problems:
            for t in range(trials):
                path = os.path.join(folder, f"{problem}-{rows}-{t}.csv")
                if not os.path.exists(path):
                    pd.DataFrame([trial_fn(problem, rows, t)]).to_csv(path + ".part", index=False)
                    os.replace(path + ".part", path)
                    print(f"{problem} {rows} rows, trial {t}: done", flush=True)
                done.append(pd.read_csv(path))
    return pd.concat(done, ignore_index=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[250])
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--problems", default="alarm,alarm-ind,sachs,sachs-ind,hepar2,hepar2-ind,insurance,win95pts")
    args = ap.parse_args()
    d = stored_trials(FOLDER, args.rows, args.problems.split(","), args.trials, trial)
    print("\n| problem | rows | trials | " + " | ".join(f"KL {r}" for r in RULES) + " | strengths fold-cv | "
          "strengths evidence |")
    print("|---|---|---|" + "---|" * (len(RULES) + 2))
    for (problem, rows), g in d.groupby(["problem", "rows"], sort=False):
        def fmt(col):
            return ", ".join(f"{x:g}" for x in g[col])
        print(f"| {problem} | {rows} | {len(g)} | " + " | ".join(f"{g[f'kl_{r}'].mean():.4f}" for r in RULES)
              + f" | {fmt('strength_fold-cv')} | {fmt('strength_evidence')} |")
    print("\nPaired over all trials (first minus second, KL: negative = first better), 95% t interval:\n")
    print("| comparison | mean difference [95% CI] | p (t) |\n|---|---|---|")
    for a, b in (("evidence", "fold-cv"), ("evidence", "alone"), ("fold-cv", "alone"), ("evidence", "leaky-cv")):
        c = paired_comparison(d[f"kl_{a}"], d[f"kl_{b}"])
        print(f"| {a} - {b} | {c['mean_diff']:+.4f} [{c['ci_low']:+.4f}, {c['ci_high']:+.4f}] | {c['p_t']:.2g} |")
    print(f"\nSeconds per trial (mean): learner without sharing {d['seconds_none'].mean():.2f}, with the fold-cv "
          f"choice {d['seconds_fold_cv'].mean():.2f}, the evidence choice alone {d['seconds_evidence'].mean():.3f}")


if __name__ == "__main__":
    main()
