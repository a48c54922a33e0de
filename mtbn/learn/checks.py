"""Argument checks of the learners: data, background knowledge, start graphs and options.

Every function turns a user's input into a checked internal value (a
DiscreteData, boolean edge matrices over the variables, parent sets of
indices, a penalty grid) or raises a registered message (:mod:`mtbn.messages`)
that names the argument. Nothing here searches or scores; the other modules
of :mod:`mtbn.learn` assume what these functions return.
"""

import contextlib
import math
import re
import warnings
from collections.abc import Mapping

import numpy as np

from mtbn._validation import check_penalty
from mtbn.data import MAX_LEARNED_CPT_SIZE, DiscreteData, from_dataframe, read_csv
from mtbn.exceptions import CycleError, DataWarning, InvalidDataError, InvalidParameterError
from mtbn.graph import DAG, cycle_text, find_cycle, nodes_and_edges
from mtbn.joint import local_constraints
from mtbn.messages import error, register, warn
from mtbn.networks.shared_fitting import is_strength


def as_discrete_data(data, *, name="data", dropna=False):
    """A DiscreteData from a DataFrame, a CSV path or a DiscreteData."""
    if isinstance(data, DiscreteData):
        return data
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        return read_csv(data, dropna=dropna)
    return from_dataframe(data, name=name, dropna=dropna)


P = InvalidParameterError
register("tier-unknown-variable", P, "{what}: unknown variable {name!r}.",
         cause="A tier (temporal order) names a variable the data does not have.",
         fix="Use the data's column names in the tiers.")
register("tier-twice", P, "{what}: variable {name!r} is in two tiers.",
         cause="Each variable belongs to at most one tier of a temporal order.",
         fix="List the variable in one tier only.")
register("knowledge-type", P, "knowledge must be a pgmpy ExpertKnowledge (or None); got {got}.",
         cause="The knowledge argument has no required_edges / forbidden_edges attributes.",
         fix="Pass pgmpy.estimators.ExpertKnowledge(...), or give required_edges, forbidden_edges and tiers directly.")
register("knowledge-field", P, "knowledge.{field} is not supported by mtbn; got {value!r}.",
         cause="The pgmpy ExpertKnowledge sets a field mtbn's learners cannot honour, and ignoring it would "
               "learn something other than what was asked.",
         fix="Leave the field empty; mtbn honours required_edges, forbidden_edges, temporal_order and search_space.")
register("edges-per-task", P, "{what} must be one list of (parent, child) pairs for every task; got a mapping "
         "with keys {keys}.",
         cause="Constraints per task (a dict of task -> edges) are not supported: every task gets the same "
               "required and forbidden edges.",
         fix="Give one list of edges, or learn the tasks that need other constraints in a separate call.")
register("edge-pair", P, "{what} must be (parent, child) pairs; got {value!r}.",
         cause="An edge in required_edges / forbidden_edges is not a (parent, child) pair.",
         fix="Give edges as a list of 2-tuples of variable names, e.g. [('smoke', 'cancer')].")
register("edge-unknown-variable", P, "{what}: unknown variable {name!r} in edge ({u!r}, {v!r}).",
         cause="An edge names a variable that no task has.",
         fix="Check the spelling against the column names.")
register("edge-self-loop", P, "{what}: self-loop on {name!r}.",
         cause="An edge from a variable to itself.",
         fix="Remove it: a Bayesian network has no self-loops.")
register("count-argument", P, "{name} must be an integer >= 0; got {value!r}.",
         cause="A restart count or tabu setting that is negative or not a whole number.",
         fix="Pass a whole number >= 0.")
register("start-cyclic", CycleError, "{what} is not a DAG: it has the directed cycle {cycle}.",
         cause="A start graph given by the user has a directed cycle.",
         fix="Pass a directed acyclic graph (networkx.is_directed_acyclic_graph tells), or leave start at its default.")
register("required-and-forbidden", P, "edge ({u!r}, {v!r}) is both required and forbidden.",
         cause="The same edge appears in required_edges and forbidden_edges.",
         fix="Remove it from one of the two lists.")
register("start-forbidden-edge", P, "{what} graph has the forbidden edge ({u!r}, {v!r}).",
         cause="A start graph contains an edge that forbidden_edges excludes.",
         fix="Remove the edge from the start graph or from forbidden_edges.")
