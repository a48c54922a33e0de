"""Several tasks aligned over one set of variables (:class:`TaskSet`), and the task containers accepted.

The tasks' variable sets may differ but overlap. A variable shared by
several tasks gets one state list (declared, or the sorted union of the
labels seen in any task), so that its arity is the same in every task, and
``TaskSet.local_index`` maps each global variable to each task's column.
pandas is imported inside the functions only (a DataFrame input, a
category's levels).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtbn.data.discrete import DiscreteData, _check_unique
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.messages import error, register

__all__ = ["TaskSet", "as_named_items"]

D, P = InvalidDataError, InvalidParameterError
register("unknown-task", P, "unknown task {task!r}; tasks are {names}.",
         cause="A task name was looked up that is not one of the tasks.",
         fix="Use one of the task names listed.")
register("duplicate-task", D, "duplicate task name {value!r}.",
         cause="Two tasks have the same name.",
         fix="Give every task its own name (for CSV files, the file names without .csv must differ).")
register("too-many-states-across-tasks", D, "column {column!r} has {n_states} states across tasks; at most {limit}.",
         cause="The tasks together use more than 255 distinct labels for one variable.",
         fix="Harmonise the labels across tasks, or bin the variable.")
register("column-kinds-differ", D,
         "column {column!r} holds {kind_a} in task {task_a!r} (e.g. {label_a!r}) but {kind_b} in task {task_b!r} "
         "(e.g. {label_b!r}); give it one type in every task.",
         cause="One variable is coded differently across tasks (e.g. 0/1 in one, no/yes in another), so its states "
               "would be the union of both codings and could not be turned back into one type of value.",
         fix="Recode the column so that every task uses the same labels and type (e.g. map 0/1 to no/yes), or cast "
             "it to text in every task (df[col].astype(str)).")
register("task-column-needed", P,
         "a single DataFrame needs task_column= naming the column that says which task each row belongs to.",
         cause="One DataFrame was given for several tasks without saying which column holds the task.",
         fix="Pass task_column='<column>', or a dict of name -> DataFrame.")
register("task-column-missing", P, "task_column {column!r} is not a column of the DataFrame.",
         cause="task_column names a column the DataFrame does not have.",
         fix="Check the spelling of the column that holds the task names.")
register("task-column-split-tasks", P,
         "task_column {column!r} splits one DataFrame into tasks, but the tasks are already given one by one ({kind}).",
         cause="task_column was given with a dict or list of tasks, where it would be silently ignored.",
         fix="Drop task_column (each DataFrame is a task), or pass the rows as one DataFrame with that column.")
register("tasks-type", P,
         "tasks must be a dict of name -> DataFrame, a list of DataFrames, a TaskSet, or one DataFrame with "
         "task_column=; got {kind}.",
         cause="The tasks were given in a container mtbn does not read.",
         fix="Pass a dict of name -> DataFrame (the names become task names), a list, or a TaskSet.")
register("no-tasks", P, "tasks is empty: at least one task is required.",
         cause="An empty dict or list of tasks.",
         fix="Pass at least one task.")
register("empty-task", D, "task {task!r} is empty.",
         cause="A task without rows.",
         fix="Remove the task or give it data.")


@dataclass(frozen=True, eq=False)
class TaskSet:
    """Several related tasks over overlapping variable sets.

    Built by :func:`~mtbn.data.make_taskset` (or :meth:`assemble`), which codes the tasks onto the shared state
    lists; the constructor takes the fields as they are, unchecked.

    Parameters
    ----------
    tasks : tuple of DiscreteData
        One data set per task; a shared variable has the same state list in
        every task.
    variables : tuple of str
        The union of the tasks' variables, in order of first appearance.
    states : tuple of tuple of str
        The state list of each variable of ``variables``.
    local_index : ndarray of shape (n_tasks, n_variables), int64
        ``local_index[t, v]`` is the column of global variable ``v`` in task
        ``t``, or -1 where the task lacks the variable.
    discretization : Discretization or None
        The cut points of the columns ``make_taskset(discretize=...)``
        discretised (:mod:`mtbn.data.discretization`); None when nothing was discretised.

    Examples
    --------
    Two sites that share ``rain`` only; ``rain`` gets one state list for
    both, and ``local_index`` says where each variable sits in each task
    (-1: missing):

    >>> import pandas as pd
    >>> from mtbn.data import make_taskset
    >>> ts = make_taskset({"north": pd.DataFrame({"rain": ["yes", "no"], "wind": ["low", "high"]}),
    ...                    "south": pd.DataFrame({"rain": ["no", "drizzle"], "sun": ["yes", "yes"]})})
    >>> ts.names, ts.variables
    (('north', 'south'), ('rain', 'wind', 'sun'))
    >>> ts.local_index.tolist()
    [[0, 1, -1], [0, -1, 1]]
    >>> ts.states[0], ts["south"].states[0]
    (('drizzle', 'no', 'yes'), ('drizzle', 'no', 'yes'))

    ``global_codes`` lays a task out over every variable (zeros where it
    has none):

    >>> ts.global_codes(1).tolist()
    [[1, 0, 0], [0, 0, 0]]
    """

    tasks: tuple
    variables: tuple
    states: tuple
    local_index: np.ndarray
    discretization: Any = None

    def __sizeof__(self):
        return object.__sizeof__(self) + sum(t.__sizeof__() for t in self.tasks)

    @property
    def names(self):
        """Task names."""
        return tuple(t.name for t in self.tasks)

    @property
    def n_tasks(self):
        return len(self.tasks)

    @property
    def n_variables(self):
        return len(self.variables)

    @property
    def arities(self):
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def __len__(self):
        return len(self.tasks)

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                key = self.names.index(key)
            except ValueError:
                raise error("unknown-task", task=key, names=", ".join(map(repr, self.names))) from None
        return self.tasks[key]

    @classmethod
    def assemble(cls, tasks, variables, states):
        """The TaskSet of ``tasks`` already coded on the state lists ``states`` of ``variables``.

        ``local_index`` is found from each task's column names; the tasks
        are taken as they are (:func:`~mtbn.data.make_taskset` recodes and
        checks them first).
        """
        column = {v: i for i, v in enumerate(variables)}
        local_index = np.full((len(tasks), len(variables)), -1, dtype=np.int64)
        for t, d in enumerate(tasks):
            for j, v in enumerate(d.names):
                local_index[t, column[v]] = j
        return cls(tuple(tasks), tuple(variables), tuple(states), local_index)

    def subset(self, names_or_indices):
        """A TaskSet with only the given tasks (same global state lists).

        Its variables are those of the given tasks, in order of first
        appearance, as :func:`~mtbn.data.make_taskset` would list them.

        Parameters
        ----------
        names_or_indices : iterable of str or int
            The tasks to keep, by name or position, in the order they are to have (each at most once).

        Returns
        -------
        TaskSet
            The chosen tasks, unchanged, with their variables' state lists from this TaskSet (and no
            ``discretization``).

        Raises
        ------
        InvalidParameterError
            No task is given, or a name is not a task's.
        InvalidDataError
            A task is given twice.
        """
        picked = [self[k] for k in names_or_indices]
        if not picked:
            raise error("no-tasks")
        _check_unique([d.name for d in picked], "duplicate-task")
        variables = list(dict.fromkeys(v for d in picked for v in d.names))
        index = {v: i for i, v in enumerate(self.variables)}
        return TaskSet.assemble(picked, variables, [self.states[index[v]] for v in variables])

    def global_codes(self, t):
        """Codes of task ``t`` with one column per global variable.

        Columns of variables the task lacks are all zero; use
        ``local_index[t] >= 0`` to tell which are real.

        Parameters
        ----------
        t : int
            The task's position in :attr:`tasks`.

        Returns
        -------
        ndarray of shape (n_samples of task t, n_variables), dtype uint8
            Column-major codes: column ``v`` holds the task's codes of global variable ``v`` (on the shared state
            list ``states[v]``).
        """
        task = self.tasks[t]
        out = np.zeros((task.n_samples, self.n_variables), dtype=np.uint8, order="F")
        for v in range(self.n_variables):
            j = self.local_index[t, v]
            if j >= 0:
                out[:, v] = task.codes[:, j]
        return out

    def pooled(self, name="pooled"):
        """All tasks' rows stacked into one DiscreteData over the global variables and states.

        Meaningful when every task has every variable (``local_index >= 0``
        throughout): a variable a task lacks would read as its first state.

        Parameters
        ----------
        name : str, default "pooled"
            The name of the pooled data set.

        Returns
        -------
        DiscreteData
            The rows of every task in task order, over :attr:`variables` and :attr:`states`.

        Examples
        --------
        >>> import pandas as pd
        >>> from mtbn.data import make_taskset
        >>> ts = make_taskset({"a": pd.DataFrame({"x": ["u", "v"]}), "b": pd.DataFrame({"x": ["v"]})})
        >>> p = ts.pooled()
        >>> p.n_samples, p.states, p.codes[:, 0].tolist()
        (3, (('u', 'v'),), [0, 1, 1])
        """
        codes = np.concatenate([self.global_codes(t) for t in range(self.n_tasks)])
        return DiscreteData(codes, self.variables, self.states, name)


def as_named_items(tasks, task_column=None):
    """Normalise the accepted task containers into a list of (name, obj).

    Parameters
    ----------
    tasks : dict, list, tuple, TaskSet or pandas.DataFrame
        A dict of name -> task; a list or tuple whose items are DiscreteData (named by their ``name``),
        ``(name, task)`` pairs, or other tasks (named ``task0``, ``task1``, ... by position); a TaskSet; or
        one DataFrame split into tasks by ``task_column``.
    task_column : str, optional
        With one DataFrame: the column whose values name the tasks (required then); ignored otherwise.

    Returns
    -------
    list of (str, object)
        The tasks' names and their data (DataFrames, DiscreteData or whatever the container held), in the
        container's order; a DataFrame gives one DataFrame per value of ``task_column`` (sorted, the column
        dropped, the index reset).

    Raises
    ------
    InvalidParameterError
        An unsupported container, or a DataFrame without a valid ``task_column``.
    InvalidDataError
        Two tasks have the same name.
    """
    # A DataFrame exists only once pandas is imported: a worker process that gets DiscreteData never imports
    # it (about 0.3 s of its first job).
    pd = sys.modules.get("pandas")
    if isinstance(tasks, TaskSet):
        return list(zip(tasks.names, tasks.tasks))
    if pd is not None and isinstance(tasks, pd.DataFrame):
        if task_column is None:
            raise error("task-column-needed")
        if task_column not in tasks.columns:
            raise error("task-column-missing", column=task_column)
        groups = []
        for value, part in tasks.groupby(task_column, sort=True, dropna=False):
            groups.append((str(value), part.drop(columns=[task_column]).reset_index(drop=True)))
        return groups
    if isinstance(tasks, dict):
        items = [(str(k), v) for k, v in tasks.items()]
        _check_unique([k for k, _ in items], "duplicate-task")
        return items
    if isinstance(tasks, (list, tuple)):
        items = []
        for i, obj in enumerate(tasks):
            if isinstance(obj, DiscreteData):
                items.append((obj.name, obj))
            elif isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str):
                items.append(obj)
            else:
                items.append((f"task{i}", obj))
        _check_unique([k for k, _ in items], "duplicate-task")
        return items
    raise error("tasks-type", kind=type(tasks).__name__)
