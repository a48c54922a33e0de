"""Shared helpers of the benchmark scripts (not part of the mtbn package).

The anchor data sets (forward samples of ALARM, INSURANCE and ANDES, their
true edges and the reference figures of pgmpy, pyAgrum and R bnlearn in
``reference.md``) live outside the repository. Their folder is read from the
environment variable ``MTBN_ANCHORS`` and defaults to
``../shared/data/anchors`` relative to the repository root.
"""

import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def anchors_dir():
    """The folder holding the anchor CSV files and reference.md."""
    path = Path(os.environ.get("MTBN_ANCHORS", REPO_ROOT / ".." / "shared" / "data" / "anchors"))
    if not path.is_dir():
        sys.exit(f"anchor data folder {str(path)!r} not found; set MTBN_ANCHORS to it.")
    return path.resolve()


def csv_path(dataset):
    """Path of ``<dataset>.csv`` (e.g. ``alarm_1000_s0``)."""
    return anchors_dir() / f"{dataset}.csv"


def network_of(dataset):
    return dataset.split("_")[0]


def load_mtbn(dataset):
    """The data set as an mtbn DiscreteData (observed states)."""
    from mtbn.data import read_csv

    return read_csv(csv_path(dataset))


def load_pandas(dataset):
    """The data set as a DataFrame of strings (as pgmpy should read it)."""
    import pandas as pd

    return pd.read_csv(csv_path(dataset), dtype=str, keep_default_na=False)


def true_edges(dataset):
    """The true arcs as a list of (source, target) names."""
    import pandas as pd

    df = pd.read_csv(anchors_dir() / f"{network_of(dataset)}_true_edges.csv", dtype=str, keep_default_na=False)
    return list(zip(df["source"], df["target"]))


def parent_sets(data, edges):
    """Parent sets (by column index of ``data``) of an edge list of names."""
    parents = [set() for _ in data.names]
    for u, v in edges:
        parents[data.index(v)].add(data.index(u))
    return parents


def _md_tables(text):
    """Every Markdown table of ``text`` as (header, rows) with stripped cells."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            header, rows = current[0], [r for r in current[1:] if not set("".join(r)) <= set("-: ")]
            tables.append((header, rows))
            current = []
    return tables


def reference():
    """Figures of reference.md.

    Returns ``{"bdeu": {dataset: (true_dag, empty_dag)}, "learners": [dict]}``
    where each learner dict has keys data, tool, algorithm, seconds, bdeu,
    edges, shd (numbers as float, or None when the cell is not a number).
    """
    text = (anchors_dir() / "reference.md").read_text(encoding="utf-8")
    out = {"bdeu": {}, "learners": []}

    def num(cell):
        try:
            return float(cell)
        except ValueError:
            return None

    for header, rows in _md_tables(text):
        if header[:3] == ["data set", "true DAG", "empty DAG"]:
            for r in rows:
                out["bdeu"][r[0]] = (float(r[1]), float(r[2]))
        elif header[:2] == ["data", "tool"]:
            for r in rows:
                out["learners"].append(
                    {
                        "data": r[0], "tool": r[1], "algorithm": r[2], "seconds": num(r[3]),
                        "bdeu": num(r[4]), "edges": num(r[5]), "shd": num(r[6]),
                    }
                )
    return out


def declared_reference():
    """(true DAG, empty DAG) BDeu of INSURANCE with the declared state lists, from reference.md."""
    text = (anchors_dir() / "reference.md").read_text(encoding="utf-8")
    m = re.search(r"true DAG (-?[0-9]+\.[0-9]+), empty DAG (-?[0-9]+\.[0-9]+)", text)
    return (float(m.group(1)), float(m.group(2))) if m else None


def best_peer(ref, dataset):
    """The reference learner row with the highest BDeu on ``dataset``."""
    rows = [r for r in ref["learners"] if r["data"] == dataset and r["bdeu"] is not None]
    return max(rows, key=lambda r: r["bdeu"]) if rows else None


def peer_seconds(ref, dataset, tool, algorithm_prefix):
    for r in ref["learners"]:
        if r["data"] == dataset and r["tool"] == tool and r["algorithm"].startswith(algorithm_prefix):
            return r
    return None


def timed(fn, repeats):
    """Run ``fn()`` ``repeats`` times; returns (median seconds, list of seconds, last result)."""
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def subprocess_seconds(argv, repeats, env=None, cwd=None):
    """Median wall seconds of running ``argv`` to completion (must exit 0)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return statistics.median(times), times


def child_env():
    """Environment for child Pythons: the repository on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def machine():
    """One line describing the machine and the versions."""
    import numpy

    try:
        import pgmpy

        pg = pgmpy.__version__
    except ImportError:  # pragma: no cover
        pg = "not installed"
    return (
        f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {platform.machine()}, "
        f"Python {platform.python_version()}, numpy {numpy.__version__}, pgmpy {pg}; {load()}"
    )


def load():
    """The 1/5/15-minute load averages (other processes share the machine)."""
    return "load average " + " / ".join(f"{x:.2f}" for x in os.getloadavg())


def md_table(header, rows):
    """A Markdown table as a string."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def quiet_pgmpy():
    """Silence pgmpy's deprecation warnings and INFO logging."""
    import logging
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=UserWarning, module="pgmpy")
    logging.getLogger("pgmpy").setLevel(logging.WARNING)


def fmt(x, digits=4):
    return f"{x:.{digits}f}"


def ratio(a, b):
    """``a / b`` formatted, e.g. ``12.3x``."""
    return f"{a / b:.3g}x" if b else "n/a"

