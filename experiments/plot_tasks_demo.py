"""The plot of 5 ALARM tasks (issue 14): ``python experiments/plot_tasks_demo.py`` -> docs/img/plot_tasks_alarm.png.

Five ``mtbn bench alarm`` tasks (P_del = 0.05, trial 0's construction with seed 0), 500 rows each,
learned jointly at penalty 0.99 (5 single-task restarts, 2 joint restarts).
"""

import os
import warnings

from _common import HERE

from mtbn import MultitaskStructureLearner
from mtbn.benchmarks import make_problem
from mtbn.exceptions import TransferWarning
from mtbn.networks import sample
from mtbn.report import plot_tasks


def main():
    nets = make_problem("alarm", n_tasks=5, random_state=0)
    tasks = {f"task{i}": sample(n, 500, random_state=i).to_dataframe() for i, n in enumerate(nets)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TransferWarning)
        learner = MultitaskStructureLearner(penalty=0.99, n_restarts=5, n_joint_restarts=2).fit(tasks)
    fig = plot_tasks(learner.graphs_, ncols=3, title="5 ALARM tasks (500 rows each) learned jointly at penalty 0.99")
    path = os.path.join(HERE, os.pardir, "docs", "img", "plot_tasks_alarm.png")
    fig.savefig(path, dpi=60)
    print(path)


if __name__ == "__main__":
    main()
