"""Kinds of data besides discrete tasks: the protocol a kind implements and the registry the front ends read.

A kind of data (continuous measurements, or one a contributor adds) is one
class: :class:`DataKind`. Registered (:func:`register_data_kind`, or the
``"mtbn.data_kinds"`` entry-point group the command loads), it is reached by
every front end without any other change:

* :func:`mtbn.learn.learn_structures` asks each registered kind, newest
  first, whether it :meth:`~DataKind.claims` the tasks; the first that does
  learns them (:meth:`~DataKind.learn`), and the discrete learner takes what
  none claims;
* :class:`mtbn.estimators.MultitaskStructureLearner` calls
  ``learn_structures`` and reads the kind's networks
  (:meth:`~DataKind.pgmpy_networks`) and held-out log-likelihoods
  (:meth:`~DataKind.mean_log_likelihoods`);
* ``mtbn learn`` reads the CSV files as text, asks the kinds the same
  question, and writes what the kind writes (:meth:`~DataKind.write`) beside
  ``summary.json``.

The settings of :func:`~mtbn.learn.learn_structures` a kind does not take
(:attr:`DataKind.settings`) are refused when given a value other than their
default, with one line naming the setting and the kind.
"""

from __future__ import annotations

import os

from typing import Any

from mtbn.data import ContinuousData, DiscreteData
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = ["DataKind", "DATA_KINDS", "register_data_kind", "kind_of", "kind_settings", "named_frames"]

register("data-kind-class", InvalidParameterError,
         "data kind {name!r}: a data kind must be a DataKind instance with a name.",
         cause="register_data_kind was given something that is not an instance of mtbn.learn.kinds.DataKind, or "
               "one whose name is not a non-empty string.",
         fix="Subclass mtbn.learn.DataKind, set its name, implement claims and learn, and register an instance.")
register("data-kind-incomplete", InvalidParameterError,
         "data kind {name!r} does not implement {method}; it cannot be used where that is needed.",
         cause="A registered kind of data left out one of the DataKind methods a front end called.",
         fix="Implement the method in the DataKind subclass (docs/contributing.md lists what each front end calls).")
register("data-kind-setting", InvalidParameterError,
         "{setting} is not available for {kind} tasks; leave it at its default, or {instead}",
         cause="The learner of this kind of data does not take the setting (the discrete learner does).",
         fix="Drop the setting, or convert the tasks to discrete states (e.g. --discretize quantile) to use it.")


class DataKind:
    """One kind of task data and its learner (subclass it; register an instance).

    Attributes
    ----------
    name : str
        The kind's name, as ``summary.json`` and messages give it (``"gaussian"``).
    description : str
        What the tasks are, for messages (``"continuous"``).
    learned_as : str
        What the learner makes of them, for messages (``"Gaussian networks"``).
    settings : tuple of str
        The settings of :func:`mtbn.learn.learn_structures` the kind's learner takes; another one given a value
        other than its default is refused (:func:`kind_settings`).
    instead : str
        What a user refused a setting should do instead (the end of the refusal's line).
    numbers_only : bool
        True when :meth:`claims` claims no task with a cell that is not a number (a label, or empty): the
        command line then reads no further than the first such cell of a file before it gives the file to the
        discrete reader (which reads it chunk by chunk, in bounded memory). False (the default): the first file
        is read whole and asked.
    needs_fractions : bool
        True when :meth:`claims` claims no tasks whose every number is whole (continuous measurements have
        fractions): while every registered kind says so, the command line asks no kind about files whose first
        one writes no number with a point or an exponent (:func:`mtbn.data.csvfile.written_whole`: integer
        codes, labels without an ``e``) and reads none of it as numbers. False (the default): it is asked.
    """

    name: str = ""
    description: str = ""
    learned_as: str = "networks"
    settings: tuple = ()
    instead: str = "convert the tasks to discrete states first"
    numbers_only: bool = False
    needs_fractions: bool = False

    def claims(self, tasks: Any) -> bool:
        """Whether ``tasks`` are of this kind.

        Parameters
        ----------
        tasks : object
            What the user passed as the tasks (a dict of name -> DataFrame, a list of DataFrames, ...); from the
            command line, a dict of file stem -> DataFrame of the cells as text.

        Returns
        -------
        bool
            False unless a subclass says otherwise.
        """
        return False  # a kind claims nothing it does not say it claims

    def learn(self, tasks: Any, **settings: Any) -> Any:
        """Learn every task's network.

        Parameters
        ----------
        tasks : object
            Tasks this kind claims.
        **settings
            The settings given, each one of :attr:`settings` (the others were refused).

        Returns
        -------
        object
            A result with ``task_names``, ``graphs`` (one :class:`~mtbn.graph.DAG` per task), ``networks`` and
            ``penalty``.
        """
        raise error("data-kind-incomplete", name=self.name, method="learn")

    def pgmpy_networks(self, result: Any) -> dict:
        """Task name -> the pgmpy model of its network.

        Parameters
        ----------
        result : object
            What :meth:`learn` returned.

        Returns
        -------
        dict of str -> pgmpy model
        """
        raise error("data-kind-incomplete", name=self.name, method="pgmpy_networks")

    def mean_log_likelihoods(self, result: Any, tasks: Any) -> dict:
        """Task name -> the mean log-likelihood per row of that task's rows in ``tasks`` under its network.

        Parameters
        ----------
        result : object
            What :meth:`learn` returned.
        tasks : object
            Rows of some or all of the tasks, in a form :meth:`claims` accepts.

        Returns
        -------
        dict of str -> float
        """
        raise error("data-kind-incomplete", name=self.name, method="mean_log_likelihoods")

    def task_data(self, tasks: Any) -> Any:
        """The tasks as ``{name: data}``, each ``data`` with ``n_samples`` (its rows), ``names`` (its variables, the
        same in every task) and ``take(rows)`` (those rows, a task :meth:`learn` takes): what the bootstrap
        resamples. None (the default): the kind has no bootstrap.

        Parameters
        ----------
        tasks : object
            Tasks this kind claims.

        Returns
        -------
        dict of str -> object, or None
        """
        return None

    def write(self, result: Any, out: str, stems: Any = None) -> dict:
        """Write each task's network into the folder ``out`` (at least ``<stem>.edges.csv``).

        Parameters
        ----------
        result : object
            What :meth:`learn` returned.
        out : str
            The output folder (it exists).
        stems : dict of str -> str, optional
            Each task's file stem by name (the command line's: the name with every character a file name may
            not hold escaped); None: the names themselves.

        Returns
        -------
        dict
            What ``summary.json`` records besides the kind, the penalty and the tasks' edge counts.
        """
        for name, graph in zip(result.task_names, result.graphs):
            graph.write(os.path.join(out, f"{(stems or {}).get(name, name)}.edges.csv"))
        return {}


