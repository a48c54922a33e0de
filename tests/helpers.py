"""Helpers shared by the test modules (not fixtures)."""

import itertools
import os
import subprocess
import sys

from mtbn.networks import load_network

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_mtbn(*args, cwd, pre="pass", timeout=300):
    """Run ``mtbn ARGS`` in a subprocess (``pre``: Python run first, e.g. to hide a module or set a limit)."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = f"import sys; {pre}; from mtbn.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=timeout)


def one_line_error(proc):
    """The message of a command that failed as documented: exit 2, no traceback, one ``mtbn: error:`` line
    (warnings aside)."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if not line.startswith("mtbn: warning:")]
    assert len(lines) == 1 and lines[0].startswith("mtbn: error: "), proc.stderr
    return lines[0][len("mtbn: error: "):]


def write_task_csvs(folder, network="asia", rows=(400, 400), seed=0):
    """One CSV file per task (``t0.csv``, ...), samples of ``network``; returns the paths as str."""
    from mtbn.networks import sample

    net = load_network(network)
    paths = []
    for t, n in enumerate(rows):
        path = folder / f"t{t}.csv"
        sample(net, n, random_state=seed + t).to_dataframe().to_csv(path, index=False)
        paths.append(str(path))
    return paths


def all_dags(n):
    """Every DAG over ``n`` nodes, as parent sets: each of the 3 states of every pair (no edge, i -> j, j -> i),
    kept when repeatedly removing the nodes without a parent left empties the graph (acyclic). An independent
    enumeration (no mtbn code) for brute-force truths: 25 DAGs over 3 nodes, 543 over 4, 29281 over 5."""
    pairs = list(itertools.combinations(range(n), 2))
    for states in itertools.product(range(3), repeat=len(pairs)):
        parents = [set() for _ in range(n)]
        for (i, j), s in zip(pairs, states):
            if s == 1:
                parents[j].add(i)
            elif s == 2:
                parents[i].add(j)
        left = set(range(n))
        while True:
            roots = [v for v in left if not (parents[v] & left)]
            if not roots:
                break
            left -= set(roots)
        if not left:
            yield parents
