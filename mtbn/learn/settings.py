"""Every setting of the learners, declared once.

A :class:`Setting` holds a setting's name, default, type, range (its
check), documentation and command-line option. The tables
:data:`MULTITASK` (:func:`mtbn.learn.learn_structures`, and
:class:`mtbn.MultitaskStructureLearner` with ``n_bootstrap``) and
:data:`SINGLE` (:func:`mtbn.learn.learn_structure` and
:class:`mtbn.StructureLearner`) are read by:

* the functions' signatures and the Parameters sections of their docstrings
  (:meth:`Settings.declare`);
* the checks at the front door (:meth:`Settings.bind`: unknown names, then
  every value-only check in table order; the checks that need the data
  follow in the learner);
* the estimators' ``__init__``, ``get_params`` and ``set_params``
  (:mod:`mtbn.estimators`);
* the command line's options and their defaults and help
  (:func:`mtbn.cli.parser`, by each setting's ``flag``; ``kind`` names the
  converter of the option's text in :mod:`mtbn.cli.values`).

A setting used by several learners (``score``, ``n_restarts``, ...) is one
object in several tables.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from mtbn._validation import (
    check_max_parents,
    check_n_jobs,
    check_option,
    check_penalty,
    check_positive,
    check_random_state,
)
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import REVERSAL_COSTS
from mtbn.heldout import RULES, SEARCHES
from mtbn.joint import SOLVERS
from mtbn.learn.checks import check_counts, check_cv, check_grid, check_sharing, check_validation
from mtbn.learn.interventional_model import INTERVENTION_TYPES
from mtbn.messages import error, register
from mtbn.priors import PRIORS
from mtbn.score import SCORES

__all__ = ["Setting", "Settings", "MULTITASK", "SINGLE", "IDENTICAL", "ESTIMATOR_ONLY", "STARTS", "OWN_DEFAULTS"]

#: ``start=`` of the multitask learner, when given by name.
STARTS = ("auto", "single-task", "identical", "empty")

register("flag-argument", InvalidParameterError, "{name} must be True or False; got {value!r}.",
         cause="An on/off setting got a value that is not a boolean.",
         fix="Pass True or False.")
register("flag-or-auto-argument", InvalidParameterError, "{name} must be \"auto\", True or False; got {value!r}.",
         cause="An on/off setting with an automatic default got another value.",
         fix="Pass \"auto\" (the default), True or False.")
register("unexpected-argument", TypeError, "{func}() got an unexpected keyword argument {name!r}.",
         cause="A learner or estimator was given a setting it does not have (a typo, or another learner's).",
         fix="See the function's signature or docstring (or mtbn.learn.settings) for its settings.")


@dataclass(frozen=True)
class Setting:
    """One learner setting.

    ``check(value, name)`` returns the value to use or raises (None: checked
    later, against the data); ``choices`` (a callable, read when needed)
    lists the allowed names of a choice. ``flag`` is the command-line option
    (None: none), ``kind`` the converter of its text (a name in
    :data:`mtbn.cli.values.CONVERTERS`; None with ``choices``: a choice,
    with a boolean default: a switch), ``metavar`` its placeholder and
    ``cli_help`` its help when it differs from the first sentence of
    ``doc``. ``estimator_name``: the name in the estimators (``score`` is a
    scikit-learn method, so the estimators call the scoring function
    ``scoring``).

    Parameters
    ----------
    name : str
        The keyword of the learning functions.
    default : object
        The value when not given.
    type : str
        The type as documented; ``{choices}`` in it stands for the names ``choices`` lists.
    doc : str
        The documentation of the Parameters entry (a multi-line string is dedented and kept as written; one line
        is wrapped at 72 characters).
    check : callable, optional
        ``check(value, name)``: the front-door check (see above); None: none.
    choices : callable, optional
        Returns the allowed names of a choice; None: not a choice.
    flag : str, optional
        The command-line option, e.g. ``"--penalty"``; None: the command line has none.
    kind : str, optional
        The name of the option's converter in :data:`mtbn.cli.values.CONVERTERS` (see above).
    metavar : str, optional
        The option's placeholder in the help (None: argparse's default).
    cli_help : str, optional
        The option's help, when it differs from the first sentence of ``doc``.
    estimator_name : str, optional
        The parameter's name in the estimators when it differs from ``name``.
    """

    name: str
    default: Any
    type: str
    doc: str
    check: Callable[[Any, str], Any] | None = None
    choices: Callable[[], Iterable[str]] | None = None
    flag: str | None = None
    kind: str | None = None
    metavar: str | None = None
    cli_help: str | None = None
    estimator_name: str | None = None

    @property
    def dest(self):
        """The attribute of the command line's parsed arguments that holds this setting."""
        return self.flag[2:].replace("-", "_") if self.flag else None

    def from_args(self, args):
        """``(name, value)`` from parsed command-line arguments, or None when the command has no such option.

        Parameters
        ----------
        args : argparse.Namespace
            A command's parsed arguments.

        Returns
        -------
        tuple of (str, object) or None
            This setting's name and the value of its option's attribute (:attr:`dest`); None when the setting has
            no ``flag`` or ``args`` lacks that attribute.
        """
        return None if self.dest is None or not hasattr(args, self.dest) else (self.name, getattr(args, self.dest))

    def checked(self, value):
        """The value to use, after this setting's front-door check.

        Parameters
        ----------
        value : object
            The value given (or the default).

        Returns
        -------
        object
            ``value``, or what the check returns for it (a choice's name is checked against ``choices``, unless
            both the value and the default are None); an invalid value raises ``InvalidParameterError``.
        """
        if self.choices is not None and not (value is None and self.default is None):
            if isinstance(value, str) or self.check is None:
                return check_option(self.name, value, self.choices())
        return value if self.check is None else self.check(value, self.name)

    def help(self, text=None, default=None, switch=False):
        """The command-line help: ``text``, else ``cli_help``, else the first sentence of ``doc``; then the
        default (``default`` when the option's differs from the setting's; none for a ``switch``).

        Parameters
        ----------
        text : str, optional
            The help text to use instead of ``cli_help`` and ``doc``.
        default : object, optional
            The option's default when it differs from the setting's (None: the setting's).
        switch : bool, default False
            The option is an on/off switch: no default is added.

        Returns
        -------
        str
            The help, ending in ``(default ...)`` unless ``switch`` (None prints as ``none``, booleans as ``on`` or
            ``off``).
        """
        text = text or self.cli_help or self.doc.split(". ")[0].rstrip(".").strip()
        if switch:
            return text
        return f"{text} (default {_default_text(self.default if default is None else default)})"

    def type_text(self):
        """The type as documented; a choice's names are read from its registry (``{choices}`` in ``type``).

        Returns
        -------
        str
            ``type``, with ``{choices}`` replaced by the names ``choices`` lists, e.g. ``{"bdeu", "bic"}``.
        """
        if "{choices}" not in self.type:
            return self.type
        return self.type.replace("{choices}", "{" + ", ".join(f'"{c}"' for c in self.choices()) + "}")

    def doc_entry(self, name=None):
        """The numpydoc entry of this setting (under ``name`` when the function calls it otherwise).

        Parameters
        ----------
        name : str, optional
            The parameter's name in the function documented (None: the setting's ``name``).

        Returns
        -------
        str
            The line ``name : type, default <repr>`` (``, optional`` for a None default), then ``doc`` indented by
            four spaces.
        """
        head = f"{name or self.name} : {self.type_text()}"
        head += ", optional" if self.default is None else f", default {self.default!r}"
        return head + "\n" + textwrap.indent(textwrap.fill(self.doc, 72) if "\n" not in self.doc
                                             else textwrap.dedent(self.doc).strip(), "    ")


