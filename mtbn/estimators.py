"""scikit-learn-style estimators: parameters in ``__init__``, learning in ``fit``.

:class:`StructureLearner` wraps :func:`mtbn.learn.learn_structure` and
:class:`MultitaskStructureLearner` wraps :func:`mtbn.learn.learn_structures`
(and, with ``n_bootstrap``, :func:`mtbn.bootstrap.bootstrap_structures`).
They check nothing themselves: the functions do.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from mtbn.exceptions import InvalidDataError, InvalidParameterError, NotFittedError, not_fitted
from mtbn.learn import as_discrete_data, learn_structure, learn_structures
from mtbn.learn.kinds import DATA_KINDS, DataKind, kind_of, split_by_task_column
from mtbn.learn.settings import ESTIMATOR_ONLY, MULTITASK, SINGLE, Settings
from mtbn.messages import error, register
from mtbn.score import make_scorer

__all__ = ["StructureLearner", "MultitaskStructureLearner"]

register("predict-needs-interventions-api", InvalidParameterError,
         "predict_condition needs a learner fitted with interventions= (the tasks' targets).",
         cause="The network of an unseen condition comes from the interventional model, which was not learned.",
         fix="Fit with interventions={task: [targets], ...}.")
register("estimator-parameter", InvalidParameterError, "{estimator} has no parameter {name!r}.",
         cause="set_params was given a name the estimator does not have.",
         fix="See get_params() for the estimator's parameters.")
register("not-fitted", NotFittedError, "This {estimator} instance is not fitted yet. Call 'fit' first.",
         cause="A fitted attribute (ending in _) was read before fit().",
         fix="Call fit(tasks) first.")

register("estimator-sparse", InvalidDataError, "{what}: sparse input is not supported; got {got}.",
         cause="A scipy sparse matrix was given; the learners count categories in dense integer columns.",
         fix="Pass X.toarray() (integer codes of categories) or a DataFrame of state labels.")
register("estimator-complex", InvalidDataError, "{what}: Complex data not supported.",
         cause="An array of complex numbers was given; columns must hold categories.",
         fix="Pass integer codes of categories, or a DataFrame of state labels.")
register("estimator-array-dims", InvalidDataError,
         "{what}: expected a 2-D array (rows x variables), got {ndim}-D of shape {shape}. Reshape your data, "
         "e.g. with array.reshape(-1, 1) for one variable.",
         cause="A 1-D (or 3-D or more) array was given where rows of variables are needed.",
         fix="Pass a 2-D array of integer codes, one column per variable, or a DataFrame.")
register("estimator-array-empty", InvalidDataError,
         "{what}: {n} {kind}(s) (shape={shape}) while a minimum of 1 is required.",
         cause="An array without rows or without columns was given.",
         fix="Pass at least one row and one column.")
register("estimator-array-not-finite", InvalidDataError, "{what}: Input contains NaN or infinity (column {column}).",
         cause="A 2-D array holds NaN or an infinite value; categories must be integer codes.",
         fix="Drop or impute the missing values first, or pass a DataFrame with dropna=True at learn_structure.")
register("estimator-array-not-integer", InvalidDataError,
         "{what}: column {column} holds {value!r}, not an integer code; the columns of an array are categories.",
         cause="A float array with fractional values was given; the learners take categorical columns.",
         fix="Discretise continuous columns first (mtbn.data.discretize, or round them to codes), or pass a "
             "DataFrame of state labels.")


register("estimator-array-width", InvalidDataError,
         "{what}: X has {n} features, but {estimator} is expecting {expected} features as input.",
         cause="An array of another width than the one the learner was fitted on was given; its columns are matched "
               "by position.",
         fix="Pass the same columns, in the same order, as at fit (or a DataFrame with the fitted column names).")


register("estimator-task-column", InvalidParameterError,
         "task_column {value}: the array has {n} columns, so the task column is one of 0 to {last} by position.",
         cause="task_column was given as a column position that the array does not have.",
         fix="Give the position of the column that says which task each row belongs to (from 0).")


def _array_frame(data, what, names=None, estimator=None):
    """A 2-D array of integer-coded categories as a DataFrame (columns ``names``, default ``x0, x1, ...``).

    Anything that is not an array (a DataFrame, a dict of tasks, a path) is
    returned unchanged; a sparse matrix, a complex, 1-D or empty array, NaN,
    infinity and fractional values are refused with one line each.
    """
    if type(data).__module__.startswith("scipy.sparse"):
        raise error("estimator-sparse", what=what, got=type(data).__name__)
    if not isinstance(data, np.ndarray):
        return data
    import pandas as pd

    if data.dtype.kind == "c":
        raise error("estimator-complex", what=what)
    if data.ndim != 2:
        raise error("estimator-array-dims", what=what, ndim=data.ndim, shape=data.shape)
    for axis, kind in ((0, "sample"), (1, "feature")):
        if data.shape[axis] == 0:
            raise error("estimator-array-empty", what=what, n=0, kind=kind, shape=data.shape)
    if names is not None and len(names) != data.shape[1]:
        raise error("estimator-array-width", what=what, n=data.shape[1], estimator=estimator, expected=len(names))
    names = [f"x{j}" for j in range(data.shape[1])] if names is None else [str(n) for n in names]
    if data.dtype.kind == "f":
        bad = ~np.isfinite(data)
        if bad.any():
            raise error("estimator-array-not-finite", what=what, column=names[int(np.nonzero(bad)[1][0])])
        frac = data != np.round(data)
        if frac.any():
            i, j = (int(a[0]) for a in np.nonzero(frac))
            raise error("estimator-array-not-integer", what=what, column=names[j], value=float(data[i, j]))
        data = data.astype(np.int64)
    return pd.DataFrame(np.asarray(data), columns=names)


#: The estimators call the scoring function ``scoring`` (``score`` is their scikit-learn method).
_NAMES = {"score": "scoring"}
_MULTITASK = MULTITASK + ESTIMATOR_ONLY


class _Estimator:
    """get_params / set_params from the ``__init__`` signature (sklearn style).

    Also the scikit-learn estimator protocol without importing scikit-learn
    at ``import mtbn``: ``__sklearn_tags__`` (built lazily, only when
    scikit-learn asks), ``__sklearn_is_fitted__``, and a
    :class:`~mtbn.exceptions.NotFittedError` for every fitted attribute
    (names in ``_fitted``) read before ``fit``.
    """

    _fitted: "tuple[str, ...]" = ()
    _settings: Settings = Settings(())

    def _store(self, params):
        """Keep the parameters as given (checked by the learning function at ``fit``, as scikit-learn does)."""
        names = {s.estimator_name or s.name: s for s in self._settings}
        unknown = [k for k in params if k not in names]
        if unknown:
            raise error("unexpected-argument", func=type(self).__name__, name=unknown[0])
        for name, setting in names.items():
            setattr(self, name, params.get(name, setting.default))

    def __getattr__(self, name):
        # Only called when normal lookup fails: a fitted attribute before fit.
        if name in type(self)._fitted:
            raise not_fitted(str(error("not-fitted", estimator=type(self).__name__)))
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __sklearn_is_fitted__(self):
        return "result_" in self.__dict__

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags

        # Inputs are DataFrames of state labels (categorical, strings) or 2-D arrays of integer codes of
        # categories (scikit-learn's checks then send such arrays); never continuous values.
        # A density estimator: score(X) is the mean log-likelihood of rows (scikit-learn's "density_estimator").
        return Tags(estimator_type="density_estimator", target_tags=TargetTags(required=False), requires_fit=True,
                    input_tags=InputTags(two_d_array=True, categorical=True, string=True,
                                         dict=self._takes_dict, allow_nan=False))

    _takes_dict = False

    def get_params(self, deep=True):
        """The parameters, in the order of the settings table."""
        return {name: getattr(self, name) for name in (s.estimator_name or s.name for s in self._settings)}

    def set_params(self, **params):
        valid = self.get_params()
        for k, v in params.items():
            if k not in valid:
                raise error("estimator-parameter", estimator=type(self).__name__, name=k)
            setattr(self, k, v)
        return self

    def _check_fitted(self, attr):
        if attr not in self.__dict__:
            raise not_fitted(str(error("not-fitted", estimator=type(self).__name__)))

    def _fit_params(self, **overrides):
        """The constructor's parameters, with the fit-time arguments given (not None) taking precedence."""
        params = self.get_params()
        params.update({k: v for k, v in overrides.items() if v is not None})
        return params

    def __repr__(self):
        """The parameters that differ from their defaults, as scikit-learn prints (``print_changed_only``).

        >>> StructureLearner(max_parents=3)
        StructureLearner(max_parents=3)
        """
        defaults = {s.estimator_name or s.name: s.default for s in self._settings}
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if not _is_default(v, defaults.get(k)))
        return f"{type(self).__name__}({args})"


