"""Fitting a linear Gaussian network to a large continuous task against pgmpy's fit: seconds and memory.

A task of ``--rows`` rows x 11 continuous variables (a chain of linear
Gaussian dependencies, ``x_j += 0.8 x_{j-1}``) as a DataFrame of floats (what
``mtbn.data.csvfile.read_csv_numbers`` gives ``mtbn learn``); then, one after
the other in this process, ``--repeats`` times:

* mtbn: ``continuous_from_dataframe`` (the task, with every check of a
  continuous task), the BGe scorer (:func:`mtbn.score.make_scorer`, its means
  and scatter matrix), ``fit_linear_gaussian`` on the chain and the
  network's log-likelihood of the rows: what ``mtbn learn`` does with the task
  besides its search;
* the peer: ``pgmpy.models.LinearGaussianBayesianNetwork(chain).fit(frame)``
  (pgmpy's least-squares fit of the same network; no checks, no score).

The table gives the median seconds, the ratio, and the peak of the memory
each allocates above what it started with (``tracemalloc``, which numpy and
pandas report their arrays to), as a fraction of the rows' bytes.

Run:  cd <repo> && PYTHONPATH=. python benchmarks/bench_gaussian_fit.py [--rows 100000 500000] [--repeats 3]
"""

import argparse
import statistics
import time
import tracemalloc


def _measurements(rows):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.normal(size=(rows, 11))
    for j in range(1, 11):
        x[:, j] += 0.8 * x[:, j - 1]
    return pd.DataFrame(x, columns=[f"x{j}" for j in range(11)], copy=False)


def _mtbn(frame):
    from mtbn.data import continuous_from_dataframe
    from mtbn.networks.gaussian import fit_linear_gaussian
    from mtbn.score import make_scorer

    data = continuous_from_dataframe(frame, name="task")
    make_scorer(data, "bge").local_score(1, (0,))
    net = fit_linear_gaussian([()] + [(j - 1,) for j in range(1, data.n_vars)], data)
    return net.log_likelihood(data)


def _pgmpy(frame):
    from pgmpy.models import LinearGaussianBayesianNetwork

    columns = list(frame.columns)
    model = LinearGaussianBayesianNetwork(list(zip(columns, columns[1:])))
    model.fit(frame)
    return model


def _measure(fn, frame, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(frame)
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    try:
        fn(frame)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return statistics.median(times), peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 500_000])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print("| rows | mtbn s | pgmpy s | mtbn / pgmpy | mtbn peak / rows' bytes | pgmpy peak / rows' bytes |")
    print("|---|---|---|---|---|---|")
    for rows in args.rows:
        frame = _measurements(rows)
        size = frame.to_numpy().nbytes
        (a, pa), (b, pb) = _measure(_mtbn, frame, args.repeats), _measure(_pgmpy, frame, args.repeats)
        print(f"| {rows:,} | {a:.3f} | {b:.3f} | {a / b:.2f}x | {pa / size:.2f} | {pb / size:.2f} |")


if __name__ == "__main__":
    main()