def _default_text(value):
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


@dataclass(frozen=True)
class Settings:
    """An ordered table of settings (one learner's).

    Parameters
    ----------
    settings : tuple of Setting
        The settings, in the order of the signatures and the docs; each name once.
    """

    settings: tuple
    names: dict = field(init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "names", {s.name: s for s in self.settings})

    def __iter__(self):
        return iter(self.settings)

    def __getitem__(self, name):
        return self.names[name]

    def __contains__(self, name):
        return name in self.names

    def from_args(self, args):
        """The settings a command's parsed arguments hold (by each setting's ``flag``).

        Parameters
        ----------
        args : argparse.Namespace
            A command's parsed arguments.

        Returns
        -------
        dict of str -> object
            Setting name -> value, for the settings whose option the command has (:meth:`Setting.from_args`).
        """
        return dict(pair for pair in (s.from_args(args) for s in self.settings) if pair is not None)

    def defaults(self):
        return {s.name: s.default for s in self.settings}

    def bind(self, func, given, check=True):
        """``given`` (keyword arguments of ``func``) with the defaults filled in, checked at the front door.

        An unknown name is a ``TypeError``, as Python gives for a function
        that does not take it; ``check=False`` only fills the defaults.

        Parameters
        ----------
        func : str
            The name of the function called, for the error message.
        given : dict of str -> object
            The settings passed.
        check : bool, default True
            Check every value (:meth:`Setting.checked`, in table order).

        Returns
        -------
        dict of str -> object
            Every setting of the table: the value given (checked) or the default.
        """
        unknown = [k for k in given if k not in self.names]
        if unknown:
            raise error("unexpected-argument", func=func, name=unknown[0])
        out = self.defaults()
        out.update(given)
        if check:
            for s in self.settings:
                out[s.name] = s.checked(out[s.name])
        return out

    def signature(self, leading=(), names=None, returns=inspect.Signature.empty, trailing=None):
        """``inspect.Signature``: the ``leading`` parameters (positional), then every setting keyword-only,
        then the ``trailing`` keywords (name -> default: arguments that are not settings).

        ``names`` maps a setting to the name the signature gives it.

        Parameters
        ----------
        leading : sequence of str, default ()
            The names of the positional-or-keyword parameters before the settings.
        names : dict of str -> str, optional
            Setting name -> the name the signature gives it.
        returns : object, default inspect.Signature.empty
            The return annotation.
        trailing : dict of str -> object, optional
            Keyword-only parameters after the settings, and their defaults.

        Returns
        -------
        inspect.Signature
            The parameters, each setting with its default.
        """
        names = names or {}
        kw = inspect.Parameter.KEYWORD_ONLY
        params = [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in leading]
        params += [inspect.Parameter(names.get(s.name, s.name), kw, default=s.default) for s in self.settings]
        params += [inspect.Parameter(k, kw, default=v) for k, v in (trailing or {}).items()]
        return inspect.Signature(params, return_annotation=returns)

    def parameters_doc(self, names=None):
        """The numpydoc entries of every setting, in table order.

        Parameters
        ----------
        names : dict of str -> str, optional
            Setting name -> the name the function documented gives it.

        Returns
        -------
        str
            The entries (:meth:`Setting.doc_entry`), one after the other, unindented.
        """
        names = names or {}
        return "\n".join(s.doc_entry(names.get(s.name)) for s in self.settings)

    def declare(self, leading=(), names=None, indent="    ", trailing=None):
        """Decorator: give a ``**settings`` function (or ``__init__``) the table's signature and doc entries.

        The docstring's ``{settings}`` line is replaced by the entries; on a
        class, only its docstring changes.

        Parameters
        ----------
        leading : sequence of str, default ()
            The parameters before the settings (as for :meth:`signature`).
        names : dict of str -> str, optional
            Setting name -> the name the function gives it, in the signature and the entries.
        indent : str, default "    "
            The indentation of the ``{settings}`` line, given to every line of the entries.
        trailing : dict of str -> object, optional
            Keyword-only parameters after the settings, and their defaults (as for :meth:`signature`).

        Returns
        -------
        callable
            The decorator: it sets the function's ``__signature__`` (not a class's), fills the docstring, and
            returns the function or class itself.
        """
        def decorate(func):
            if not isinstance(func, type):  # a class: its docstring only (its __init__ is declared itself)
                ret = inspect.signature(func).return_annotation
                func.__signature__ = self.signature(leading, names, ret, trailing)
            if func.__doc__ and "{settings}" in func.__doc__:
                entries = textwrap.indent(self.parameters_doc(names), indent)
                func.__doc__ = func.__doc__.replace(indent + "{settings}", entries)
            return func

        return decorate

    def __add__(self, other):
        return Settings(self.settings + tuple(other))