def _is_default(value, default):
    """Whether a parameter holds its default (the same object, or an equal value of the same type)."""
    if value is default:
        return True
    if type(value) is not type(default):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # arrays and the like: printed
        return False


@SINGLE.declare(names=_NAMES)
class StructureLearner(_Estimator):
    """Single-task structure learner (estimator shell around :func:`learn_structure`).

    The parameters are :func:`learn_structure`'s settings
    (:data:`mtbn.learn.settings.SINGLE`), except that the scoring function
    is called ``scoring`` (``score`` is the estimator's scikit-learn
    method); they are checked at ``fit``.

    ``data`` is a DataFrame of state labels, a CSV path, a ``DiscreteData``,
    or a 2-D array of integer codes of categories (columns ``x0, x1, ...``;
    a float array must hold whole numbers, and NaN, infinity, sparse and
    complex input are refused), so scikit-learn's whole estimator check
    suite applies (``tests/test_sklearn.py``). A DataFrame of continuous
    measurements (or a ``ContinuousData``) is learned as a linear Gaussian
    network (:class:`~mtbn.learn.gaussian.GaussianKind`; ``data_kind_`` is
    ``"gaussian"``), with the settings that learner takes.

    Parameters
    ----------
    {settings}

    Attributes
    ----------
    After ``fit(data)``: ``graph_``
    (networkx.DiGraph), ``dag_`` (DAG), ``log_score_``, ``network_`` (pgmpy
    DiscreteBayesianNetwork with CPTs; LinearGaussianBayesianNetwork for
    continuous rows), ``bayesian_network_`` (mtbn BayesianNetwork, or
    LinearGaussianNetwork), ``search_result_``, ``data_kind_``. ``score_samples(data)`` and
    ``score(data)`` give held-out log-likelihoods, so the learner works with
    scikit-learn's model selection (e.g. ``GridSearchCV`` over
    ``equivalent_sample_size``).

    Examples
    --------
    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> learner = StructureLearner(n_restarts=0).fit(sample(net, 400, random_state=1).to_dataframe())
    >>> sorted(learner.graph_.edges())[:2]
    [('bronc', 'dysp'), ('dysp', 'asia')]
    >>> round(learner.score(sample(net, 400, random_state=2).to_dataframe()), 3)  # mean log-likelihood per row
    -2.152
    """

    _settings = SINGLE
    _fitted = ("result_", "search_result_", "dag_", "graph_", "log_score_", "bayesian_network_", "network_",
               "n_features_in_", "feature_names_in_")

    # The parameters are spelled out (for help(), IDEs and type checkers); tests/test_settings.py keeps them
    # equal, name by name and default by default, to the settings table (mtbn.learn.settings.SINGLE).
    def __init__(self, *, scoring="bdeu", equivalent_sample_size=1.0, max_parents=None, required_edges=None,
                 forbidden_edges=None, tiers=None, knowledge=None, start=None, tabu_length=10, max_tabu_iter=10,
                 n_restarts=50, perturbation=None, max_iter=None, random_state=0):
        self._store({k: v for k, v in locals().items() if k != "self"})

    def fit(self, data: Any, y: Any = None, *, required_edges: Any = None, forbidden_edges: Any = None, start: Any = None) -> StructureLearner:
        """Learn the structure and CPTs of ``data`` (``y`` is ignored: scikit-learn's signature).

        Parameters
        ----------
        data : DataFrame, DiscreteData, path to a CSV file, or 2-D array of int
            The rows: a DataFrame of state labels, a DiscreteData, a CSV path, or integer codes of categories
            (columns ``x0, x1, ...``).
        y : None
            Ignored.
        required_edges : list of (parent, child), DAG or networkx graph, optional
            Overrides the constructor's ``required_edges`` for this fit when not None.
        forbidden_edges : list of (parent, child), DAG or networkx graph, optional
            Overrides the constructor's ``forbidden_edges`` for this fit when not None.
        start : DAG, networkx.DiGraph or edge list, optional
            Overrides the constructor's ``start`` for this fit when not None.

        Returns
        -------
        StructureLearner
            The learner itself, fitted.
        """
        from mtbn.networks import fit_parameters

        data = _array_frame(data, "fit")
        params = self._fit_params(required_edges=required_edges, forbidden_edges=forbidden_edges, start=start)
        params["score"] = params.pop("scoring")
        self.__dict__.pop("_network_cache", None)
        kind = kind_of([data]) if not isinstance(data, (str, os.PathLike)) else None
        self.data_kind_ = "discrete" if kind is None else kind.name
        if kind is not None:  # continuous rows (or a registered kind's): its learner, on this one task
            return self._fit_kind(kind, data, params)
        d = as_discrete_data(data)
        res = learn_structure(d, **params)
        self.result_ = self.search_result_ = res
        self.dag_ = res.graph
        self.graph_ = res.graph.to_networkx()
        self.log_score_ = res.log_score
        self.bayesian_network_ = fit_parameters(
            [tuple(sorted(p)) for p in res.graph.parents], d, equivalent_sample_size=self.equivalent_sample_size
        )
        self.bayesian_network_.name = d.name  # the data's name (a CSV file's stem)
        self._train_data = d  # score() refits the CPTs on it when held-out rows show a state it never saw
        self.n_features_in_ = d.n_vars
        self.feature_names_in_ = np.asarray(d.names, dtype=object)
        return self

    def _fit_kind(self, kind, data, params):
        """``fit`` on rows a registered kind of data claims (continuous: a linear Gaussian network), its learner
        given the settings it takes (another one set away from its default is refused)."""
        from mtbn.learn.kinds import kind_settings

        settings = kind_settings(kind, params, SINGLE.defaults(), {"score": "scoring"})
        name = getattr(data, "name", None) if not hasattr(data, "columns") else None
        res = kind.learn({str(name or "data"): data}, **settings)
        self.result_ = res
        self.search_result_ = getattr(res, "search", None)
        self.dag_ = res.graphs[0]
        self.graph_ = self.dag_.to_networkx()
        self.bayesian_network_ = res.networks[0]
        self._network_cache = next(iter(kind.pgmpy_networks(res).values()))
        self._train_data = None
        self.n_features_in_ = len(self.dag_.names)
        self.feature_names_in_ = np.asarray(self.dag_.names, dtype=object)
        rows = (kind.task_data({res.task_names[0]: data}) or {}).get(res.task_names[0])
        score = getattr(res, "score", None)
        self.log_score_ = float("nan") if rows is None or score is None else float(
            make_scorer(rows, score).score([set(p) for p in self.dag_.parents]))  # the structure's own score
        return self

    @property
    def network_(self):
        """The fitted network as a pgmpy ``DiscreteBayesianNetwork`` (built once, then the same object; for
        continuous rows pgmpy's ``LinearGaussianBayesianNetwork``)."""
        self._check_fitted("bayesian_network_")
        if "_network_cache" not in self.__dict__:
            from mtbn.networks import to_pgmpy

            self._network_cache = to_pgmpy(self.bayesian_network_)
        return self._network_cache

    def score_samples(self, data):
        """Log-likelihood of each row of ``data`` under the fitted network (natural log).

        A state that ``data`` shows and the training rows never did (a
        cross-validation fold can miss a rare state) is added to its
        variable's states, and the CPTs are refitted on the training rows with
        the same BDeu prior over the larger state space: the new state gets the
        prior's share of probability, so every row scores finitely.

        Parameters
        ----------
        data : DataFrame, DiscreteData, path to a CSV file, or 2-D array of int
            Rows over the fitted variables (an array: the columns in the order of ``fit``).

        Returns
        -------
        ndarray of float, shape (n_rows,)
            The log-likelihood of each row.
        """
        from mtbn.networks import fit_parameters, log_likelihood

        self._check_fitted("bayesian_network_")
        if getattr(self, "data_kind_", "discrete") != "discrete":  # a linear Gaussian network: rows matched by name
            from mtbn.data.continuous import ContinuousData, continuous_from_dataframe

            rows = data if isinstance(data, ContinuousData) else continuous_from_dataframe(data, name="data")
            return self.bayesian_network_.log_likelihood(rows, per_row=True)
        d = as_discrete_data(_array_frame(data, "score_samples", self.feature_names_in_, type(self).__name__))
        net = self.bayesian_network_
        train = getattr(self, "_train_data", None)
        extra = [tuple(s for s in d.states[d.index(v)] if s not in known) if v in d.names else ()
                 for v, known in zip(net.names, map(set, net.states))]
        if train is not None and any(extra):
            from mtbn.data import DiscreteData

            states = tuple(tuple(train.states[train.index(v)]) + e for v, e in zip(net.names, extra))
            train = DiscreteData(train.codes[:, [train.index(v) for v in net.names]], tuple(net.names), states,
                                 train.name)
            net = fit_parameters([tuple(sorted(p)) for p in net.parents], train,
                                 equivalent_sample_size=self.equivalent_sample_size)
        return log_likelihood(net, d, per_row=True)

    def score(self, data, y=None):
        """Mean log-likelihood per row of ``data`` (higher is better).

        Parameters
        ----------
        data : DataFrame, DiscreteData, path to a CSV file, or 2-D array of int
            Rows over the fitted variables, as for :meth:`score_samples`.
        y : None
            Ignored.

        Returns
        -------
        float
            The mean of :meth:`score_samples`.
        """
        return float(np.mean(self.score_samples(data)))




