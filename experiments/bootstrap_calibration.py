"""Are bootstrap edge frequencies calibrated? (issue 13)

Run: ``python experiments/bootstrap_calibration.py [--problem alarm] [--rows 500] [--trials 2]
[--boot 20] [--restarts 5] [--resample bootstrap|subsample]``; ``--problem gaussian:ecoli70`` (any of
:data:`mtbn.benchmarks.GAUSSIAN_PROBLEMS` whose base network ships): continuous tasks
(:func:`mtbn.benchmarks.make_gaussian_problem`), learned as linear Gaussian networks.

Per trial: the ``mtbn bench`` tasks of the problem (5 tasks, P_del = 0.05,
seed 0, trial t), ``bootstrap_structures`` at the penalty the default
learner chooses on the original rows. Two checks:

* **Reliability:** adjacencies binned by their bootstrap frequency in a task
  (0-0.1, ..., 0.9-1, among pairs seen at least once); per bin the mean
  frequency and the fraction that are adjacent in that task's true network.
  Calibrated frequencies have the two close.
* **Task-specific edges:** for every edge of the original network and every
  task, the score "absent in this task" = 1 - its adjacency frequency there;
  the AUC of that score for the edges the task truly deleted against the
  ones it kept (1 = every deleted edge ranked above every kept one).

Per-trial frequencies are stored in ``experiments/out/bootstrap/`` (a killed
run resumes); the tables go to ``experiments/out/bootstrap/<problem>_<rows>.md``.
"""

import argparse
import os
import warnings

import numpy as np
from _common import OUT, jobs, progress

from mtbn.benchmarks import make_gaussian_problem, make_perturbed_tasks
from mtbn.bootstrap import bootstrap_structures
from mtbn.data import DiscreteData
from mtbn.exceptions import TransferWarning
from mtbn.learn import learn_structures
from mtbn.networks import load_network, sample
from mtbn.networks.gaussian import load_gaussian_network


def run_trial(problem, rows, trial, n_boot, restarts, path, resample="bootstrap"):
    if os.path.exists(path):
        return dict(np.load(path, allow_pickle=False))
    rng = np.random.default_rng([0, trial])
    if problem.startswith("gaussian:"):  # continuous tasks: related linear Gaussian networks, learned as such
        name = problem.split(":", 1)[1]
        net = load_gaussian_network(name)
        truths = make_gaussian_problem(name, n_tasks=5, random_state=rng)
        train = {f"task{i}": t.sample(rows, random_state=rng, name=f"task{i}") for i, t in enumerate(truths)}
    else:
        net = load_network(problem)
        truths, deleted = make_perturbed_tasks(net, n_tasks=5, p_del=0.05, random_state=rng)
        train = [DiscreteData(sample(t, rows, random_state=rng).codes, t.names, t.states, f"task{i}")
                 for i, t in enumerate(truths)]
    kw = dict(n_restarts=restarts, n_joint_restarts=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        penalty = learn_structures(train, **kw).penalty
    boot = bootstrap_structures(train, n_boot=n_boot, penalty=penalty, n_jobs=jobs(), resample=resample, **kw)
    n = len(net.names)
    true_adj = np.zeros((5, n, n), dtype=bool)
    for t, tr in enumerate(truths):
        for v in range(n):
            for p in tr.parents[v]:
                true_adj[t, p, v] = true_adj[t, v, p] = True
    orig = np.zeros((n, n), dtype=bool)
    for v in range(n):
        for p in net.parents[v]:
            orig[p, v] = orig[v, p] = True
    out = {"adjacency": boot.adjacency_frequency(), "true_adj": true_adj, "orig": orig, "penalty": penalty}
    np.savez(path, **out)
    return out


def auc(pos, neg):
    """P(score of a positive > score of a negative), ties counted half."""
    pos, neg = np.asarray(pos), np.asarray(neg)
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + 0.5 * ties)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="alarm")
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--boot", type=int, default=20)
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--resample", default="bootstrap", choices=["bootstrap", "subsample"])
    args = ap.parse_args()
    tag = f"{args.problem.replace(':', '-')}_{args.rows}" + (
        "" if args.resample == "bootstrap" else f"_{args.resample}")
    folder = os.path.join(OUT, "bootstrap")
    os.makedirs(folder, exist_ok=True)
    freq, truth, pos, neg = [], [], [], []
    for trial in range(args.trials):
        progress(f"{args.problem}, trial {trial}")
        r = run_trial(args.problem, args.rows, trial, args.boot, args.restarts,
                      os.path.join(folder, f"{tag}_trial{trial}.npz"), args.resample)
        adj, true_adj, orig = r["adjacency"], r["true_adj"], r["orig"]
        iu = np.triu_indices(adj.shape[1], 1)
        for t in range(adj.shape[0]):
            a, ta, o = adj[t][iu], true_adj[t][iu], orig[iu]
            seen = a > 0
            freq.append(a[seen])
            truth.append(ta[seen])
            pos.extend(1 - a[o & ~ta])  # edges of the original network this task deleted
            neg.extend(1 - a[o & ta])   # edges it kept
    freq, truth = np.concatenate(freq), np.concatenate(truth)
    bins = np.minimum((freq * 10).astype(int), 9)
    lines = [f"# Bootstrap calibration: {args.problem}, 5 tasks x {args.rows} rows, {args.trials} trial(s), "
             f"{args.boot} replicates ({args.resample}), {args.restarts} restarts", "",
             "| frequency bin | adjacencies | mean frequency | fraction truly adjacent |", "|---|---|---|---|"]
    for b in range(10):
        m = bins == b
        if m.any():
            lines.append(f"| {b / 10:.1f}-{(b + 1) / 10:.1f} | {int(m.sum())} | {freq[m].mean():.3f} | "
                         f"{truth[m].mean():.3f} |")
    lines += ["", f"Task-specific edges: AUC of 'absent in this task' (1 - adjacency frequency) for the "
                  f"{len(pos)} truly deleted (task, edge) pairs against the {len(neg)} kept ones: "
                  f"{auc(pos, neg):.3f}."]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(folder, f"{tag}.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
