"""The argument parser of ``mtbn``: one function per command, shared option groups written once.

The choices come from the library's registries (:data:`mtbn.priors.PRIORS`,
:data:`mtbn.graph.REVERSAL_COSTS`, :data:`mtbn.relatedness.MEASURES`,
:data:`mtbn.benchmarks.PROBLEMS`, :data:`mtbn.evaluate.METHODS`), so a prior,
measure, problem or method added there is offered here; option values are
checked by :mod:`mtbn.cli.values`. The defaults are the library's
(tests/test_cli.py compares them).
"""

import argparse

from mtbn.cli import values
from mtbn.learn.settings import ESTIMATOR_ONLY, MULTITASK
from mtbn.cli.commands import cmd_bench, cmd_cluster, cmd_demo, cmd_learn, cmd_relatedness, cmd_select

__all__ = ["build_parser"]

HELP = {
    "csv": "one CSV file per task",
    "out": "output folder: new or empty (created if missing), or an earlier mtbn run's with --overwrite",
    "overwrite": "replace the --out folder of an earlier mtbn run whole (a folder holding files mtbn did not "
                 "write is never touched)",
    "jobs": "parallel jobs (-1 = all cores); never more worker processes than usable cores or jobs to run, and "
            "every worker ends with mtbn",
    "dropna": "drop rows with missing values instead of failing",
    "progress": "print progress on stderr even when not a terminal",
    "scheduler": "run the parallel work on the Dask scheduler at ADDRESS (e.g. tcp://10.0.0.5:8786; "
                 "needs pip install \"mtbn[dask]\"); every worker is used and --jobs is ignored; "
                 "results equal a local run's (see docs/scaling.md)",
}


def _add_setting(p, setting, *, help=None, **overrides):
    """The option of a learner setting (:mod:`mtbn.learn.settings`): its flag, converter or choices, default
    and help (``help`` replaces the setting's text; the default is appended)."""
    kw = {"default": setting.default}
    if setting.kind is not None:
        kw["type"] = values.CONVERTERS[setting.kind]
    elif setting.choices is not None:
        kw["choices"] = list(setting.choices())
    elif isinstance(setting.default, bool):
        kw["action"] = "store_true"
    if setting.metavar is not None:
        kw["metavar"] = setting.metavar
    kw.update(overrides)
    switch = kw.get("action") == "store_true"
    if switch:
        del kw["default"]
    text = setting.help(help, kw.get("default"), switch)
    p.add_argument(setting.flag, help=text.replace("%", "%%"), **kw)


class _Parser(argparse.ArgumentParser):
    """Option errors as one line (``mtbn COMMAND: error: ...``, exit 2) pointing to --help."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser():
    """The ``mtbn`` parser; ``parser.commands`` maps each command's name to its subparser."""
    from mtbn import __version__

    parser = _Parser(
        prog="mtbn",
        description="Multitask Bayesian network structure learning: learn the structures of "
        "several related data sets jointly.",
    )
    parser.add_argument("--version", action="version", version=f"mtbn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parser.commands = sub.choices
    for add in (_add_learn, _add_demo, _add_bench, _add_relatedness, _add_select, _add_cluster):
        add(sub)
    return parser


# ---------------------------------------------------------------------------
# Option groups shared by several commands
# ---------------------------------------------------------------------------


def _add_tasks(p):
    """The input CSV files (one task each) and where the results go."""
    p.add_argument("csv", nargs="+", metavar="CSV", help=HELP["csv"])
    p.add_argument("--out", required=True, metavar="DIR", help=HELP["out"])
    p.add_argument("--overwrite", action="store_true", help=HELP["overwrite"])


def _add_discretize(p):
    """How continuous columns are cut into states (the same cut points in every task)."""
    p.add_argument("--discretize", default=None, metavar="METHOD[:K]|FILE",
                   help="cut continuous columns into K ranges (default 3) with cut points computed once on all "
                   "tasks pooled: quantile (equal frequency) or interval (equal width); or FILE, the "
                   "discretization.json of an earlier run, to apply its cut points. Written to "
                   "DIR/discretization.json")
    p.add_argument("--discretize-columns", default=None, metavar="COL1,COL2",
                   help="the columns to discretise (default: the numeric columns that look continuous: some "
                   "values not whole, more than 20 distinct)")
    p.add_argument("--discretize-per-task", action="store_true",
                   help="compute the cut points in each task on its own (states then mean different ranges in "
                   "different tasks; warns)")


def _add_run(p, *, jobs_help=HELP["jobs"], jobs_default=1, jobs_metavar="N"):
    """How a run is seeded and parallelised: --seed, --jobs, --scheduler."""
    _add_setting(p, MULTITASK["random_state"])
    _add_setting(p, MULTITASK["n_jobs"], help=jobs_help, default=jobs_default, metavar=jobs_metavar)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=HELP["scheduler"])


