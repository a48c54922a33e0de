"""What ``--jobs 2`` buys on 8 tasks (issue 14): whole commands, run as a user runs them.

8 related ALARM tasks (each edge deleted with probability 0.05 per task) x
500 rows are written as CSV files; each command runs as a child process
(``python -m mtbn ...``), alternately with ``--jobs 1`` and ``--jobs 2``,
``--repeats`` times; the table gives the median wall seconds, the ratio, and
whether the outputs were identical (every task's edge list, the distance
matrix for relatedness).

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_jobs.py [--repeats 3]
"""

import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

COMMANDS = {
    "learn --prior none": ["learn", "--prior", "none"],
    "relatedness --measure direct": ["relatedness", "--measure", "direct", "--restarts", "10"],
}


def write_tasks(folder, k=8, rows=500, seed=0):
    import numpy as np

    from mtbn.benchmarks import make_perturbed_tasks
    from mtbn.networks import sample

    rng = np.random.default_rng(seed)
    nets, _ = make_perturbed_tasks("alarm", n_tasks=k, p_del=0.05, random_state=rng)
    paths = []
    for t, net in enumerate(nets):
        path = os.path.join(folder, f"task{t}.csv")
        sample(net, rows, random_state=rng).to_dataframe().to_csv(path, index=False)
        paths.append(path)
    return paths


def run(cmd, jobs, out, paths):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mtbn", *cmd, "--jobs", str(jobs), "--out", out, *paths], env=env,
                   check=True, capture_output=True)
    return time.perf_counter() - t0


def same_outputs(a, b):
    files = sorted(f for f in os.listdir(a) if f.endswith((".edges.csv", "distance.csv", "distances.csv")))
    return bool(files) and all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in files)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    lines = ["| command (8 ALARM tasks x 500 rows) | --jobs 1 s | --jobs 2 s | speed-up | identical outputs |",
             "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_tasks(tmp)
        for label, cmd in COMMANDS.items():
            secs = {1: [], 2: []}
            for r in range(args.repeats):
                for jobs in (1, 2) if r % 2 == 0 else (2, 1):
                    secs[jobs].append(run(cmd, jobs, os.path.join(tmp, f"{label}-{jobs}"), paths))
            s1, s2 = statistics.median(secs[1]), statistics.median(secs[2])
            same = same_outputs(os.path.join(tmp, f"{label}-1"), os.path.join(tmp, f"{label}-2"))
            line = f"| `mtbn {' '.join(cmd)}` | {s1:.1f} | {s2:.1f} | {s1 / s2:.2f}x | {'yes' if same else 'NO'} |"
            print(line, file=sys.stderr, flush=True)
            lines.append(line)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
