"""Option groups several commands share (tasks and output folder, discretisation, seed and jobs, search,
relatedness measure, selection), written once; each command's own options are in its module.

The choices come from the library's registries (:data:`mtbn.priors.PRIORS`, :data:`mtbn.score.SCORES`,
:data:`mtbn.graph.REVERSAL_COSTS`, :data:`mtbn.relatedness.MEASURES`, :data:`mtbn.benchmarks.PROBLEMS`,
:data:`mtbn.evaluate.METHODS`), so a prior, score, measure, problem or method added there is offered here;
option values are checked by :mod:`mtbn.cli.values`. The defaults are the library's (tests/test_cli.py
compares them).
"""

import argparse

from mtbn.cli import values
from mtbn.learn.settings import MULTITASK

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