# -- checks ------------------------------------------------------------------


def _count(value, name):
    check_counts(**{name: value})
    return value


def _optional_count(value, name):
    return None if value is None else _count(value, name)


def _flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise error("flag-argument", name=name, value=value)
    return bool(value)


def _flag_or_auto(value, name):
    if isinstance(value, str) and value == "auto":
        return value
    if not isinstance(value, (bool, np.bool_)):
        raise error("flag-or-auto-argument", name=name, value=value)
    return bool(value)


def _seed(value):
    """A seed checked and returned as given (a generator is not drawn from: the learner seeds itself once)."""
    if not isinstance(value, (np.random.Generator, np.random.RandomState)):
        check_random_state(value)
    return value


def _penalty_or_auto(value, name):
    return value if isinstance(value, str) and value == "auto" else check_penalty(value, name)


def _optional(check):
    return lambda value, name: None if value is None else check(value)


def _start(value, name):
    return check_option(name, value, STARTS) if isinstance(value, str) else value


def _interventions(value):
    """``interventions=``: None or a mapping (checked against the tasks by the learner)."""
    from collections.abc import Mapping

    if value is not None and not isinstance(value, Mapping):
        raise error("interventions-type", got=type(value).__name__)
    return value


def _registry(registry):
    """The names of a registry, read when needed (a prior registered later is offered too)."""
    return lambda: list(registry)