def _add_search(p, *, restarts_help=None):
    """The single-task search and the data: --ess, --restarts, --dropna, --progress."""
    _add_setting(p, MULTITASK["equivalent_sample_size"])
    _add_setting(p, MULTITASK["n_restarts"], help=restarts_help)
    p.add_argument("--dropna", action="store_true", help=HELP["dropna"])
    p.add_argument("--progress", action="store_true", help=HELP["progress"])
    _add_discretize(p)


def _add_measure(p, *, required):
    from mtbn.relatedness import MEASURES

    if required:
        p.add_argument("--measure", default=None, choices=list(MEASURES),
                       help="relatedness measure (required unless --from is given)")
    else:
        p.add_argument("--measure", default=None, choices=list(MEASURES),
                       help="relatedness measure used to order the tasks (default direct, or the measure of --from)")
    _add_from(p)


def _add_from(p):
    p.add_argument("--from", dest="from_dir", default=None, metavar="DIR",
                   help="reuse the distances of an earlier run instead of learning the relatedness structures "
                   "again: the --out folder of 'mtbn relatedness' (its distances and noise floor, as they are) or "
                   "of 'mtbn learn' (the direct distance between the structures it wrote, at its penalty; no "
                   "noise floor). Same CSV files, same rows.")


def _add_folds(p, help):
    p.add_argument("--folds", default=10, type=values.folds, metavar="K", help=help)


def _add_noise_floor(p):
    p.add_argument("--noise-floor", default=10, type=values.noise_floor, metavar="B",
                   help="direct measure: permutation replicates for the noise floor, the distance tasks that differ "
                   "only by chance stay within; distances within it are marked and never split (default 10; 0 = "
                   "none; each replicate costs one joint search of all tasks)")


def _add_selection(p, penalty_scope, selection_help):
    """``select`` and ``cluster``: the penalties and the validation splits."""
    _add_setting(p, MULTITASK["penalty"], help=f"multitask penalty {penalty_scope}, or 'auto' to choose it on a "
                 "validation split")
    p.add_argument("--relatedness-penalty", default=0.9, type=values.unit_interval, metavar="DELTA",
                   help="penalty used by the direct measure (default 0.9)")
    _add_setting(p, MULTITASK["validation"], default=0.05,
                 help="rows per task held out to choose the penalty (one validation split, as in the paper's task "
                 "selection; mtbn learn uses 5-fold cross-validation instead)")
    p.add_argument("--selection-validation", default=0.05, type=values.validation, metavar="FRACTION_OR_ROWS",
                   help=f"{selection_help} (default 0.05)")


# ---------------------------------------------------------------------------
# mtbn learn
# ---------------------------------------------------------------------------


#: Every file ``mtbn learn`` may write, for its --help.
LEARN_FILES = (
    "DIR/<task>.edges.csv, DIR/<task>.bifxml and DIR/<task>.bif (when BIF can hold its names) per task; "
    "DIR/summary.json (settings, penalty path, transfer verdict, per-task scores) and DIR/.mtbn-output.json "
    "(marks the folder as mtbn's); with --discretize: DIR/discretization.json; with --report: DIR/report.html and "
    "DIR/report.md; with --export: DIR/<task>.<format>; with --bootstrap: DIR/bootstrap/edges.csv, "
    "<task>.strength.csv and <task>.averaged.edges.csv (and mechanisms.csv with --interventions); with "
    "--interventions: DIR/interventions/causal.bifxml, causal.edges.csv and mechanisms.csv (with --predict: "
    "predicted.bifxml and predicted.edges.csv)")


