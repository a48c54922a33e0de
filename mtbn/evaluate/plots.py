"""The benchmark's bar charts (PNG files), drawn only when matplotlib is installed."""

import os

from mtbn.evaluate.methods import method_order


def plot_results(results, out):
    """Bar charts of edit distance and KL per method (PNG files in ``out``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # plots are optional
        return []
    per_trial = results.groupby(["method", "trial"])[["edit_distance", "kl"]].mean()
    methods = method_order(results)
    paths = []
    for col, label in (("edit_distance", "edit distance to the true structure"), ("kl", "empirical KL divergence")):
        fig, ax = plt.subplots(figsize=(1.2 * len(methods) + 2, 3.5))
        means = [per_trial.loc[m][col].mean() for m in methods]
        sds = [per_trial.loc[m][col].std(ddof=1) if len(per_trial.loc[m]) > 1 else 0 for m in methods]
        ax.bar(methods, means, yerr=sds, color="#4c72b0", capsize=3)
        ax.set_ylabel(label)
        ax.tick_params(axis="x", rotation=30)
        fig.tight_layout()
        path = os.path.join(out, f"{col}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths
