"""Does the true DAG have the best BDeu on the training rows? (backs a sentence of docs/results.md)

Run: ``python experiments/truth_score.py [--trials 10] [--rows 1000]``

For each problem of Figure 2.5 and each task of trials 0..trials-1 (the same data as
``python experiments/fig2_4_2_5_problems.py``: ``mtbn.evaluate.trial_data``, seed 0), the BDeu
(equivalent sample size 1) of the task's true DAG and of its single-task search result
(``learn_structure``, 20 restarts, ``random_state`` = the trial) on the task's training rows. When the
search finds a DAG that scores above the true one, the score cannot lead a search to the truth from that
data: less room for any method, transfer included, to recover it.

One CSV per problem in ``experiments/out/truth_score/`` (rows: trial, task, true and learned BDeu, the
learned DAG's edit distance to the truth); a problem already written is not rerun.
"""

import argparse
import os

import pandas as pd
from _common import OUT, progress

from mtbn.evaluate import _true_dag, trial_data
from mtbn.graph import edit_distance
from mtbn.learn import learn_structure
from mtbn.score import BDeuScore

PROBLEMS = ("alarm", "alarm-ind", "insurance", "insurance-ind", "alarm-comp")
FOLDER = os.path.join(OUT, "truth_score")


def problem_rows(problem, trials, rows):
    out = []
    for trial in range(trials):
        truths, train, _, _ = trial_data(problem, trial, n_train=rows, n_test=1)
        for t, (net, data) in enumerate(zip(truths, train)):
            true = _true_dag(net)
            learned = learn_structure(data, n_restarts=20, random_state=trial).graph
            scorer = BDeuScore(data)
            out.append(dict(trial=trial, task=t,
                            true_bdeu=scorer.score([tuple(sorted(p)) for p in true.parents]),
                            learned_bdeu=scorer.score([tuple(sorted(p)) for p in learned.parents]),
                            edit_distance=edit_distance(learned, net.edges)))
    return pd.DataFrame(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--rows", type=int, default=1000)
    args = ap.parse_args()
    os.makedirs(FOLDER, exist_ok=True)
    for problem in PROBLEMS:
        path = os.path.join(FOLDER, f"{problem}_{args.rows}.csv")
        if os.path.exists(path):
            continue
        progress(f"{problem}: {args.trials} trials")
        frame = problem_rows(problem, args.trials, args.rows)
        frame.to_csv(path + ".tmp", index=False, float_format="%.6f")
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