def _add_learn(sub):
    p = sub.add_parser(
        "learn",
        help="learn one network per CSV file (one task per file)",
        description="Learn a Bayesian network for each CSV file. Each file is one task: a header of "
        "variable names, cells are state labels (kept verbatim; an empty cell is missing). The task "
        "name is the file stem.",
        epilog=f"Files written: {LEARN_FILES}.",
    )
    _add_tasks(p)
    data = p.add_argument_group("data", "how the CSV files are read and coded")
    data.add_argument("--dropna", action="store_true", help=HELP["dropna"])
    _add_discretize(data)
    _add_learn_knowledge(p, data)
    search = p.add_argument_group("search", "each task's score and the joint search over all tasks")
    _add_setting(search, MULTITASK["equivalent_sample_size"])
    _add_setting(search, MULTITASK["n_restarts"])
    _add_learn_search(search)
    _add_learn_prior(p.add_argument_group("penalty and transfer", "the multitask prior, how its penalty is chosen "
                                          "and when the tasks' structures or parameters are shared"))
    run = p.add_argument_group("run", "seed, parallel work and progress")
    _add_run(run, jobs_help=None)
    run.add_argument("--progress", action="store_true", help=HELP["progress"])
    _add_learn_outputs(p.add_argument_group("output", "what is written besides each task's network files"))
    _add_learn_interventions(p)
    p.set_defaults(func=cmd_learn)


def _add_learn_interventions(p):
    """The tasks as interventional conditions of one system (docs/guide/interventions.rst)."""
    group = p.add_argument_group("interventional conditions", "the tasks as experimental conditions of one system: "
                                 "one causal DAG, each task's changed mechanisms")
    for name in ("interventions", "intervention_type", "further_changes"):
        _add_setting(group, MULTITASK[name])
    group.add_argument("--predict", default=None, metavar="TARGETS",
                       help="with --interventions: also write the network of a condition not among the tasks that "
                       "intervenes on these comma-separated variables (their mechanisms replaced, every other "
                       "kept) to DIR/interventions/predicted.bifxml and predicted.edges.csv")


def _add_learn_prior(p):
    """The multitask prior, how its penalty is chosen, and the guard and parameter sharing after it."""
    for name in ("prior", "penalty", "reversal", "cv", "validation", "penalty_search", "force_transfer"):
        _add_setting(p, MULTITASK[name])
    _add_setting(p, MULTITASK["transfer_per_task"], nargs="?", const=True)  # a bare --transfer-per-task: on
    _add_setting(p, MULTITASK["parameter_sharing"])


def _add_learn_search(p):
    """The joint search: score, parents, starts, restarts."""
    for name in ("score", "max_parents", "start", "n_joint_restarts"):
        _add_setting(p, MULTITASK[name])


def _add_learn_outputs(p):
    """What is written besides each task's BIF and edges.csv."""
    p.add_argument("--report", action="store_true",
                   help="also write DIR/report.html and DIR/report.md: the transfer verdict, the penalty path, "
                   "every task's structure on one layout (edge width = bootstrap frequency with --bootstrap) and "
                   "the edges that differ between tasks")
    p.add_argument("--export", default=(), type=values.export_formats, metavar="FORMATS",
                   help="also write each task's structure as DIR/<task>.<format> for each of these comma-separated "
                   "formats: dot (Graphviz), gml, json (networkx node-link), graphml (default: none; the BIF and "
                   "edges.csv files are always written)")
    _add_setting(p, ESTIMATOR_ONLY["n_bootstrap"])


