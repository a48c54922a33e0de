"""Several tasks aligned into a :class:`~mtbn.data.TaskSet` (:func:`make_taskset`).

Each task coded on its own (:mod:`~mtbn.data.frames`), optionally
discretised first with cut points shared by all tasks
(:mod:`~mtbn.data.discretization`); then one variable list, one state list
per variable and one kind of column per variable across the tasks.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from mtbn.data.discrete import MAX_STATES, DiscreteData, _ordered_states
from mtbn.data.discretization import apply_discretization
from mtbn.data.frames import from_dataframe
from mtbn.data.taskset import TaskSet, as_named_items
from mtbn.messages import error

__all__ = ["make_taskset"]


def make_taskset(tasks: Any, *, states: Any = None, dropna: bool = False, task_column: str | None = None,
                 discretize: Any = None) -> TaskSet:
    """Integer-code several related tasks with one state list per variable.

    Parameters
    ----------
    tasks : dict, list, TaskSet or DataFrame
        ``{name: DataFrame or DiscreteData}``, a list of DataFrames (named
        ``task0``, ``task1``, ...) or DiscreteData, or one DataFrame with
        ``task_column`` (one task per value of that column, the multi-net
        case).
    states : dict of str to sequence of str, optional
        Declared state lists. Other variables keep the state order of the
        first DiscreteData input that has them, followed by any further labels
        in sorted order (DataFrame inputs: the sorted union of the labels
        observed in any task).
    dropna : bool, default False
        Drop incomplete rows instead of raising.
    task_column : str, optional
        See ``tasks``.
    discretize : str, tuple, dict or Discretization, optional
        Discretise continuous DataFrame columns first: ``"quantile"``,
        ``"interval:5"``, ``("quantile", 4)`` (cut points computed on all
        tasks pooled, :func:`mtbn.data.discretize`), a dict ``{"method":
        "quantile:4", "columns": [...], "per_task": False}`` (which columns,
        and cut points per task), or the
        :class:`~mtbn.data.discretization.Discretization` of an earlier run (its
        cut points applied to these tasks). The cut points are kept in the
        result's ``discretization``.

    Returns
    -------
    TaskSet

    Notes
    -----
    The steps: name the tasks (:func:`as_named_items`), code each one
    (:func:`_code_tasks`), list the variables in order of first appearance
    (:func:`_global_variables`), give each one state list
    (:func:`_global_states`), and recode every task onto them
    (:func:`_align`).

    Examples
    --------
    One table with a column that says which site each row comes from gives
    one task per site, over the remaining columns:

    >>> import pandas as pd
    >>> df = pd.DataFrame({"site": ["x", "x", "y", "y", "y"], "rain": ["yes", "no", "no", "no", "yes"],
    ...                    "wet": ["yes", "no", "no", "yes", "yes"]})
    >>> ts = make_taskset(df, task_column="site")
    >>> ts.names, ts.variables, [t.n_samples for t in ts.tasks]
    (('x', 'y'), ('rain', 'wet'), [2, 3])

    A list of frames gets the names ``task0``, ``task1``, ...; a label seen
    in one task only still joins the shared state list:

    >>> ts = make_taskset([pd.DataFrame({"grade": [1, 2]}), pd.DataFrame({"grade": [2, 3]})])
    >>> ts.names, ts.states
    (('task0', 'task1'), (('1', '2', '3'),))
    """
    pd = sys.modules.get("pandas")
    if task_column is not None and not (pd is not None and isinstance(tasks, pd.DataFrame)):
        raise error("task-column-split-tasks", column=task_column, kind=type(tasks).__name__)
    items = as_named_items(tasks, task_column)
    if not items:
        raise error("no-tasks")
    items, discretization = _discretized(items, discretize)
    coded, given_order = _code_tasks(items, states, dropna)
    for d in coded:
        if d.n_samples == 0 or d.n_vars == 0:
            raise error("empty-task", task=d.name)
    variables, column = _global_variables(coded)
    coded = _one_kind(coded, variables)
    union = _global_states(coded, variables, dict(states or {}), given_order)
    ts = _align(coded, variables, column, union)
    return ts if discretization is None else dataclasses.replace(ts, discretization=discretization)


def _discretized(items, spec):
    """The items with their DataFrames discretised by ``spec`` (coded tasks as they are), and the cut points."""
    if spec is None:
        return items, None
    frames = {name: obj for name, obj in items if not isinstance(obj, DiscreteData)}
    done, result = apply_discretization(frames, spec)
    return [(name, done.get(name, obj)) for name, obj in items], result


def _code_tasks(items, states, dropna):
    """Each task as DiscreteData named by its item, and the state orders the inputs fix.

    The state order of a DiscreteData input, or a pandas category's declared
    levels (unused ones too), counts as declared: the first task that has
    the variable fixes it.
    """
    coded = []
    given_order = {}
    for name, obj in items:
        if isinstance(obj, DiscreteData):
            coded.append(obj if obj.name == name else DiscreteData(obj.codes, obj.names, obj.states, name,
                                                                   obj.kinds))
            for v, st in zip(obj.names, obj.states):
                given_order.setdefault(v, st)
        else:
            coded.append(from_dataframe(obj, name=name, states=states, dropna=dropna))
            import pandas as pd

            for col in obj.columns:
                if isinstance(obj[col].dtype, pd.CategoricalDtype):
                    given_order.setdefault(str(col), tuple(str(c) for c in obj[col].cat.categories))
    return coded, given_order


def _global_variables(coded):
    """The tasks' variables in order of first appearance, and each one's global index."""
    variables = []
    column = {}
    for d in coded:
        for v in d.names:
            if v not in column:
                column[v] = len(variables)
                variables.append(v)
    return variables, column


_KIND_TEXT = {None: "text", "int": "integers", "float": "numbers", "bool": "booleans"}


def _one_kind(coded, variables):
    """The tasks with one kind per variable: integers and other numbers together are numbers (float) in every
    task; any other disagreement (text and numbers, booleans and numbers) is refused, naming two tasks."""
    by_var = {}
    for d in coded:
        for j, v in enumerate(d.names):
            by_var.setdefault(v, []).append((d.kinds[j] if d.kinds else None, d, j))
    kind_of = {}
    for v in variables:
        kinds = {k for k, _, _ in by_var[v]}
        if len(kinds) == 1:
            continue
        if kinds == {"int", "float"}:
            kind_of[v] = "float"
            continue
        (ka, da, ja), (kb, db, jb) = by_var[v][0], next(x for x in by_var[v] if x[0] != by_var[v][0][0])
        raise error("column-kinds-differ", column=v, kind_a=_KIND_TEXT[ka], task_a=da.name,
                    label_a=_first_label(da, ja), kind_b=_KIND_TEXT[kb], task_b=db.name, label_b=_first_label(db, jb))
    if not kind_of:
        return coded
    out = []
    for d in coded:
        kinds = tuple(kind_of.get(v, k) for v, k in zip(d.names, d.kinds)) if d.kinds else None
        out.append(d if kinds == d.kinds else DiscreteData(d.codes, d.names, d.states, d.name, kinds))
    return out


def _first_label(data, j):
    """The label of the first row of column ``j`` (or its first state)."""
    states = data.states[j]
    return states[int(data.codes[0, j])] if data.n_samples else (states[0] if states else "")


def _global_states(coded, variables, declared, given_order):
    """One state list per variable: declared (checked against every task), else ordered union of the labels.

    A given order (:func:`_code_tasks`) comes first, then the other labels in
    value order of the variable's kind: the kind every task agrees on, or
    text when they disagree.
    """
    # A variable's kind across tasks: the common one, or None (text) when tasks disagree.
    union_kinds = {}
    for v in variables:
        ks = {(d.kinds[d._index[v]] if d.kinds else None) for d in coded if v in d._index}
        union_kinds[v] = ks.pop() if len(ks) == 1 else None
    union = []
    for v in variables:
        if v in declared:
            st = tuple(str(s) for s in declared[v])
            for d in coded:
                if v in d._index:
                    extra = [s for s in d.states[d._index[v]] if s not in st]
                    if extra:
                        raise error("undeclared-state", task=d.name, column=v, state=extra[0],
                                    declared=", ".join(map(repr, st)))
        else:
            labels = set()
            for d in coded:
                if v in d._index:
                    labels.update(d.states[d._index[v]])
            first = given_order.get(v, ())
            st = tuple(first) + tuple(_ordered_states(labels - set(first), union_kinds.get(v)))
            if len(st) > MAX_STATES:
                raise error("too-many-states-across-tasks", column=v, n_states=len(st), limit=MAX_STATES)
        union.append(st)
    return union


def _align(coded, variables, column, union):
    """The TaskSet of the tasks recoded onto the global state lists ``union``."""
    aligned = []
    for d in coded:
        target = tuple(union[column[v]] for v in d.names)
        aligned.append(d if target == d.states else d.with_states(target))
    return TaskSet.assemble(aligned, variables, union)