def _array_tasks(tasks, task_column):
    """The tasks of a DataFrame made from an array (columns ``x0, x1, ...``): one task ``"task0"``, or the
    groups of the column ``task_column`` (an int: its position). Called for arrays only."""
    if task_column is None:
        return {"task0": tasks}, None
    if isinstance(task_column, (int, np.integer)) and not isinstance(task_column, bool):
        if 0 <= task_column < tasks.shape[1]:
            return tasks, f"x{int(task_column)}"
        raise error("estimator-task-column", value=int(task_column), n=tasks.shape[1], last=tasks.shape[1] - 1)
    return tasks, task_column


@_MULTITASK.declare(names=_NAMES)
class MultitaskStructureLearner(_Estimator):
    """Multitask structure learner (estimator shell around :func:`learn_structures`).

    The parameters are :func:`learn_structures`' settings
    (:data:`mtbn.learn.settings.MULTITASK`, ``score`` called ``scoring``)
    and ``n_bootstrap``; they are checked at ``fit``.

    ``tasks`` as for :func:`learn_structures`, or a 2-D array of integer
    codes (one task; with ``task_column=j``, column ``j`` says which task
    each row belongs to). For scikit-learn's model selection
    (``GridSearchCV``, ``cross_val_score``) give one DataFrame or array with
    ``task_column=`` and a shuffling splitter, so that the folds split every
    task's rows; a dict of tasks would be split by task, which scikit-learn
    cannot index.

    Parameters
    ----------
    {settings}

    Attributes
    ----------
    After ``fit(tasks)``:
    ``graphs_`` (task name -> networkx.DiGraph), ``dags_`` (name -> DAG),
    ``networks_`` (name -> pgmpy DiscreteBayesianNetwork with CPTs),
    ``bayesian_networks_`` (name -> mtbn BayesianNetwork), ``penalty_``,
    ``log_score_``, ``penalty_path_``, ``transfer_`` (the negative-transfer
    guard's verdict, see :class:`MultitaskResult`), ``sharing_strength_``
    (with ``parameter_sharing``), ``n_iter_``,
    ``search_result_``, ``result_``; with ``n_bootstrap=B > 0`` also
    ``bootstrap_`` (:class:`mtbn.bootstrap.BootstrapResult`: B replicates
    repeating the learner's decisions: its penalty, the tasks it learned
    alone and the pooled structure when it chose it; see
    :func:`mtbn.bootstrap.bootstrap_structures`).

    With ``interventions`` (the tasks are experimental conditions of one
    system): ``causal_graph_`` (networkx.DiGraph, the causal DAG shared by
    the tasks), ``mechanisms_`` (task x variable: ``"given"``,
    ``"learned"``, ``"activity"`` or ``""``) and :meth:`predict_condition`.

    Examples
    --------
    >>> from mtbn.networks import load_network, sample
    >>> net = load_network("asia")
    >>> tasks = {"a": sample(net, 500, random_state=1).to_dataframe(),
    ...          "b": sample(net, 500, random_state=2).to_dataframe()}
    >>> learner = MultitaskStructureLearner(penalty=0.9, n_restarts=0).fit(tasks)
    >>> sorted(learner.graphs_)
    ['a', 'b']
    """

    _settings = _MULTITASK
    _fitted = ("result_", "search_result_", "dags_", "graphs_", "bayesian_networks_", "networks_", "penalty_", "task_column_",
               "log_score_", "penalty_path_", "transfer_", "n_iter_", "n_tasks_", "n_features_in_")
    _takes_dict = True

    # Spelled out, and kept equal to the table (mtbn.learn.settings.MULTITASK + ESTIMATOR_ONLY) by
    # tests/test_settings.py.
    def __init__(self, *, prior="paired", penalty="auto", reversal=None, scoring="bdeu", equivalent_sample_size=1.0,
                 max_parents=None, start="auto", cv=5, validation=None, selection_rule=None, force_transfer=False,
                 penalty_grid=None, warm_start=False, penalty_search="refine", solver="auto", pair_weights=None,
                 edge_penalty=None, structure_log_prior=None, required_edges=None, forbidden_edges=None, tiers=None,
                 knowledge=None, n_restarts=50, tabu_length=10, max_tabu_iter=10, n_joint_restarts=20,
                 max_iter=None, random_state=0, n_jobs=None, task_column=None, progress=None,
                 parameter_sharing="auto", interventions=None, intervention_type="auto", further_changes=False,
                 transfer_per_task="auto", n_bootstrap=0):
        self._store({k: v for k, v in locals().items() if k != "self"})

    def fit(self, tasks: Any, y: Any = None, *, task_column: str | None = None, required_edges: Any = None, forbidden_edges: Any = None, edge_penalty: Any = None) -> MultitaskStructureLearner:
        """Learn every task's structure and CPTs (``y`` is ignored: scikit-learn's signature).

        The keyword arguments, when given, override the constructor's.

        Parameters
        ----------
        tasks : dict of name -> DataFrame, list of DataFrames, TaskSet, DataFrame, or 2-D array of int
            The tasks, as for :func:`mtbn.learn.learn_structures`, or integer codes of categories (one task
            ``"task0"``, or split by ``task_column``).
        y : None
            Ignored.
        task_column : str or int, optional
            The column that splits one DataFrame into tasks (for an array, the position of the column); overrides
            the constructor's ``task_column`` when not None.
        required_edges : list of (parent, child), DAG or networkx graph, optional
            Overrides the constructor's ``required_edges`` for this fit when not None.
        forbidden_edges : list of (parent, child), DAG or networkx graph, optional
            Overrides the constructor's ``forbidden_edges`` for this fit when not None.
        edge_penalty : dict of (u, v) -> float, optional
            Overrides the constructor's ``edge_penalty`` for this fit when not None.

        Returns
        -------
        MultitaskStructureLearner
            The learner itself, fitted.
        """
        params = self._fit_params(task_column=task_column, required_edges=required_edges,
                                  forbidden_edges=forbidden_edges, edge_penalty=edge_penalty)
        from_array = isinstance(tasks, np.ndarray)
        tasks = _array_frame(tasks, "fit")  # refuses sparse input too
        if from_array:
            tasks, params["task_column"] = _array_tasks(tasks, params["task_column"])
        n_bootstrap = ESTIMATOR_ONLY["n_bootstrap"].checked(params.pop("n_bootstrap"))  # checked before the work
        params["score"] = params.pop("scoring")
        kind = kind_of(split_by_task_column(tasks, params["task_column"]))
        if kind is not None and n_bootstrap and type(kind).task_data is DataKind.task_data:
            raise error("data-kind-setting", setting="n_bootstrap", kind=kind.description or kind.name,
                        instead=kind.instead)
        res = learn_structures(tasks, **params)
        self.task_column_ = params["task_column"]
        self.__dict__.pop("_networks_cache", None)
        self.__dict__.pop("bootstrap_", None)
        self.data_kind_ = "discrete" if kind is None else kind.name
        if n_bootstrap:
            # The estimator is the front end: it may call the bootstrap layer above learn_structures.
            from mtbn.bootstrap import bootstrap_structures

            self.bootstrap_ = bootstrap_structures(tasks, n_boot=n_bootstrap, **params, result=res)
        if kind is not None:
            return self._fitted_kind(kind, res)
        self.result_ = res
        self.search_result_ = res.search
        self.dags_ = dict(zip(res.task_names, res.graphs))
        self.graphs_ = {n: g.to_networkx() for n, g in self.dags_.items()}
        self.bayesian_networks_ = dict(zip(res.task_names, res.networks))
        self.penalty_ = res.penalty
        self.log_score_ = res.log_score
        self.penalty_path_ = res.penalty_path_records()
        self.transfer_ = res.transfer
        self.sharing_strength_ = res.sharing_strength
        self.n_iter_ = res.search.n_iter
        self.n_tasks_ = len(res.task_names)
        variables = dict.fromkeys(v for net in res.networks for v in net.names)
        self.n_features_in_ = len(variables) + (self.task_column_ is not None)  # the columns fit was given
        self._from_array = from_array  # score() then reads the task column of an array by position, as fit did
        self.__dict__.pop("causal_graph_", None)
        self.__dict__.pop("mechanisms_", None)
        if res.interventions is not None:
            self.causal_graph_ = res.interventions.causal_graph.to_networkx()
            self.mechanisms_ = res.interventions.table()
        return self

    def _fitted_kind(self, kind, res):
        """The fitted attributes from the result of a registered data kind's learner (:mod:`mtbn.learn.kinds`)."""
        self.result_ = res
        self.search_result_ = getattr(res, "search", None)
        self.dags_ = dict(zip(res.task_names, res.graphs))
        self.graphs_ = {n: g.to_networkx() for n, g in self.dags_.items()}
        self.bayesian_networks_ = dict(zip(res.task_names, res.networks))
        self._networks_cache = kind.pgmpy_networks(res)
        self.penalty_ = res.penalty
        self.transfer_ = getattr(res, "transfer", None)
        self.sharing_strength_ = getattr(res, "sharing_strength", None)
        self.n_tasks_ = len(res.task_names)
        self.n_features_in_ = len({v for g in res.graphs for v in g.names})
        self._from_array = False
        self.__dict__.pop("causal_graph_", None)
        self.__dict__.pop("mechanisms_", None)
        return self

    def predict_condition(self, targets, distributions=None, children="average"):
        """With ``interventions``: the pgmpy network of a condition not among the tasks that intervenes on
        ``targets`` (their mechanisms replaced, every other kept;
        :meth:`mtbn.learn.interventional.InterventionalModel.predict`).

        Parameters
        ----------
        targets : list of str
            The variables the condition intervenes on.
        distributions : dict of str -> sequence of float, optional
            Per target, its probabilities over its states; a target left out is uniform.
        children : {"average", "keep"}, default "average"
            With activity interventions, whether the targets' children stop seeing them or keep their CPTs.

        Returns
        -------
        pgmpy.models.DiscreteBayesianNetwork
            The condition's network: each target without parents, every other CPT the reference regime's.

        Examples
        --------
        >>> from mtbn.data import load_sachs_conditions
        >>> from mtbn.data.discretization import discretize
        >>> sachs = load_sachs_conditions()
        >>> frames, _ = discretize(sachs.tasks, "quantile:3")
        >>> learner = MultitaskStructureLearner(interventions=sachs.intervention_targets(), n_restarts=0)
        >>> model = learner.fit(frames).predict_condition(["plcg"])
        >>> sorted(learner.causal_graph_.predecessors("plcg")), model.get_parents("plcg")
        (['PIP2', 'PKC'], [])
        """
        from mtbn.networks import to_pgmpy

        self._check_fitted("result_")
        if self.result_.interventions is None:
            raise error("predict-needs-interventions-api")
        return to_pgmpy(self.result_.interventions.predict(targets, distributions, children))

    @property
    def networks_(self):
        """Task name -> pgmpy ``DiscreteBayesianNetwork`` with CPTs (built once per fit, then the same objects)."""
        self._check_fitted("bayesian_networks_")
        if "_networks_cache" not in self.__dict__:
            from mtbn.networks import to_pgmpy

            self._networks_cache = {n: to_pgmpy(b) for n, b in self.bayesian_networks_.items()}
        return self._networks_cache

    def score(self, tasks, y=None):
        """Mean over the tasks of the mean log-likelihood per row of each task's data (higher is better).

        ``tasks`` as for ``fit``; every task name must be one the learner was fitted on.

        Parameters
        ----------
        tasks : dict of name -> DataFrame, list of DataFrames, TaskSet, DataFrame, or 2-D array of int
            The rows of some or all fitted tasks, split as at ``fit`` (by the fitted ``task_column``).
        y : None
            Ignored.

        Returns
        -------
        float
            The mean over the tasks given of each task's mean log-likelihood per row under its network.
        """
        from mtbn.data import as_named_items
        from mtbn.networks import log_likelihood

        self._check_fitted("bayesian_networks_")
        if self.data_kind_ != "discrete":  # split as at fit
            lls = DATA_KINDS[self.data_kind_].mean_log_likelihoods(self.result_, split_by_task_column(
                tasks, self.task_column_))
            return float(np.mean(list(lls.values())))
        task_column = self.task_column_
        if isinstance(tasks, np.ndarray):  # columns by position, as at fit
            width = [f"x{j}" for j in range(self.n_features_in_)]
            tasks, task_column = _array_tasks(_array_frame(tasks, "score", width, type(self).__name__),
                                              task_column if task_column is None or not self._from_array
                                              else int(task_column[1:]))
        values = []
        for name, data in as_named_items(tasks, task_column):
            if name not in self.bayesian_networks_:
                raise error("unknown-task", task=name, names=", ".join(map(repr, self.bayesian_networks_)))
            values.append(np.mean(log_likelihood(self.bayesian_networks_[name], as_discrete_data(data, name=name),
                                                 per_row=True)))
        return float(np.mean(values))