#: The registered kinds, name -> instance; :func:`kind_of` asks the newest first.
DATA_KINDS: dict[str, DataKind] = {}


def register_data_kind(kind):
    """Make the front ends (API, estimator, command line) learn the tasks ``kind`` claims with its learner.

    Parameters
    ----------
    kind : DataKind
        An instance of a :class:`DataKind` subclass with a name; one already registered under that name is
        replaced.

    Returns
    -------
    DataKind
        ``kind``.
    """
    if not (isinstance(kind, DataKind) and isinstance(kind.name, str) and kind.name):
        raise error("data-kind-class", name=getattr(kind, "name", kind))
    DATA_KINDS.pop(kind.name, None)  # re-registered: asked first again
    DATA_KINDS[kind.name] = kind
    return kind


def kind_of(tasks):
    """The registered kind that claims ``tasks`` (the newest first), or None (the discrete learner's).

    Parameters
    ----------
    tasks : object
        The tasks, as given to a learner.

    Returns
    -------
    DataKind or None
    """
    for kind in reversed(list(DATA_KINDS.values())):
        if kind.claims(tasks):
            return kind
    return None


def kind_settings(kind, given, defaults, flags=None):
    """The settings of ``given`` that ``kind`` takes; any other one set away from its default is refused.

    Parameters
    ----------
    kind : DataKind
        The kind that claimed the tasks.
    given : dict of str -> object
        The settings passed (all of them, or only those named by the caller).
    defaults : dict of str -> object
        Each setting's default.
    flags : dict of str -> str, optional
        Setting name -> the name to give in the refusal (the command line's option); default the name.

    Returns
    -------
    dict of str -> object
        The settings of ``given`` named in :attr:`DataKind.settings`.
    """
    flags = flags or {}
    for name, value in given.items():
        if name not in kind.settings and not _same(value, defaults.get(name)):
            raise error("data-kind-setting", setting=flags.get(name, name), kind=kind.description or kind.name,
                        instead=kind.instead)
    return {k: v for k, v in given.items() if k in kind.settings}


def split_by_task_column(tasks, task_column):
    """One DataFrame and ``task_column``: ``{value: its rows}`` (the column dropped, as
    :func:`mtbn.data.make_taskset` splits it), for a kind of data to be asked about the tasks; anything else as
    it is (the discrete learner reports what does not fit).

    Parameters
    ----------
    tasks : object
        The tasks as the user gave them.
    task_column : str or None
        The column whose values name the tasks.

    Returns
    -------
    object
        The tasks split, or ``tasks``.
    """
    import sys

    pd = sys.modules.get("pandas")
    if task_column is None or pd is None or not isinstance(tasks, pd.DataFrame) or task_column not in tasks.columns:
        return tasks
    from mtbn.data.taskset import as_named_items

    return dict(as_named_items(tasks, task_column))


def named_frames(tasks):
    """``[(name, task), ...]`` of a dict (name -> task) or a list or tuple of tasks (``task0``, ``task1``, ...,
    or ``(name, task)`` pairs), else None: the containers a data kind is asked about.

    Parameters
    ----------
    tasks : object
        The tasks as given.

    Returns
    -------
    list of (str, object) or None
    """
    if isinstance(tasks, dict):
        return [(str(k), v) for k, v in tasks.items()] or None
    if isinstance(tasks, (list, tuple)) and tasks:
        if all(isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str) for t in tasks):
            return list(tasks)
        return [(t.name if isinstance(t, (ContinuousData, DiscreteData)) else f"task{i}", t)
                for i, t in enumerate(tasks)]
    return None


def _same(value, default):
    try:
        return bool(value == default) or (value is None and default is None)
    except (TypeError, ValueError):  # arrays and the like: given on purpose
        return False