# -- the settings ------------------------------------------------------------

SCORE = Setting(
    "score", "bdeu", "{choices}",
    "Each task's structure score: the BDeu marginal likelihood (the paper's), or BIC (log-likelihood at the "
    "maximum-likelihood parameters minus log(N)/2 per free parameter), which the multitask prior combines with "
    "in the same way (eq. 2.5 with log P(D|G) replaced by BIC). Held-out scores and fitted CPTs use BDeu "
    "parameters with equivalent_sample_size either way.",
    choices=_registry(SCORES), flag="--score", estimator_name="scoring",
    cli_help="each task's structure score: bdeu (the paper's) or bic; the penalty selection and the CPTs use "
             "BDeu parameters (--ess) either way")
ESS = Setting(
    "equivalent_sample_size", 1.0, "float", "BDeu's equivalent sample size.",
    check=check_positive, flag="--ess", kind="positive_float", cli_help="BDeu equivalent sample size")
MAX_PARENTS = Setting(
    "max_parents", None, "int", "Maximum number of parents per variable (None: no limit).",
    check=check_max_parents, flag="--max-parents", kind="nonneg_int", metavar="K",
    cli_help="maximum number of parents per variable (none: no limit)")
REQUIRED = Setting(
    "required_edges", None, "list of (parent, child), DAG or networkx graph",
    "Edges every task (that has both variables) must have.")
FORBIDDEN = Setting(
    "forbidden_edges", None, "list of (parent, child), DAG or networkx graph",
    "Edges no task may have.")
TIERS = Setting(
    "tiers", None, "sequence of sequences of names",
    "Temporal order: no edge from a later tier into an earlier one (bnlearn's tiers2blacklist).")
KNOWLEDGE = Setting(
    "knowledge", None, "pgmpy ExpertKnowledge",
    "Its required and forbidden edges and its temporal order are added to the above.")
TABU_LENGTH = Setting(
    "tabu_length", 10, "int",
    "Recent moves that stay forbidden unless they reach a new best score (0: plain hill climbing).",
    check=_count)
MAX_TABU_ITER = Setting(
    "max_tabu_iter", 10, "int", "Moves without a new best score before a climb stops.", check=_count)
