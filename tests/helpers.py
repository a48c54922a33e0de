"""Helpers shared by the test modules (not fixtures)."""

from mtbn.networks import load_network


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
