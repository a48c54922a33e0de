"""mtbn: multitask Bayesian network structure learning.

Learn the structures of several related Bayesian networks jointly (BDeu score
per task, an Edit or Paired prior that penalises edges that differ between
tasks, a greedy search over joint edge changes), following Niculescu-Mizil
and Caruana (AISTATS 2007).

The public API is re-exported here; submodules are importable on their own.
"""

from mtbn._version import __version__
from mtbn.data import DiscreteData, TaskSet, from_dataframe, make_taskset, read_csv
from mtbn.exceptions import (
    CycleError,
    DataWarning,
    InvalidDataError,
    InvalidParameterError,
    MtbnError,
    NotFittedError,
    TransferWarning,
)
from mtbn.graph import DAG, edit_distance
from mtbn.estimators import MultitaskStructureLearner, StructureLearner
from mtbn.learn import MultitaskResult, learn_identical_structures, learn_structure, learn_structures
from mtbn.networks import load_network, read_network, sample
from mtbn.bootstrap import BootstrapResult, bootstrap_structures
from mtbn.relatedness import (
    ClusteringResult,
    RelatednessResult,
    SelectionResult,
    cluster_tasks,
    direct_relatedness,
    indirect_relatedness,
    relatedness,
    select_tasks,
)
from mtbn.score import BDeuScore, BICScore, bdeu_local_score
from mtbn.search import SearchResult


__all__ = [
    "DAG",
    "BDeuScore",
    "BICScore",
    "CycleError",
    "DiscreteData",
    "InvalidDataError",
    "InvalidParameterError",
    "MtbnError",
    "NotFittedError",
    "SearchResult",
    "MultitaskResult",
    "RelatednessResult",
    "SelectionResult",
    "ClusteringResult",
    "BootstrapResult",
    "TransferWarning",
    "DataWarning",
    "bootstrap_structures",
    "cluster_tasks",
    "direct_relatedness",
    "indirect_relatedness",
    "load_network",
    "read_network",
    "relatedness",
    "sample",
    "select_tasks",
    "StructureLearner",
    "MultitaskStructureLearner",
    "learn_structures",
    "learn_identical_structures",
    "TaskSet",
    "bdeu_local_score",
    "edit_distance",
    "from_dataframe",
    "learn_structure",
    "make_taskset",
    "read_csv",
    "__version__",
]