register("start-too-many-parents", P, "{what} graph gives {name!r} {n_parents} parents; max_parents is {limit}.",
         cause="A start graph (with the required edges added) exceeds max_parents.",
         fix="Raise max_parents or remove edges from the start graph.")
register("start-cpt-size", P,
         "{what} graph gives {name!r} parents {parents} whose CPT would have {size} entries; at most {limit}.",
         cause="A start graph or required edges give a variable parents with so many state combinations that its "
               "table is past what a learned network may hold (MAX_LEARNED_CPT_SIZE entries, 8 MB).",
         fix="Require fewer parents of that variable, or merge the parents' states.")
register("required-cyclic", CycleError, "required edges make the {what} graph cyclic: {cycle}.",
         cause="The required edges, added to the start graph, close a directed cycle.",
         fix="Check required_edges for a cycle, and the start graph for edges against them.")
register("validation-value", P, "validation must be a fraction in (0, 1) or a row count >= 1; got {value!r}.",
         cause="The validation split is neither a fraction between 0 and 1 nor a positive row count.",
         fix="Pass e.g. 0.05 (5% of each task's rows) or 50 (rows per task), or leave it unset to use cv.")
register("structure-prior-shape", P,
         "structure_log_prior must be a callable or an array of shape {shape}; got {got}.",
         cause="A structure prior array whose shape is not (tasks, variables, variables).",
         fix="Pass an array with one (parent, child) matrix per task, or a function f(task, parent, child).")
register("cv-value", P, "cv must be an integer >= 2; got {value!r}.",
         cause="A cross-validation fold count below 2 or not a whole number.",
         fix="Pass 2 or more folds (5 is the default), or --validation for the paper's single split.")
register("task-too-few-rows", InvalidDataError,
         "task {task!r} has {n} row (n_samples={n}); learning a structure needs at least 2 rows per task.",
         cause="A task with a single row: no dependence can be measured, and it cannot be held out.",
         fix="Give the task more rows, or leave it out.")
register("cv-too-many-folds", P,
         "cv={cv} folds need at least {cv} rows in every task; task {task!r} has {n} (give cv <= {n}, a "
         "validation split, or a fixed penalty).",
         cause="Cross-validation with more folds than a task has rows leaves folds with nothing to hold out.",
         fix="Use fewer folds (5 is the default), a validation split (--validation), or a fixed --penalty.")
register("cv-small-folds", DataWarning,
         "task {task!r} has {n} rows: {cv}-fold cross-validation holds out about {per} row(s) per fold, too few "
         "to choose the penalty reliably; give more rows, fewer folds (cv) or a fixed penalty.",
         cause="Each fold holds out fewer than 5 of the task's rows, so the held-out scores are mostly noise.",
         fix="Give the task more rows, use fewer folds, or fix the penalty (e.g. 0.9).")
register("tasks-share-no-variable", DataWarning,
         "tasks {a!r} and {b!r} share no variable, so multitask learning cannot transfer between them; check "
         "their column names, or learn them apart.",
         cause="Two tasks whose columns are all different (a header that differs only in case is enough).",
         fix="Give the same variable the same column name in every task, or learn unrelated tasks separately.")
register("task-shares-no-variable", DataWarning,
         "task {task!r} shares no variable with any of the other {others} tasks, so multitask learning cannot "
         "transfer to or from it; check its column names, or learn it apart.",
         cause="A task whose columns all differ from every other task's (another kind of file, or other headers).",
         fix="Give the same variable the same column name in every task, or leave the task out.")
register("variables-differ-in-case", DataWarning,
         "{count} column(s) of task {b!r} match columns of task {a!r} except for case or white space (e.g. {v!r} "
         "and {u!r}), so they are different variables; rename them if they are the same.",
         cause="Column names are compared exactly: 'Age' and 'age ' are two variables.",
         fix="Give the same variable the same column name in every task.")
#: The start of the one-value warning after its count: the registered text and the filter that quiets it.
_ONE_VALUE = "column(s) take a single value"
register("column-one-value", DataWarning,
         "{count} " + _ONE_VALUE + " in every row of every task ({names}; e.g. {name!r} is always "
         "{value!r}): each is learned as an isolated node; drop them, or check the files.",
         cause="A column with a single value carries no information: BDeu finds no parent of it, and no child "
               "of it, better than none.",
         fix="Drop the column, or give rows where it varies (a small sample can miss a rare state).")
