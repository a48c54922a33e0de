"""Quickstart: learn three related networks jointly, check the transfer verdict, query one with pgmpy.

Run: python docs/examples/quickstart.py   (about 20 seconds)

The tasks are samples of three perturbed copies of the shipped ASIA network
(each edge deleted with probability 0.1), the way the paper builds related
tasks; with your own data, pass one DataFrame per task.
"""

import warnings

from pgmpy.inference import VariableElimination

from mtbn import MultitaskStructureLearner
from mtbn.benchmarks import make_perturbed_tasks
from mtbn.exceptions import TransferWarning
from mtbn.networks import sample

nets, _ = make_perturbed_tasks("asia", n_tasks=3, p_del=0.1, random_state=0)
tasks = {name: sample(net, 400, random_state=t).to_dataframe()
         for t, (name, net) in enumerate(zip(["north", "south", "east"], nets))}

learner = MultitaskStructureLearner(n_restarts=5, n_joint_restarts=2, random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", TransferWarning)  # the verdict is in transfer_ below
    learner.fit(tasks)

print("penalty chosen:", learner.penalty_)
print(learner.transfer_["message"])
for name, dag in learner.dags_.items():
    print(f"{name}: {dag.n_edges} edges")

# The fitted networks are pgmpy models: query them with the data's own state values.
model = learner.networks_["north"]
query = VariableElimination(model).query(["lung"], evidence={"smoke": "yes"}, show_progress=False)
print(query)

# Export a structure for Graphviz or networkx.
print(learner.dags_["north"].to_dot()[:200])
