"""Integer-coded discrete data for one task or many related tasks.

This is the only module that turns pandas objects or CSV files into the
arrays the rest of mtbn works on. A :class:`DiscreteData` holds the codes of
one task (``uint8``, column-major so that a variable's column is contiguous),
the variable names and, per variable, the list of state labels. State labels
are kept verbatim as strings: ``"None"``, ``"NA"``, ``"null"`` or ``"3"`` are
ordinary states, never missing values or numbers.

DataFrame columns keep their type for the user (``DiscreteData.kinds``):
integer, float and boolean columns are ordered by value (``2 < 10``,
``False < True``) and come back as those values wherever mtbn hands a model
out (pgmpy state names, so ``evidence={"smoke": 1}`` works); a pandas
``category`` column keeps its declared levels in their order, unused levels
included (they count in the arity, as bnlearn counts factor levels); text
columns are sorted. A column mixing types (the number 1 and the text "1") is
an error. CSV cells are text.

A :class:`TaskSet` holds several tasks whose variable sets may differ but
overlap. A variable shared by several tasks has one state list (the declared
one, or else the union of the labels seen in any task, ordered as above), so
that its arity is the same in every task.

Missing values (an empty CSV cell, an empty string, or a NaN / None object in
a DataFrame) are an error unless ``dropna=True`` asks to drop the incomplete
rows; nothing is dropped silently.

The package's modules, one job each: :mod:`~mtbn.data.discrete` (the
:class:`DiscreteData` container and the ordering of state labels),
:mod:`~mtbn.data.frames` (a DataFrame into codes and state lists),
:mod:`~mtbn.data.csvfile` (a CSV file into a DataFrame of verbatim strings),
:mod:`~mtbn.data.discretization` (continuous columns cut into ranges shared by all tasks),
:mod:`~mtbn.data.shipped` (the real data shipped with mtbn)
:mod:`~mtbn.data.taskset` (the :class:`TaskSet` of several aligned tasks) and
:mod:`~mtbn.data.aligning` (:func:`make_taskset`: tasks coded, discretised and aligned into one).
pandas is imported lazily, inside the functions of ``frames``, ``csvfile``,
``taskset`` and ``aligning`` and in :meth:`DiscreteData.to_dataframe`.
"""

from mtbn.data.aligning import make_taskset
from mtbn.data.continuous import ContinuousData, continuous_from_dataframe, looks_continuous
from mtbn.data.csvfile import read_csv
from mtbn.data.discrete import MAX_CPT_SIZE, MAX_LEARNED_CPT_SIZE, MAX_STATES, DiscreteData
from mtbn.data.discretization import Discretization, discretize
from mtbn.data.frames import from_dataframe
from mtbn.data.shipped import load_sachs_conditions
from mtbn.data.taskset import TaskSet, as_named_items

__all__ = [
    "DiscreteData",
    "ContinuousData",
    "looks_continuous",
    "continuous_from_dataframe",
    "TaskSet",
    "from_dataframe",
    "read_csv",
    "make_taskset",
    "discretize",
    "Discretization",
    "load_sachs_conditions",
    "MAX_STATES",
    "MAX_CPT_SIZE",
    "MAX_LEARNED_CPT_SIZE",
]
