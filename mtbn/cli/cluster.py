"""``mtbn cluster``: the tasks grouped by relatedness, each group learned jointly."""

from mtbn.cli import files, values
from mtbn.cli.common import _task_command
from mtbn.cli.options import _add_from, _add_noise_floor, _add_run, _add_search, _add_selection, _add_tasks
from mtbn.learn.settings import MULTITASK


def add_parser(sub):
    p = sub.add_parser(
        "cluster",
        help="cluster the tasks and learn the tasks of each cluster together",
        description="Task clustering (paper Section 2.4.3, Figure 2.16): average-link hierarchical "
        "clustering of the tasks on the direct distance, then multitask structure learning within each "
        "cluster. The number of clusters is chosen on a validation split of every task (auto) or given. "
        "Each CSV file is one task named by its file stem. Writes DIR/clusters.json, DIR/<task>.edges.csv "
        "and DIR/<task>.bif for every task, DIR/distance.csv and a self-contained DIR/report.html with "
        "DIR/report.md.",
    )
    _add_tasks(p)
    p.add_argument("--n", default="auto", type=values.cluster_n, metavar="auto|INT",
                   help="number of clusters: auto (validation, default) or a number")
    _add_selection(p, "within each cluster", "rows per task held out to choose the number of clusters with --n auto")
    p.add_argument("--max-clusters", default=None, type=values.nonneg_int, metavar="K",
                   help="largest number of clusters tried by --n auto (default: all)")
    _add_from(p)
    _add_noise_floor(p)
    _add_search(p)
    _add_run(p)
    p.set_defaults(func=cmd_cluster)


def cmd_cluster(args):
    """``mtbn cluster``: clusters of related tasks, each learned together."""
    from mtbn.relatedness import cluster_tasks
    from mtbn.report import write_clustering_report

    def compute(tasks, progress, rel):
        return cluster_tasks(
            tasks, n_clusters=args.n, relatedness=rel, selection_validation=args.selection_validation,
            relatedness_penalty=args.relatedness_penalty, max_clusters=args.max_clusters,
            noise_floor=args.noise_floor, **MULTITASK.from_args(args), progress=progress,
        )

    def write(res, out, options, stems):
        no_bif = [name for name in res.relatedness.names
                  if not files.write_task_outputs(out, stems[name], res.graphs[name], res.networks[name])]
        if no_bif:
            print(files.bif_note(no_bif))
        return write_clustering_report(res, out, options)

    def summarise(res, seconds, _):
        how = "validation" if res.validation_curve else "given"
        print(f"{len(res.labels)} task(s) in {res.n_clusters} cluster(s) ({how}) in {seconds:.2f} s; "
              f"wrote {args.out}")
        print(f"  {'cluster':>7}  tasks")
        for c in sorted(set(res.labels.values())):
            members = [t for t in res.relatedness.names if res.labels[t] == c]
            print(f"  {c:>7}  {', '.join(members)}")

    return _task_command(args, compute, write, summarise)