def _add_learn_knowledge(p, data):
    """Background knowledge (constraint files), and one file holding every task (``data``: the data group)."""
    data.add_argument("--task-column", default=None, metavar="NAME",
                      help="read one CSV file whose column NAME says which task each row belongs to (one network "
                      "per value) instead of one file per task")
    p = p.add_argument_group("background knowledge", "edges required or forbidden in every task, a temporal order")
    p.add_argument("--require", default=None, metavar="FILE",
                   help="edges every task must have: a CSV file with columns source,target")
    p.add_argument("--forbid", default=None, metavar="FILE",
                   help="edges no task may have: a CSV file with columns source,target")
    p.add_argument("--tiers", default=None, metavar="FILE",
                   help="a temporal order: a CSV file with columns variable,tier (numbers or labels, sorted); "
                   "no edge from a later tier into an earlier one; untiered variables are free")


# ---------------------------------------------------------------------------
# mtbn demo / mtbn bench
# ---------------------------------------------------------------------------


def _add_demo(sub):
    p = sub.add_parser(
        "demo",
        help="a small multitask benchmark on ALARM (under a minute on 2 cores)",
        description="Run a small version of 'mtbn bench alarm': 3 related tasks made from the shipped "
        "ALARM network, single-task vs identical vs pooled vs multitask learning, and print the table "
        "(about 29 s on 2 cores with the defaults).",
    )
    p.add_argument("--trials", default=4, type=int, help="trials (default 4)")
    p.add_argument("--tasks", default=3, type=int, help="related tasks per trial (default 3; the paper's "
                   "benchmark has 5: 'mtbn bench alarm')")
    p.add_argument("--rows", default=1000, type=int, help="training rows per task (default 1000)")
    _add_run(p, jobs_help="parallel trials (at most the usable cores)", jobs_default=2, jobs_metavar=None)
    p.add_argument("--out", default=None, metavar="DIR", help="output folder for results.csv, summary.md and the "
                   "plots (default: a temporary folder, removed at the end; an interrupted demo keeps it and says "
                   "how to resume); an earlier demo's folder resumes")
    p.add_argument("--overwrite", action="store_true", help="start again in --out, discarding the earlier run there")
    p.add_argument("--progress", action="store_true", help="accepted for symmetry with bench: the demo always "
                   "prints its progress on stderr")
    p.set_defaults(func=cmd_demo)


def _add_bench(sub):
    from mtbn.benchmarks import PROBLEMS

    p = sub.add_parser(
        "bench",
        help="run multitask benchmarks (the paper's perturbed ALARM / INSURANCE and more networks)",
        description="Generate related tasks from a shipped network, learn them with several methods and "
        "compare the learned structures with the truth. Writes DIR/results.csv (one row per trial x method "
        "x task), DIR/summary.md and PNG plots. A killed run resumes from the trials already written.",
    )
    p.add_argument("problem", choices=list(PROBLEMS), metavar="PROBLEM",
                   help="the benchmark problem: " + ", ".join(PROBLEMS))
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output folder: new or empty, or one holding a run of the same benchmark (which resumes)")
    p.add_argument("--overwrite", action="store_true", help="start again in --out, discarding the earlier run there")
    p.add_argument("--tasks", default=5, type=int, help="number of related tasks (default 5)")
    p.add_argument("--pdel", default=0.05, type=float, help="probability of deleting each edge (default 0.05)")
    p.add_argument("--train", default=1000, type=int, help="training rows per task (default 1000)")
    p.add_argument("--validation", default=50, type=values.validation,
                   help="mtl-paper and mtl-oracle: validation rows (or fraction) per task for choosing the "
                   "penalty (default 50, the paper's); mtl uses 5-fold cross-validation")
    p.add_argument("--test-rows", default=20000, type=int, help="test rows per task for KL (default 20000)")
    p.add_argument("--trials", default=10, type=int, help="trials (default 10)")
    _add_bench_methods(p)
    _add_setting(p, MULTITASK["n_restarts"], default=20,
                 help="restarts of single-task searches (fewer than the 50 of learn/relatedness/select/cluster to "
                 "keep many trials affordable)")
    _add_run(p, jobs_help="parallel trials (-1 = all cores; at most the usable cores)", jobs_metavar=None)
    p.add_argument("--progress", action="store_true", help="print progress even when stderr is not a terminal")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.set_defaults(func=cmd_bench)