register("empty-grid", P, "penalty_grid is empty.",
         cause="An empty list of penalties to choose from.",
         fix="Pass at least one penalty in [0, 1], or leave penalty_grid unset for the default grid.")
register("edge-penalty-unknown-variable", P, "edge_penalty: unknown variable in edge ({u!r}, {v!r}).",
         cause="edge_penalty names a variable that no task has.",
         fix="Check the spelling against the column names.")
register("identical-needs-shared-variables", P, "{what} needs tasks over the same variables.",
         cause="The identical-structure method (one graph for all tasks) needs every task to have the same columns.",
         fix="Give all tasks the same columns, or use the multitask learner, which allows partly shared variables.")
register("start-count", P, "start must give one graph per task ({k}); got {n}.",
         cause="A list of start graphs whose length differs from the number of tasks.",
         fix="Pass one graph per task, in the order of the tasks.")
register("start-unknown-task", P, "start gives a graph for {task!r}, which is not a task; tasks are {names}.",
         cause="start was given as a mapping of task name -> graph with a name that none of the tasks has.",
         fix="Key the start graphs by the tasks' names (a dict of tasks: its keys).")
register("start-task-missing", P, "start gives no graph for task {task!r}; give one for every task.",
         cause="start was given as a mapping of task name -> graph that leaves a task out.",
         fix="Give every task a start graph (an empty edge list starts it with no edge), or pass start='auto'.")
register("tiers-type", P, "tiers must be a sequence of tiers (each a variable name or a list of names); got the "
         "string {value!r}.",
         cause="tiers was given as one string, which would be read letter by letter as tiers of one letter each.",
         fix="Pass a list of tiers, e.g. tiers=[['age', 'sex'], ['smoking'], ['cancer']].")


def starts_by_task(start, names):
    """``start`` as :func:`mtbn.learn.learn_structures` searches it: a mapping of task name -> graph becomes one
    graph per task in the tasks' order ``names`` (every task given, no other name; keys compared as text, as
    the tasks' own keys are); a string or a sequence stays as it is.

    Examples
    --------
    >>> starts_by_task({"b": [("x", "y")], "a": []}, ["a", "b"])
    [[], [('x', 'y')]]
    >>> starts_by_task({"a": []}, ["a", "b"])
    Traceback (most recent call last):
    ...
    mtbn.exceptions.InvalidParameterError: start gives no graph for task 'b'; give one for every task.
    """
    if not isinstance(start, Mapping):
        return start
    given = {str(name): graph for name, graph in start.items()}
    for name in given:
        if name not in names:
            raise error("start-unknown-task", task=name, names=", ".join(map(repr, names)))
    for name in names:
        if name not in given:
            raise error("start-task-missing", task=name)
    return [given[name] for name in names]


def _edge_list(edges):
    """Edges ``(parent, child)`` of a DAG, a networkx graph or an iterable of pairs."""
    if edges is None:
        return ()
    if isinstance(edges, DAG) or (hasattr(edges, "edges") and hasattr(edges, "nodes")):
        return nodes_and_edges(edges)[1]
    return edges  # pairs, checked one by one by edge_matrix


def edge_matrix(edges, names, what):
    """Boolean matrix ``M[u, v]`` for ``(parent, child)`` names (a list, a DAG or a networkx graph)."""
    n = len(names)
    index = {v: i for i, v in enumerate(names)}
    m = np.zeros((n, n), dtype=bool)
    if isinstance(edges, Mapping):
        raise error("edges-per-task", what=what, keys=", ".join(map(repr, list(edges)[:3])))
    for e in _edge_list(edges):
        try:
            u, v = e
        except (TypeError, ValueError):
            raise error("edge-pair", what=what, value=e) from None
        for x in (u, v):
            if x not in index:
                raise error("edge-unknown-variable", what=what, name=x, u=u, v=v)
        if u == v:
            raise error("edge-self-loop", what=what, name=u)
        m[index[u], index[v]] = True
    return m


