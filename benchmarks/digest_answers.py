"""A digest of the learner's whole answer on two trials per benchmark network, to check that a refactor changes
nothing (issue 48: "every answer unchanged, byte for byte").

Run: ``python benchmarks/digest_answers.py [PROBLEM:ROWS ...]`` on two checkouts (e.g. ``PYTHONPATH=<checkout>``)
and compare the lines. Per trial of ``mtbn.evaluate.trial_data`` (the suite's data and seed): the default learner
and a fixed-penalty Edit run (3 restarts, 1 joint restart); the digest covers the structures, every CPT entry,
the penalty, the log score, the tasks' log-likelihoods, the sharing strength and the guard's message.
Default problems: SACHS 50, INSURANCE 250, ALARM 50, INSURANCE-MIXED 50, SACHS-MIXED 250; e.g. ``hepar2:250
win95pts:50`` for the larger ones.
"""
import hashlib, json, sys, warnings
import numpy as np
from mtbn.evaluate import trial_data
from mtbn.learn import learn_structures
warnings.simplefilter("ignore")

def digest(res):
    h = hashlib.sha256()
    h.update(json.dumps([sorted(g.edges(names=True)) for g in res.graphs]).encode())
    for net in res.networks:
        for cpt in net.cpts:
            h.update(np.ascontiguousarray(cpt, dtype=float).tobytes())
    h.update(repr((res.penalty, res.log_score, list(res.task_log_likelihoods), res.sharing_strength,
                   None if res.transfer is None else res.transfer["message"])).encode())
    return h.hexdigest()[:16]

cells = [("sachs", 50), ("insurance", 250), ("alarm", 50), ("insurance-mixed", 50), ("sachs-mixed", 250)]
if len(sys.argv) > 1:
    cells = [(a.split(":")[0], int(a.split(":")[1])) for a in sys.argv[1:]]
for problem, rows in cells:
    for trial in (0, 1):
        _, train, _, rng = trial_data(problem, trial, n_train=rows, n_test=1)
        seed = int(rng.integers(2**31))
        d = digest(learn_structures(train, random_state=seed, n_restarts=3, n_joint_restarts=1))
        f = digest(learn_structures(train, penalty=0.9, prior="edit", random_state=seed, n_restarts=3, n_joint_restarts=1))
        print(problem, rows, trial, d, f, flush=True)
