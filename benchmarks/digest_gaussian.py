"""A digest of the Gaussian learner's whole answer on a few continuous problems, to check that a refactor of its
data handling changes nothing (every answer the same, byte for byte).

Run: ``python benchmarks/digest_gaussian.py [--jobs N]`` on two checkouts (e.g. ``PYTHONPATH=<checkout>``), or
with two ``--jobs``, and compare the lines. Problems: the nine Sachs conditions (their measurements, log-transformed); three tasks sampled from
ECOLI70 (one of 4 rows, fewer than the folds); two tasks of 300,000 rows x 4 variables, the same structure (every
fold's rows span several of :data:`mtbn.data.continuous.SCATTER_CELLS`' blocks); two tasks of one variable of
300,000 rows. Each learned by the default (penalty by cross-validation, sharing strength chosen) and at a fixed
penalty. The digest covers the structures, every parameter, the penalty, the held-out path, the sharing strength
and its path, and the guard's message.
"""
import argparse
import hashlib
import json
import warnings

import numpy as np

from mtbn.data import ContinuousData, load_sachs_conditions
from mtbn.learn.gaussian import learn_gaussian_structures
from mtbn.networks.gaussian import load_gaussian_network

warnings.simplefilter("ignore")


def digest(res):
    h = hashlib.sha256()
    h.update(json.dumps([sorted(g.edges(names=True)) for g in res.graphs]).encode())
    for net in res.networks:
        for part in (net.intercepts, net.variances, *net.coefficients):
            h.update(np.ascontiguousarray(part, dtype=float).tobytes())
    transfer = res.transfer or {}
    h.update(repr((res.penalty, res.penalty_path, res.sharing_strength, transfer.get("message"),
                   (transfer.get("sharing") or {}).get("path"))).encode())
    return h.hexdigest()[:16]


def problems():
    sachs = load_sachs_conditions()
    yield "sachs", {n: np.log(f.clip(lower=1e-3)) for n, f in sachs.tasks.items()}
    net = load_gaussian_network("ecoli70")
    yield "ecoli70", {f"t{i}": net.sample(rows, random_state=i, name=f"t{i}")
                      for i, rows in enumerate((400, 150, 4))}
    rng = np.random.default_rng(0)
    big = {}
    for t in range(2):
        x = rng.normal(size=(300_000, 4))
        x[:, 1] += (0.8 + 0.1 * t) * x[:, 0]
        x[:, 3] += x[:, 1] - 0.5 * x[:, 2] * (1 + 0.1 * t)
        big[f"b{t}"] = ContinuousData(x * 50 + 1000, list("wxyz"), f"b{t}")
    yield "large", big
    yield "one-column", {f"c{t}": ContinuousData(rng.normal(size=(300_000, 1)) * 1e3 + 5, ["v"], f"c{t}")
                         for t in range(2)}


ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--jobs", type=int, default=None, help="n_jobs of the learner (left out: its default)")
jobs = {} if ap.parse_args().jobs is None else {"n_jobs": ap.parse_args().jobs}
for name, tasks in problems():
    default = learn_gaussian_structures(tasks, n_restarts=2, n_joint_restarts=2, random_state=3, **jobs)
    f = digest(learn_gaussian_structures(tasks, penalty=0.9, n_restarts=2, n_joint_restarts=1, random_state=3,
                                         **jobs))
    print(name, digest(default), f, f"(penalty {default.penalty}, sharing {default.sharing_strength})", flush=True)