N_RESTARTS = Setting(
    "n_restarts", 50, "int",
    "Random restarts of the single-task search (and, multitask, of the identical-structure search), each from "
    "the best graph so far after random moves.",
    check=_count, flag="--restarts", kind="nonneg_int",
    cli_help="random restarts of every single-task search (0 = fastest)")
MAX_ITER = Setting("max_iter", None, "int", "Moves allowed per climb (None: no limit).", check=_optional_count)
RANDOM_STATE = Setting(
    "random_state", 0, "int, Generator or None",
    "The seed: the same seed gives the same result.",
    check=lambda value, name: _seed(value), flag="--seed", kind="seed", cli_help="random seed")

TASK_COLUMN = Setting(
    "task_column", None, "str",
    "With one DataFrame: the column that splits it into tasks (one network per value: the multi-net case).")

SINGLE = Settings((
    SCORE, ESS, MAX_PARENTS, REQUIRED, FORBIDDEN, TIERS, KNOWLEDGE,
    Setting("start", None, "DAG, networkx.DiGraph or edge list",
            "Start graph (None: empty). Required edges are added to it."),
    TABU_LENGTH, MAX_TABU_ITER, N_RESTARTS,
    Setting("perturbation", None, "int", "Random moves per restart (None: a quarter of the variables).",
            check=_optional_count),
    MAX_ITER, RANDOM_STATE,
))

