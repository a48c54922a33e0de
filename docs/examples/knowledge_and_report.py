"""Background knowledge (tiers, pgmpy ExpertKnowledge) and the HTML report of a multitask fit.

Run: python docs/examples/knowledge_and_report.py [OUT_DIR]   (about 20 seconds)
"""

import os
import sys
import tempfile

from pgmpy.estimators import ExpertKnowledge

from mtbn.benchmarks import make_perturbed_tasks
from mtbn.learn import learn_structures
from mtbn.networks import sample
from mtbn.report import write_learn_report

nets, _ = make_perturbed_tasks("asia", n_tasks=3, p_del=0.1, random_state=1)
tasks = {f"site{t}": sample(net, 400, random_state=t).to_dataframe() for t, net in enumerate(nets)}

# Exposures come before diseases, diseases before symptoms: no edge may point back.
tiers = [["asia", "smoke"], ["tub", "lung", "bronc", "either"], ["xray", "dysp"]]
knowledge = ExpertKnowledge(required_edges=[("smoke", "lung")], forbidden_edges=[("asia", "smoke")])

res = learn_structures(tasks, tiers=tiers, knowledge=knowledge, n_restarts=5, n_joint_restarts=2, cv=3)
level = {v: t for t, group in enumerate(tiers) for v in group}
for name, dag in zip(res.task_names, res.graphs):
    edges = dag.edges(names=True)
    assert ("smoke", "lung") in edges and all(level[u] <= level[v] for u, v in edges)
    print(f"{name}: {len(edges)} edges, all respecting the tiers")

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="mtbn-report-")
paths = write_learn_report(res, out)
print("report:", os.path.abspath(paths["html"]))
