"""The whole ``mtbn learn`` command with many tasks against single-task learning (issue 50, item 5).

k related ALARM tasks (each edge deleted with probability 0.05 per task) x
500 rows are written as CSV files (``bench_jobs.write_tasks``); then, each a
child process run as a user runs it, one after the other, ``--repeats``
times alternately:

* ``mtbn learn --penalty 0.99 --restarts 10 --jobs 1`` (multitask at a given
  penalty, the default parameter sharing), and
* ``mtbn learn --prior none --restarts 10 --jobs 1`` (single-task learning).

The table gives the median wall seconds and the ratio. With ``--stages`` the
multitask command's own progress lines (``--progress``) are timed, so the
table says where its time goes.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_whole_command.py [--k 50 100] [--repeats 1] [--stages]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(1, HERE)

from bench_jobs import write_tasks  # noqa: E402

COMMANDS = {
    "multitask (--penalty 0.99)": ["learn", "--penalty", "0.99", "--restarts", "10"],
    "single-task (--prior none)": ["learn", "--prior", "none", "--restarts", "10"],
}


def run(cmd, out, paths, stages=None):
    """Wall seconds of one command; ``stages`` (a list) receives ``(seconds since start, line)`` per progress
    line when given."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [sys.executable, "-m", "mtbn", *cmd, "--jobs", "1", "--out", out, "--overwrite", *paths]
    t0 = time.perf_counter()
    if stages is None:
        subprocess.run(args, env=env, check=True, capture_output=True)
    else:
        proc = subprocess.Popen(args + ["--progress"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        for line in proc.stderr:
            stages.append((time.perf_counter() - t0, line.strip()))
        if proc.wait() != 0:
            raise SystemExit(f"{' '.join(cmd)} failed")
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[50])
    ap.add_argument("--rows", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--stages", action="store_true", help="time the multitask command's progress lines too")
    args = ap.parse_args(argv)
    print("| k | command | median s | runs |\n|---|---|---|---|")
    ratios, timed = {}, {}
    for k in args.k:
        with tempfile.TemporaryDirectory() as tmp:
            paths = write_tasks(tmp, k=k, rows=args.rows)
            times = {name: [] for name in COMMANDS}
            for _ in range(args.repeats):
                for name, cmd in COMMANDS.items():
                    times[name].append(run(cmd, os.path.join(tmp, "out"), paths))
            if args.stages:
                lines = []
                run(COMMANDS["multitask (--penalty 0.99)"], os.path.join(tmp, "out"), paths, lines)
                timed[k] = lines
        med = {name: statistics.median(t) for name, t in times.items()}
        for name, t in times.items():
            print(f"| {k} | {name} | {med[name]:.1f} | {', '.join(f'{x:.1f}' for x in t)} |")
        ratios[k] = med["multitask (--penalty 0.99)"] / med["single-task (--prior none)"]
    print()
    for k, r in ratios.items():
        print(f"k = {k}: multitask / single-task = {r:.2f}x")
    for k, lines in timed.items():
        print(f"\nk = {k}, the multitask command's stages (seconds from the start of one more run):\n")
        print("| from (s) | to (s) | s | stage |\n|---|---|---|---|")
        for (a, line), (b, _) in zip(lines, lines[1:] + [(lines[-1][0], "")]):
            if b - a >= 0.5:
                print(f"| {a:.1f} | {b:.1f} | {b - a:.1f} | {line[:90]} |")


if __name__ == "__main__":
    main()