MULTITASK = Settings((
    Setting("prior", "paired", "{choices}",
            "The multitask prior: Paired (eq. 2.8) or Edit (eq. 2.7); \"none\" learns every task independently "
            "(penalty 0).",
            choices=_registry(PRIORS), flag="--prior",
            cli_help="multitask prior: paired, edit, or none (independent single-task learning)"),
    Setting("penalty", "auto", 'float in [0, 1] or "auto"',
            "delta in the paper: 0 learns the tasks independently, 1 forces identical structures. \"auto\" "
            "picks it from penalty_grid by held-out log-likelihood (cross-validation, cv), then keeps it only if "
            "it beats independent learning (force_transfer).",
            check=_penalty_or_auto, flag="--penalty", kind="penalty", metavar="DELTA|auto",
            cli_help="penalty delta in [0, 1] for differing edges, or 'auto' to choose it by --cv K-fold "
                     "cross-validation within each task; a printed penalty given back here gives the same result"),
    Setting("reversal", None, "{choices}",
            "How many differences an edge reversal counts as (None: \"double\" for Paired as in the paper, "
            "\"single\" for Edit).",
            choices=_registry(REVERSAL_COSTS), flag="--reversal",
            cli_help="a reversed edge counts as two differences or one (none: double for paired, single for edit)"),
    SCORE, ESS, MAX_PARENTS,
    Setting("start", "auto", "{choices}, list of graphs or dict of task name -> graph",
            """\
            Start configuration(s) of the joint search. "auto": the single-task solutions (the paper's start),
            the identical-structure (TSK) solution when all tasks share their variables, and empty graphs; each
            heads its own chain of joint restarts with a random stream of its own, and the best chain is kept
            (the result equals the best of the single-start runs with the same seed, and at penalty 1 it scores
            at least as high as learn_identical_structures). "single-task", "identical", "empty": that start
            alone; or one graph per task (a list in the tasks' order, or a dict keyed by the tasks' names).""",
            check=_start, flag="--start", choices=lambda: STARTS,
            cli_help="start(s) of the joint search: auto (single-task, identical and empty graphs, best kept) or "
                     "one of them"),
    Setting("cv", 5, "int",
            "penalty=\"auto\": K-fold cross-validation within every task. Each grid point is learned on every "
            "fold's training rows and scored on its held-out rows (mean log-likelihood per row, averaged over "
            "tasks; see mtbn.heldout for the standard errors).",
            check=lambda value, name: check_cv(value), flag="--cv", kind="int_at_least_2", metavar="K",
            cli_help="--penalty auto: K-fold cross-validation within each task, one-standard-error rule toward "
                     "weaker coupling"),
    Setting("validation", None, "float or int",
            "penalty=\"auto\": one validation split per task instead of cv (a fraction or a row count), the "
            "paper's rule (Section 2.3.4; the paper holds out 50 rows per task) with selection_rule=\"max\".",
            check=_optional(check_validation), flag="--validation", kind="validation",
            metavar="FRACTION_OR_ROWS",
            cli_help="--penalty auto: the paper's rule instead of --cv: one validation split per task (a fraction "
                     "or a row count; the paper holds out 50 rows), best validation score wins"),
    Setting("selection_rule", None, "{choices}",
            "How the penalty is chosen from the held-out scores: \"one-se\" (the default with cv), the weakest "
            "coupling whose score is within one standard error of the best; \"max\" (the default with "
            "validation), the best score. Exact ties go to the smaller delta.",
            choices=_registry(RULES)),
    Setting("force_transfer", False, "bool",
            "The negative-transfer guard: with penalty=\"auto\", when the chosen penalty does not beat delta = 0 "
            "(independent learning) by more than one standard error on held-out rows, the independent structures "
            "are returned with a TransferWarning (result.transfer holds the numbers, per task too); True keeps "
            "the multitask result. Either way the final structures and parameters are learned on all rows.",
            check=_flag, flag="--force-transfer",
            cli_help="keep the multitask result even when it does not beat independent learning on held-out "
                     "rows (the negative-transfer guard otherwise returns the single-task structures)"),
    Setting("penalty_grid", None, "sequence of float",
            "The penalties penalty=\"auto\" chooses from (None: DEFAULT_PENALTY_GRID: 0, then 1 - delta from 1e-1 "
            "to 1e-8 on a log scale, 1e-10, 1e-12, 1e-14, and delta = 1); delta = 0 is always added. During "
            "selection the searches use at most SELECTION_RESTARTS single-task (and TSK) restarts, "
            "SELECTION_JOINT_RESTARTS joint restarts per start, and not the empty start of start=\"auto\".",
            check=_optional(check_grid)),
    Setting("warm_start", False, "bool",
            "Continuation along the grid: each point also starts from its neighbours' results, in an upward then "
            "a downward pass (sequential; about twice the work; every grid point). A point never scores below "
            "its cold search.",
            check=_flag),
    Setting("penalty_search", "refine", "{choices}",
            "penalty=\"auto\": which grid points are searched (mtbn.heldout.search_candidates). \"refine\": every "
            "other point (both ends), then the unsearched neighbours of the best and the chosen point, round by "
            "round, until none is left (7-10 of the 13 default points); \"grid\": every point. The rule is "
            "applied to the points searched; penalty_path lists them.",
            choices=_registry(SEARCHES), flag="--penalty-search",
            cli_help="--penalty auto: refine searches every other grid point, then the neighbours of the best and "
                     "the chosen point until none is left; grid searches every point (slower)"),
    Setting("solver", "auto", "{choices}",
            "The best-neighbour solver of the joint search (see mtbn.joint).",
            choices=_registry(SOLVERS)),
    Setting("pair_weights", None, "(k, k) array", "Paired prior only: symmetric weights per task pair."),
    Setting("edge_penalty", None, "dict of (u, v) -> float",
            "Per-edge penalties replacing penalty for those node pairs (1: the edge must not differ between "
            "tasks; 0: free)."),
    Setting("structure_log_prior", None, "callable or (k, n, n) array",
            "f(task, parent, child) -> float: each task's own structure prior log P(G_t) = sum over its edges of "
            "f, raised to c = 1/(1+(k-1)delta)."),
    REQUIRED, FORBIDDEN, TIERS, KNOWLEDGE, N_RESTARTS, TABU_LENGTH, MAX_TABU_ITER,
    Setting("n_joint_restarts", 20, "int",
            "Joint search: restarts per start, each from the start's best configuration so far after random "
            "joint and per-task changes at n_vars // 4 node pairs that hold an edge in some task.",
            check=_count, flag="--joint-restarts", kind="nonneg_int", metavar="N",
            cli_help="random restarts of the joint search per start"),
    MAX_ITER, RANDOM_STATE,
    Setting("n_jobs", None, "int",
            "Parallel jobs over the penalty grid and the tasks' searches (joblib's convention, -1: all cores; "
            "results do not depend on it).",
            check=lambda value, name: check_n_jobs(value), flag="--jobs", kind="jobs", metavar="N",
            cli_help="parallel jobs for the penalty grid and bootstrap replicates (-1 = all cores); never more "
                     "worker processes than usable cores or jobs to run"),
    TASK_COLUMN,
    Setting("progress", None, "bool, callable or mtbn.progress.Reporter",
            "True: a line per stage on stderr, and a bar per counted stage on a terminal or in a notebook; a "
            "callable is called with a short message at each stage (see mtbn.progress.reporter)."),
    Setting("parameter_sharing", "auto", 'None, "auto" or float',
            "The CPTs of the final structures: each task alone (None), or shrunk toward the pooled CPT of the "
            "tasks sharing each family with this strength (mtbn.networks.fit_shared_parameters). \"auto\": with "
            "penalty=\"auto\", the strength is chosen on the penalty's cross-validation folds, and one structure "
            "learned from all tasks' rows pooled replaces the multitask structures when it beats them there by "
            "more than a standard error (mtbn.learn.sharing); nothing is shared when the guard finds the tasks "
            "unrelated. With a given penalty, \"auto\" chooses the strength on the same folds: each fold's structures "
            "learned at that penalty on its training rows score its held-out rows (never the final structures, "
            "which saw them); with more than 5 tasks only the first folds are searched, as many held-out task "
            "folds as 5 tasks with every fold have (mtbn.learn.sharing.folds_for_sharing). The record is in the "
            "result's sharing.",
            check=lambda value, name: check_sharing(value), flag="--share-parameters", kind="sharing",
            metavar="auto|none|STRENGTH",
            cli_help="shrink each task's CPTs toward the pooled CPT of the tasks sharing each family: 'auto' "
                     "(strength chosen on held-out rows; with --penalty auto also one structure from all rows "
                     "pooled when it beats the multitask ones there), 'none' (each task's CPTs alone) or a "
                     "strength (0 = each task alone, inf = pooled)"),
    Setting("interventions", None, "dict of task name -> list of str (or None)",
            "The tasks as interventional conditions of one system: each task's target variables (an empty list: "
            "an observational task; a task left out or mapped to None: targets unknown, learned). Then one "
            "causal DAG is learned for all tasks, each family's CPT tied across the tasks except where a task "
            "changes its mechanism (mtbn.learn.interventional; continuous tasks: linear Gaussian mechanisms, "
            "mtbn.learn.gaussian_interventions); the multitask prior's settings do not apply. "
            "None: the tasks are related samples (the multitask learner).",
            check=lambda value, name: _interventions(value), flag="--interventions", kind="interventions_file",
            metavar="FILE",
            cli_help="the tasks are interventional conditions of one system: a JSON object {\"task\": "
                     "[\"target\", ...]} or a CSV file with columns task,variable (a task with no targets is "
                     "observational, one absent has unknown targets); learns one causal DAG and each task's "
                     "changed mechanisms, written to DIR/interventions/"),
    Setting("intervention_type", "auto", "{choices}",
            "With interventions: \"mechanism\", a target's own mechanism changes (JCI's condition indicators; "
            "unknown targets learned); \"activity\", its children's do (what the target does is acted on); \"auto\", "
            "the one of those two that predicts held-out rows better; \"perfect\", a target's mechanism is replaced "
            "(its family not scored from that task's rows, Cooper & Yoo 1999; every task's targets given).",
            choices=lambda: INTERVENTION_TYPES, flag="--intervention-type",
            cli_help="with --interventions: auto (mechanism or activity, chosen on held-out rows), mechanism "
                     "(targets' own mechanisms change), activity (targets' children change) or perfect"),
    Setting("further_changes", False, "bool",
            "With interventions (not intervention_type=\"perfect\"): besides a task's given targets, other "
            "mechanisms may change in it (off-target effects), found by the search. False: the given targets are "
            "all that changes (the model's assumption); a task without given targets has its changes learned "
            "either way.",
            check=_flag, flag="--further-changes",
            cli_help="with --interventions: other mechanisms than a task's given targets may change in it (found by "
                     "the search); default: the given targets are all that changes"),
    Setting("transfer_per_task", "auto", '"auto" or bool',
            "With penalty=\"auto\" and three or more tasks: before choosing the penalty, every task's own "
            "relatedness test (its dependences against the other tasks', mtbn.stats.relabelling_test) is read, "
            "and the tasks whose p-value is not below the guard's level and whose agreement with the others "
            "falls 3 null standard deviations below the related tasks' (mtbn.learn.guard.tasks_to_leave_out) "
            "are learned on their own (with a TransferWarning naming them); the rest are learned jointly as "
            "usual, as long as two remain. "
            "result.transfer[\"excluded\"] names the tasks left out. Every task keeps the state lists of all "
            "the tasks given, so a task learned alone gets exactly its prior=\"none\" structure. \"auto\" (the "
            "default): per task unless settings are given per task index (start graphs, pair_weights, "
            "structure_log_prior) or force_transfer is on; True: per task, and an error with per-task settings; "
            "False: all tasks jointly or none (the guard's all-or-nothing decision).",
            check=_flag_or_auto, flag="--transfer-per-task", kind="auto_switch", metavar="auto|on|off",
            cli_help="--penalty auto with 3 or more tasks: learn alone the tasks whose own relatedness test says "
                     "they depend on their variables unlike the others, the rest jointly; 'off': all tasks "
                     "jointly or none"),
))