def constraint_matrices(names, required_edges=None, forbidden_edges=None, tiers=None, knowledge=None):
    """Required and forbidden edge matrices from every form of background knowledge.

    ``required_edges`` / ``forbidden_edges``: ``(parent, child)`` names as a
    list, a :class:`~mtbn.graph.DAG` or a networkx graph. ``tiers``: a
    temporal order, a sequence of groups of variable names; an edge from a
    later tier into an earlier one is forbidden (edges within a tier and
    between untiered variables are free), as bnlearn's ``tiers2blacklist``.
    ``knowledge``: a pgmpy ``ExpertKnowledge``, whose required and forbidden
    edges and temporal order are added to the others, and whose
    ``search_space`` (when not empty) forbids every edge it does not list
    (directed, as in pgmpy); a field mtbn cannot honour is refused, never
    ignored.

    Returns
    -------
    required, forbidden : ndarray of shape (n, n), bool
    """
    req_lists = [("required_edges", required_edges)]
    forb_lists = [("forbidden_edges", forbidden_edges)]
    tier_lists = [("tiers", tiers)]
    if knowledge is not None:
        if not all(hasattr(knowledge, a) for a in ("required_edges", "forbidden_edges")):
            raise error("knowledge-type", got=type(knowledge).__name__)
        req_lists.append(("knowledge.required_edges", knowledge.required_edges))
        forb_lists.append(("knowledge.forbidden_edges", knowledge.forbidden_edges))
        tier_lists.append(("knowledge.temporal_order", getattr(knowledge, "temporal_order", None)))
        _check_knowledge_fields(knowledge)
    required = np.zeros((len(names), len(names)), dtype=bool)
    forbidden = required.copy()
    for what, edges in req_lists:
        required |= edge_matrix(edges, names, what)
    for what, edges in forb_lists:
        forbidden |= edge_matrix(edges, names, what)
    space = None if knowledge is None else getattr(knowledge, "search_space", None)
    if space:  # every edge outside it is forbidden, unless required
        forbidden |= ~edge_matrix(space, names, "knowledge.search_space") & ~np.eye(len(names), dtype=bool) & ~required
    index = {v: i for i, v in enumerate(names)}
    for what, order in tier_lists:
        if isinstance(order, str):
            raise error("tiers-type", value=order)
        if not order:
            continue
        level = np.full(len(names), -1)
        for t, group in enumerate(order):
            for v in ([group] if isinstance(group, str) else group):
                if v not in index:
                    raise error("tier-unknown-variable", what=what, name=v)
                if level[index[v]] >= 0:
                    raise error("tier-twice", what=what, name=v)
                level[index[v]] = t
        tiered = level >= 0
        # u -> v is forbidden when u sits in a later tier than v
        forbidden |= tiered[:, None] & tiered[None, :] & (level[:, None] > level[None, :])
    return required, forbidden


#: The fields of pgmpy's ExpertKnowledge that mtbn honours (``temporal_ordering`` is derived from
#: ``temporal_order``).
KNOWLEDGE_FIELDS = ("required_edges", "forbidden_edges", "temporal_order", "temporal_ordering", "search_space")


def _check_knowledge_fields(knowledge):
    """Refuse a set field of an ExpertKnowledge that mtbn does not honour (a newer pgmpy's, say)."""
    for field, value in vars(knowledge).items() if hasattr(knowledge, "__dict__") else ():
        if field.startswith("_") or field in KNOWLEDGE_FIELDS:
            continue
        if value is not None and not (hasattr(value, "__len__") and len(value) == 0) and value is not False:
            raise error("knowledge-field", field=field, value=value)


def check_counts(**counts):
    """Each keyword must be an integer >= 0 (restart counts, tabu settings)."""
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise error("count-argument", name=name, value=value)


def as_parent_sets(graph, names, what="start graph"):
    """Parent sets (list of sets of indices) of a DAG, DiGraph or edge list."""
    if graph is None:
        return [set() for _ in names]
    if isinstance(graph, DAG):
        if tuple(graph.names) == tuple(names):
            return [set(p) for p in graph.parents]
        edges = graph.edges(names=True)
    else:
        edges = list(_edge_list(graph))
    m = edge_matrix(edges, names, what)
    parents = [set(np.flatnonzero(m[:, v]).tolist()) for v in range(len(names))]
    try:
        DAG(parents, names)
    except CycleError:
        raise error("start-cyclic", what=what, cycle=cycle_text(find_cycle(parents), names)) from None
    return parents


