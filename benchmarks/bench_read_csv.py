"""Reading and coding one task against pandas' own parse (the brief's "checked inputs" at scale).

An ALARM sample (37 text columns) of each ``--rows`` size is written as a CSV
file and, from a DataFrame, with the columns as integers (a user's numeric
codes); then, one after the other in this process, ``--repeats`` times:

* ``pandas.read_csv(path, dtype=str, keep_default_na=False)``: the parse alone
  (the peer: what mtbn's reader asks pandas for);
* ``mtbn.data.read_csv(path)``: the parse plus every check and the coding;
* ``mtbn.data.from_dataframe(frame)`` on the integer frame, against
  ``pandas.factorize`` of each column (the peer: coding without checks).

The table gives the median seconds and mtbn / peer.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_read_csv.py [--rows 10000 100000 500000] [--repeats 3]
"""

import argparse
import os
import statistics
import tempfile
import time


def _sample(rows):
    import numpy as np

    from mtbn.networks import load_network, sample

    return sample(load_network("alarm"), rows, random_state=np.random.default_rng(0)).to_dataframe()


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

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 500_000])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print("| rows | what | mtbn s | peer s | mtbn / peer |\n|---|---|---|---|---|")
    for rows in args.rows:
        frame = _sample(rows)
        codes = frame.apply(lambda col: pd.factorize(col, sort=True)[0])  # the same data as integers
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "alarm.csv")
            frame.to_csv(path, index=False)
            pairs = {
                "CSV file (text)": (lambda: read_csv(path),
                                    lambda: pd.read_csv(path, dtype=str, keep_default_na=False)),
                "DataFrame (integers)": (lambda: from_dataframe(codes),
                                         lambda: [pd.factorize(codes[c]) for c in codes.columns]),
            }
            for what, (ours, peer) in pairs.items():
                a, b = _median_seconds(ours, args.repeats), _median_seconds(peer, args.repeats)
                print(f"| {rows:,} | {what} | {a:.2f} | {b:.3f} | {a / b:.1f}x |")


if __name__ == "__main__":
    main()
