"""Reading and coding one task against pandas' own parse (the brief's "checked inputs" at scale).

An ALARM sample (37 text columns) of each ``--rows`` size is written as a CSV
file and, from a DataFrame, with the columns as integers (a user's numeric
codes); then, one after the other in this process, ``--repeats`` times:

* ``pandas.read_csv(path, dtype=str, keep_default_na=False)``: the parse alone
  (the peer: what mtbn's reader asks pandas for);
* ``mtbn.data.read_csv(path)``: the parse plus every check and the coding;
* ``mtbn.data.from_dataframe(frame)`` on the integer frame, against
  ``pandas.factorize`` of each column (the peer: coding without checks);
* a continuous task (11 columns of Gaussian measurements, written as pandas
  writes floats) read by ``mtbn.data.csvfile.read_csv_numbers`` (how ``mtbn
  learn`` reads tasks for its kinds of data that take numbers), against
  ``pandas.read_csv(path)`` (pandas' own float parse).

The table gives the median seconds and mtbn / peer. With ``--memory`` (Linux), a
second table gives how far the peak resident set (``VmHWM``, reset through
``/proc/self/clear_refs`` just before) of a fresh process grows above its
resident set while it reads the file with ``mtbn.data.read_csv``, against
pandas' DataFrame of its strings (``pandas.read_csv(path, dtype=str,
keep_default_na=False)``), and the continuous file by ``read_csv_numbers``
against pandas' DataFrame of its floats, each after a small file read first (the modules
pandas loads on its first parse are not the data's).

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_read_csv.py [--rows 10000 100000 500000] [--repeats 3]
      [--memory]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

_GROWTH = """
import sys
import pandas as pd
from mtbn.data import read_csv
from mtbn.data.csvfile import read_csv_numbers
def read(path):
    return {"mtbn": lambda: read_csv(path), "pandas": lambda: pd.read_csv(path, dtype=str, keep_default_na=False),
            "mtbn-numbers": lambda: read_csv_numbers(path), "pandas-numbers": lambda: pd.read_csv(path)}[sys.argv[2]]()
def status(key):
    return int(next(line for line in open("/proc/self/status") if line.startswith(key)).split()[1])
read(sys.argv[3])
open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) from here on
before = status("VmRSS:")
data = read(sys.argv[1])
print(status("VmHWM:") - before)
"""


def _growth_mb(path, small, how):
    out = subprocess.run([sys.executable, "-c", _GROWTH, path, how, small], check=True, capture_output=True,
                         text=True).stdout
    return int(out) / 1024


def _sample(rows):
    import numpy as np

    from mtbn.networks import load_network, sample

    return sample(load_network("alarm"), rows, random_state=np.random.default_rng(0)).to_dataframe()


def _measurements(rows):
    """``rows`` rows of 11 continuous variables (a chain of linear Gaussian dependencies)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, 11))
    for j in range(1, 11):
        x[:, j] += 0.8 * x[:, j - 1]
    return pd.DataFrame(x, columns=[f"x{j}" for j in range(11)])


def _median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    import pandas as pd

    from mtbn.data import from_dataframe, read_csv
    from mtbn.data.csvfile import read_csv_numbers

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 500_000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--memory", action="store_true", help="also the peak memory of reading each CSV file")
    args = ap.parse_args(argv)
    print("| rows | what | mtbn s | peer s | mtbn / peer |\n|---|---|---|---|---|")
    memory = []
    for rows in args.rows:
        frame = _sample(rows)
        codes = frame.apply(lambda col: pd.factorize(col, sort=True)[0])  # the same data as integers
        with tempfile.TemporaryDirectory() as tmp:
            path, numbers = os.path.join(tmp, "alarm.csv"), os.path.join(tmp, "measurements.csv")
            frame.to_csv(path, index=False)
            _measurements(rows).to_csv(numbers, index=False)
            pairs = {
                "CSV file (text)": (lambda: read_csv(path),
                                    lambda: pd.read_csv(path, dtype=str, keep_default_na=False)),
                "DataFrame (integers)": (lambda: from_dataframe(codes),
                                         lambda: [pd.factorize(codes[c]) for c in codes.columns]),
                "CSV file (continuous)": (lambda: read_csv_numbers(numbers), lambda: pd.read_csv(numbers)),
            }
            for what, (ours, peer) in pairs.items():
                a, b = _median_seconds(ours, args.repeats), _median_seconds(peer, args.repeats)
                print(f"| {rows:,} | {what} | {a:.2f} | {b:.3f} | {a / b:.1f}x |")
            if args.memory:
                small = os.path.join(tmp, "small.csv")
                frame.head(10).to_csv(small, index=False)
                memory.append((rows, "text: mtbn.data.read_csv / pandas' frame of strings",
                               _growth_mb(path, small, "mtbn"), _growth_mb(path, small, "pandas")))
                small = os.path.join(tmp, "small_numbers.csv")
                _measurements(10).to_csv(small, index=False)
                memory.append((rows, "continuous: read_csv_numbers / pandas' frame of floats",
                               _growth_mb(numbers, small, "mtbn-numbers"), _growth_mb(numbers, small, "pandas-numbers")))
    if memory:
        print("\n| rows | file: mtbn / peer | mtbn MB | peer MB | mtbn / peer |\n|---|---|---|---|---|")
        for rows, what, ours, peer in memory:
            print(f"| {rows:,} | {what} | {ours:.0f} | {peer:.0f} | {ours / peer:.2f} |")


if __name__ == "__main__":
    main()