def check_constraints(parents, required, forbidden, names, max_parents, what="start", arities=None):
    """Add required edges to a start graph and check it against the constraints (and, given the variables'
    ``arities``, every CPT against :data:`mtbn.data.MAX_LEARNED_CPT_SIZE`)."""
    n = len(names)
    both = required & forbidden
    if both.any():
        u, v = np.argwhere(both)[0]
        raise error("required-and-forbidden", u=names[u], v=names[v])
    parents = [set(p) for p in parents]
    for u, v in np.argwhere(required):
        parents[v].add(int(u))
    for v in range(n):
        bad = [u for u in parents[v] if forbidden[u, v]]
        if bad:
            raise error("start-forbidden-edge", what=what, u=names[bad[0]], v=names[v])
        if max_parents is not None and len(parents[v]) > max_parents:
            raise error("start-too-many-parents", what=what, name=names[v], n_parents=len(parents[v]),
                        limit=max_parents)
        if arities is not None:
            size = math.prod(int(arities[p]) for p in parents[v]) * int(arities[v])
            if size > MAX_LEARNED_CPT_SIZE:
                raise error("start-cpt-size", what=what, name=names[v], size=size, limit=MAX_LEARNED_CPT_SIZE,
                            parents=", ".join(repr(names[p]) for p in sorted(parents[v])))
    try:
        DAG(parents, names)
    except CycleError:
        raise error("required-cyclic", what=what, cycle=cycle_text(find_cycle(parents), names)) from None
    return parents


def check_validation(validation):
    """The paper's validation split: a fraction in (0, 1) or a row count >= 1."""
    ok = (isinstance(validation, (int, np.integer)) and not isinstance(validation, bool) and validation >= 1) or (
        isinstance(validation, float) and 0 < validation < 1
    )
    if not ok:
        raise error("validation-value", value=validation)
    return validation


def check_cv(cv):
    """A cross-validation fold count: an integer >= 2."""
    if isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or cv < 2:
        raise error("cv-value", value=cv)
    return cv


MIN_HELD_OUT_PER_FOLD = 5  # below this, cv-small-folds warns