def _add_bench_methods(p):
    """The methods compared and their penalties."""
    from mtbn.evaluate import METHODS

    p.add_argument("--methods", default="stl,identical,pooled,mtl,mtl-oracle",
                   help=f"comma-separated methods: {', '.join(METHODS)}, mtl@DELTA "
                   "(default: stl,identical,pooled,mtl,mtl-oracle)")
    p.add_argument("--penalty", default=None, metavar="auto|DELTA|D1,D2,...",
                   help="'auto' (default): choose on validation; one value: multitask learning at that "
                   "penalty; a list: a penalty sweep (mtl@DELTA for each value)")


# ---------------------------------------------------------------------------
# mtbn relatedness / select / cluster (paper Section 2.4)
# ---------------------------------------------------------------------------


def _add_relatedness(sub):
    p = sub.add_parser(
        "relatedness",
        help="measure how related the tasks are (direct or indirect measure)",
        description="Measure task relatedness (paper Section 2.4). direct: learn all tasks jointly at a mild "
        "multitask penalty and take the edit distance between their structures (symmetric, a metric). "
        "indirect: learn each task's structure alone, fit each structure on every other task's training "
        "folds and score that task's held-out fold (k-fold cross-validation). Each CSV file is one task "
        "named by its file stem. Writes DIR/distance.csv (square, task names as index and columns, smaller "
        "= more related; for indirect, row = task being explained and column = structure source), for "
        "indirect also DIR/loglik.csv (mean held-out log-likelihood per row; row = structure source, "
        "column = evaluated task), and a self-contained DIR/report.html with DIR/report.md.",
    )
    _add_tasks(p)
    _add_measure(p, required=True)
    p.add_argument("--penalty", default=0.9, type=values.unit_interval, metavar="DELTA",
                   help="direct: multitask penalty delta used to learn the structures (default 0.9)")
    _add_folds(p, "indirect: number of cross-validation folds (default 10)")
    _add_noise_floor(p)
    p.add_argument("--boot", default=0, type=values.nonneg_int, metavar="B",
                   help="direct measure: bootstrap replicates for a 95%% interval of every distance, written to "
                   "DIR/distance_low.csv and DIR/distance_high.csv and shown in the report (default 0 = none; each "
                   "replicate costs one joint search of all tasks)")
    _add_search(p)
    _add_run(p)
    p.set_defaults(func=cmd_relatedness)


def _add_select(sub):
    p = sub.add_parser(
        "select",
        help="choose related tasks for a principal task and learn its network with them",
        description="Task selection (paper Section 2.4): order the other tasks by their distance from the "
        "principal task, then learn the principal's network with multitask structure learning together "
        "with the N closest tasks. N is chosen on a validation split of the principal's rows (auto), by "
        "the largest gap in the sorted distances (gap, 'gap hunting'), or given. Each CSV file is one task "
        "named by its file stem. Writes DIR/selected.json, DIR/<principal>.edges.csv, DIR/<principal>.bif, "
        "DIR/distance.csv (for indirect also DIR/loglik.csv) and a self-contained DIR/report.html with "
        "DIR/report.md.",
    )
    _add_tasks(p)
    p.add_argument("--principal", required=True, metavar="NAME",
                   help="the task whose network matters (a CSV file stem)")
    _add_measure(p, required=False)
    p.add_argument("--n", default="auto", type=values.select_n, metavar="auto|gap|INT",
                   help="number of tasks to learn with: auto (validation, default), gap (before the largest "
                   "gap in the sorted distances) or a number")
    _add_selection(p, "of the final learning", "principal rows held out to choose N with --n auto")
    _add_folds(p, "cross-validation folds of the indirect measure (default 10)")
    p.add_argument("--max-tasks", default=None, type=values.nonneg_int, metavar="K",
                   help="largest N tried by --n auto (default: all)")
    _add_noise_floor(p)
    _add_search(p)
    _add_run(p)
    p.set_defaults(func=cmd_select)


def _add_cluster(sub):
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
