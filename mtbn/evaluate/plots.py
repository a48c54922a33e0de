"""The benchmark's bar charts (PNG files), drawn only when matplotlib is installed."""

import os

import numpy as np

from mtbn.evaluate.methods import method_order


def plot_results(results, out):
    """Bar charts of edit distance and KL per method (PNG files in ``out``): the mean over trials of each trial's
    mean over tasks, with the 95% t interval of that mean."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # plots are optional
        return []
    from scipy import stats

    per_trial = results.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
    methods = method_order(results)
    paths = []
    for col, label in (("edit_distance", "edit distance to the true structure"), ("kl", "empirical KL divergence")):
        fig, ax = plt.subplots(figsize=(1.2 * len(methods) + 2, 3.8))
        means, half = [], []
        for m in methods:
            values = per_trial.loc[m][col].to_numpy(dtype=float)
            means.append(values.mean())
            n = len(values)  # a 95% t interval of the mean over trials (none from one trial)
            half.append(stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0)
        ax.bar(methods, means, yerr=half, color="#4c72b0", capsize=3)
        ax.set_ylabel(label)
        n_trials = results["trial"].nunique()
        ax.set_title(f"mean per task over {n_trials} trial(s); bars: 95% t interval of the mean", fontsize=9)
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
        ax.tick_params(axis="x", rotation=30)
        for tick in ax.get_xticklabels():
            tick.set_horizontalalignment("right")
            tick.set_rotation_mode("anchor")
        fig.tight_layout()
        path = os.path.join(out, f"{col}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