def check_task_rows(taskset, cv=None):
    """Refuse one-row tasks; with ``cv`` (the penalty chosen by K-fold CV), refuse more folds than the smallest
    task has rows, and warn when a task's folds hold out fewer than :data:`MIN_HELD_OUT_PER_FOLD` rows."""
    for task in taskset.tasks:
        if task.n_samples < 2:
            raise error("task-too-few-rows", task=task.name, n=task.n_samples)
    if cv is None:
        return
    smallest = min(taskset.tasks, key=lambda task: task.n_samples)
    if cv > smallest.n_samples:
        raise error("cv-too-many-folds", cv=cv, task=smallest.name, n=smallest.n_samples)
    for task in taskset.tasks:
        if task.n_samples < MIN_HELD_OUT_PER_FOLD * cv:
            warn(error("cv-small-folds", task=task.name, n=task.n_samples, cv=cv, per=task.n_samples // cv))


def check_task_overlap(taskset):
    """Warn about tasks that share no variable and about column names that differ only in case or spaces."""
    present = taskset.local_index >= 0
    names = taskset.names
    shared = (present.astype(np.int64) @ present.T.astype(np.int64)) > 0  # shared[a, b]: a common variable
    # With three or more tasks, a task that shares nothing with any other gets one line, not one per pair.
    alone = {a for a in range(len(names)) if len(names) > 2 and shared[a].sum() == 1}
    for a in sorted(alone):
        warn(error("task-shares-no-variable", task=names[a], others=len(names) - 1))
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            if not shared[a, b] and a not in alone and b not in alone:
                warn(error("tasks-share-no-variable", a=names[a], b=names[b]))
    first = {}  # folded column name -> (column, task) where it was first seen
    clashes = {}  # (earlier task, task) -> [(earlier column, column), ...]
    for t, task in enumerate(taskset.tasks):
        for col in task.names:
            seen_col, seen_task = first.setdefault(col.strip().casefold(), (col, names[t]))
            if seen_col != col:
                clashes.setdefault((seen_task, names[t]), []).append((seen_col, col))
    for (a, b), pairs in clashes.items():
        warn(error("variables-differ-in-case", count=len(pairs), a=a, b=b, u=pairs[0][0], v=pairs[0][1]))


@contextlib.contextmanager
def parts_of_checked_data():
    """A block that learns from parts or draws of tasks already checked (a subset of the tasks, a bootstrap
    replicate, permuted pseudo-tasks): a column with one value there is not one in the user's data, so
    :func:`check_one_value_columns`' warning is not given again (in this process; a worker job enters it
    itself)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\d+ " + re.escape(_ONE_VALUE), category=DataWarning)
        yield


def check_one_value_columns(taskset):
    """Warn (one :class:`~mtbn.exceptions.DataWarning`) about variables that take a single value in every row of
    every task that has them: they are learned as isolated nodes (the warning names the user's line)."""
    value = np.full(len(taskset.variables), -1, dtype=np.int64)  # the one code seen so far; -2: varies
    for task, cols in zip(taskset.tasks, taskset.local_index):
        if task.n_samples == 0:
            continue
        codes = task.codes
        here = np.flatnonzero(cols >= 0)
        local = cols[here]
        one = (codes[:, local] == codes[0, local]).all(axis=0)
        first = codes[0, local].astype(np.int64)
        seen = value[here]
        value[here] = np.where(one & ((seen == -1) | (seen == first)), first, -2)
    constant = np.flatnonzero(value >= 0)
    if constant.size:
        v = int(constant[0])
        names = ", ".join(repr(taskset.variables[i]) for i in constant[:5]) + (", ..." if constant.size > 5 else "")
        warn(error("column-one-value", count=constant.size, names=names, name=taskset.variables[v],
                   value=taskset.states[v][value[v]]))


def check_grid(grid):
    """The checked grid, sorted increasing, with delta = 0 (independent learning) always on it."""
    grid = tuple(grid)
    if not grid:
        raise error("empty-grid")
    return tuple(sorted({check_penalty(p, "penalty_grid value") for p in grid} | {0.0}))


def edge_penalty_matrix(edge_penalty, names):
    """``(n, n)`` per-pair penalties (NaN: the global penalty) from ``{(u, v): penalty}``, or None."""
    if not edge_penalty:
        return None
    m = np.full((len(names), len(names)), np.nan)
    index = {v: i for i, v in enumerate(names)}
    for (u, v), val in dict(edge_penalty).items():
        if u not in index or v not in index:
            raise error("edge-penalty-unknown-variable", u=u, v=v)
        m[index[u], index[v]] = m[index[v], index[u]] = check_penalty(val, f"edge_penalty[({u!r}, {v!r})]")
    return m


def edge_log_prior_array(structure_log_prior, taskset):
    """A ``(k, n, n)`` array of each task's per-edge structure log-prior (a callable or an array), or None."""
    if structure_log_prior is None:
        return None
    k, n = taskset.n_tasks, taskset.n_variables
    if callable(structure_log_prior):
        arr = np.zeros((k, n, n))
        for t, name in enumerate(taskset.names):
            for u, pu in enumerate(taskset.variables):
                for v, pv in enumerate(taskset.variables):
                    if u != v:
                        arr[t, u, v] = float(structure_log_prior(name, pu, pv))
        return arr
    arr = np.asarray(structure_log_prior, dtype=float)
    if arr.shape != (k, n, n):
        raise error("structure-prior-shape", shape=(k, n, n), got=arr.shape)
    return arr


def task_start(parents, data, local_index, required, forbidden, max_parents, what):
    """A task's start (local indices) with the required edges added, checked against the constraints.

    ``required`` / ``forbidden`` are over the global variables; ``local_index``
    is the task's row of :attr:`mtbn.data.TaskSet.local_index`.
    """
    req, forb = local_constraints(data, local_index, required, forbidden)
    return check_constraints(parents, req, forb, data.names, max_parents, what, data.arities)


register("parameter-sharing-value", InvalidParameterError,
         "parameter_sharing must be None, 'auto' or a strength >= 0 (inf = pooled); got {value!r}.",
         cause="The parameter-sharing option is neither off, automatic nor a number of pseudo-counts.",
         fix="Pass None (each task's CPTs alone), 'auto' (the default: chosen on held-out rows) or a number.")


def check_sharing(value):
    """``parameter_sharing`` checked: None, "auto" or a float >= 0."""
    if value is None or value == "auto":
        return value
    if not is_strength(value):
        raise error("parameter-sharing-value", value=value)
    return float(value)