#: :func:`mtbn.learn.learn_identical_structures` (the paper's TSK method).
IDENTICAL = Settings((ESS, MAX_PARENTS, TABU_LENGTH, MAX_TABU_ITER, N_RESTARTS, RANDOM_STATE, TASK_COLUMN))

#: Settings of the estimators that their function does not take.
ESTIMATOR_ONLY = Settings((
    Setting("n_bootstrap", 0, "int",
            "Also run this many bootstrap replicates repeating the learner's decisions (penalty, tasks learned "
            "alone, pooled structure; mtbn.bootstrap.bootstrap_structures) into the estimator's ``bootstrap_``; "
            "0: none.",
            check=_count, flag="--bootstrap", kind="nonneg_int", metavar="B",
            cli_help="also run B bootstrap replicates, repeating the learner's decisions (penalty, tasks learned "
                     "alone, pooled structure), and write edge frequencies per task "
                     "and across tasks, and averaged networks, to DIR/bootstrap/ (0: none; each replicate costs "
                     "about one multitask search)"),
))

#: The defaults that the functions above the learner declare for themselves where they differ from the learner's
#: table, each with its reason (``"function.parameter"``: reason). Every other parameter of theirs named as a
#: learner setting takes the table's default (their signatures read it from :data:`MULTITASK`;
#: tests/test_settings.py checks both).
OWN_DEFAULTS = {
    "direct_relatedness.penalty": "the direct measure compares structures learned at one fixed, mild penalty (0.9), "
                                  "so that a distance means the same for every pair of tasks and every run (the "
                                  "paper's Section 2.4.1); choosing it by cross-validation would change the ruler "
                                  "with the tasks",
    "direct_relatedness.reversal": "a reversed edge counts one edit in the distance between two structures, as in "
                                   "the edit distance the paper measures relatedness with",
    "select_tasks.selection_rule": "n='auto' chooses the number of tasks on a validation split; the one-standard-"
                                   "error rule keeps the fewest tasks within one paired standard error of the best "
                                   "(toward less transfer), where the learner's default rule depends on whether it "
                                   "cross-validates",
    "cluster_tasks.selection_rule": "as for select_tasks: the fewest clusters within one standard error of the best",
}
