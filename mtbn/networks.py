"""Parametrised discrete Bayesian networks: fitting, scoring, sampling, BIF I/O.

A :class:`BayesianNetwork` holds, for every variable, its state labels, its
parents (as indices, in a fixed order) and its conditional probability table
(CPT). ``cpts[v]`` has one axis per parent (in the order of ``parents[v]``,
sized by the parent's arity) and a last axis over the states of ``v``; every
row along the last axis sums to one.

The functions here turn a structure plus data into a network
(:func:`fit_parameters`, BDeu posterior mean), score data under a network
(:func:`log_likelihood`), draw data from a network (:func:`sample`), read and
write the BIF text format without pgmpy (:func:`read_bif`, :func:`write_bif`,
:func:`load_network`) and convert to and from pgmpy
(:func:`to_pgmpy`, :func:`from_pgmpy`; pgmpy is imported only there).

Assumed and not checked
-----------------------
* The codes of a :class:`~mtbn.data.DiscreteData` are valid, that is
  ``data.codes[:, v] < len(data.states[v])`` (the DiscreteData invariant).
* A :class:`BayesianNetwork` is not modified after construction: its CPT
  arrays are made read-only, but the tuples it was built from are trusted.
* :func:`to_pgmpy` and :func:`from_pgmpy` rely on pgmpy's ``TabularCPD``
  layout: values of shape ``(child_card, product of evidence cards)`` with the
  first evidence variable most significant.

Everything else (shapes, row sums, acyclicity, names, labels, BIF syntax) is
checked and reported with :class:`~mtbn.exceptions.InvalidParameterError`,
:class:`~mtbn.exceptions.InvalidDataError` or
:class:`~mtbn.exceptions.CycleError`.
"""

from __future__ import annotations

from typing import Any

import gzip
import os
import re
from pathlib import Path

import numpy as np

from mtbn._validation import check_positive, check_random_state
from mtbn.data import MAX_STATES, DiscreteData
from mtbn.exceptions import CycleError, InvalidDataError, InvalidParameterError
from mtbn.graph import DAG, partial_topological_order
from mtbn.messages import error, register

__all__ = [
    "BayesianNetwork",
    "fit_parameters",
    "log_likelihood",
    "sample",
    "read_bif",
    "read_network",
    "write_bif",
    "load_network",
    "to_pgmpy",
    "from_pgmpy",
    "SHIPPED_NETWORKS",
]

#: Names accepted by :func:`load_network` for the networks shipped with mtbn.
SHIPPED_NETWORKS = ("alarm", "asia", "insurance", "sachs", "hepar2", "win95pts", "andes")

#: Largest allowed deviation of a CPT row sum from one.
_ROW_SUM_TOL = 1e-6

#: Largest number of entries a CPT may have (guards against memory blow-ups).
_MAX_CPT_SIZE = 10**8

register("network-unknown-variable", InvalidParameterError, "the network has no variable {name!r}.",
         cause="A variable was looked up by a name the network does not have.",
         fix="Use one of the network's names (network.names); names are case-sensitive.")
register("network-index-type", InvalidParameterError, "{what} must hold integer indices; got {value!r}.",
         cause="A parent set holds something other than a whole number (a name, a fraction, a bool, None).",
         fix="Give parents as integer indices into the list of variable names.")
register("network-lengths", InvalidParameterError, "{what} must have one entry per variable ({n}); got {got}.",
         cause="The list named has more or fewer entries than there are variable names.",
         fix="Give exactly one entry per variable, in the order of the names.")
register("network-duplicate-variable", InvalidParameterError, "duplicate variable name {name!r}.",
         cause="Two variables of the network have the same name.",
         fix="Give every variable a distinct name.")
register("network-no-states", InvalidParameterError, "variable {name!r} has no states.",
         cause="A variable's list of state labels is empty.",
         fix="Give the variable at least one state label (at least two for it to vary).")
register("network-too-many-states", InvalidParameterError,
         "variable {name!r} has {n_states} states; at most {max_states}.",
         cause="A variable has more state labels than mtbn can code (one byte per cell).",
         fix="Merge or bin the variable's states so that it has at most the number shown.")
register("network-duplicate-state", InvalidParameterError, "variable {name!r}: duplicate state {state!r}.",
         cause="A variable's list of state labels has the same label twice.",
         fix="Make the variable's state labels distinct.")
register("network-parent-range", InvalidParameterError,
         "variable {name!r}: parent index {parent} is out of range [0, {n}).",
         cause="A parent index is negative or not smaller than the number of variables.",
         fix="Give parents as indices from 0 to the number of variables minus one.")
register("network-self-parent", CycleError,
         "variable {name!r} is its own parent: a directed cycle {name!r} -> {name!r}.",
         cause="A variable lists its own index among its parents.",
         fix="Remove the variable from its own parent set.")
register("network-repeated-parent", InvalidParameterError, "variable {name!r} has a repeated parent.",
         cause="A variable's parent set lists the same parent index twice.",
         fix="List each parent of the variable once.")
register("network-cpt-shape", InvalidParameterError,
         "variable {name!r}: CPT must have shape {expected} (parent arities, then the variable's own); got {shape}.",
         cause="A conditional probability table does not have one axis per parent (in parent order) followed by the "
               "variable's own axis, each as long as the number of states.",
         fix="Reshape the table to the shape shown, with the variable's own state on the last axis.")
register("network-cpt-size", InvalidParameterError, "variable {name!r}: CPT of {size} entries is too large.",
         cause="The variable and its parents have so many state combinations that its table would exceed 10^8 entries.",
         fix="Give the variable fewer parents or parents with fewer states.")
register("network-cpt-values", InvalidParameterError,
         "variable {name!r}: probabilities must be finite and non-negative.",
         cause="A conditional probability table has a negative, infinite or NaN entry.",
         fix="Replace the entry by a probability between 0 and 1.")
register("network-cpt-row-sum", InvalidParameterError,
         "variable {name!r}: CPT row for parent states {config} sums to {total!r}, not 1 (tolerance {tol}).",
         cause="For the parent configuration shown, the probabilities of the variable's states do not add up to one.",
         fix="Normalise each row of the table over its last axis (divide by the row sum).")
register("network-cycle", CycleError, "the parent structure has a directed cycle through variable {name!r}: {cycle}.",
         cause="Following parents from the variable named leads back to it, along the cycle shown.",
         fix="Remove or reverse one edge of the cycle shown.")


# ---------------------------------------------------------------------------
# The network class
# ---------------------------------------------------------------------------


class BayesianNetwork:
    """A discrete Bayesian network with its parameters (immutable by convention).

    Parameters
    ----------
    names : sequence of str
        Variable names, unique.
    states : sequence of sequence of str
        State labels of each variable; the arity of ``v`` is ``len(states[v])``.
    parents : sequence of sequence of int
        Parent indices of each variable, kept in the given order.
    cpts : sequence of array_like
        ``cpts[v]`` has shape ``(*[arity[p] for p in parents[v]], arity[v])``;
        the last axis is the child's state and sums to one (within 1e-6).

    Raises
    ------
    InvalidParameterError
        Inconsistent lengths, duplicate names or labels, bad parent indices,
        wrong CPT shapes, negative or non-finite probabilities, or rows that
        do not sum to one.
    CycleError
        The parent structure has a directed cycle.
    """

    __slots__ = ("_names", "_states", "_parents", "_cpts", "_index", "_kinds")

    def __init__(self, names, states, parents, cpts, kinds=None):
        names = tuple(str(n) for n in names)
        states = tuple(tuple(str(s) for s in st) for st in states)
        parents = tuple(tuple(_as_index(p, "parents") for p in ps) for ps in parents)
        cpts = tuple(np.array(c, dtype=np.float64) for c in cpts)
        _check_lengths(names, states, parents, cpts)
        _check_names_and_states(names, states)
        _check_parents(names, parents)
        arities = tuple(len(s) for s in states)
        for v in range(len(names)):
            _check_cpt(names, arities, parents, v, cpts[v])
            cpts[v].flags.writeable = False
        _check_acyclic(names, parents)
        self._names = names
        self._states = states
        self._parents = parents
        self._cpts = cpts
        self._index = {n: i for i, n in enumerate(names)}
        self._kinds = None if kinds is None or all(k is None for k in kinds) else tuple(kinds)

    # Read-only attributes --------------------------------------------------

    @property
    def names(self):
        """Variable names (tuple of str)."""
        return self._names

    @property
    def states(self):
        """State labels of each variable (tuple of tuple of str)."""
        return self._states

    @property
    def parents(self):
        """Parent indices of each variable (tuple of tuple of int)."""
        return self._parents

    @property
    def cpts(self):
        """The conditional probability tables (tuple of read-only arrays)."""
        return self._cpts

    @property
    def kinds(self):
        """Per variable, the type its state labels stand for ("int", "float", "bool" or None), or None."""
        return getattr(self, "_kinds", None)

    def state_values(self, v):
        """The states of variable ``v`` as the user's values (ints, floats, bools or the labels)."""
        kind = None if self.kinds is None else self.kinds[v]
        return [_label_value(s, kind) for s in self._states[v]]

    @property
    def n_vars(self):
        """Number of variables."""
        return len(self._names)

    @property
    def arities(self):
        """Number of states of each variable, as an int64 array."""
        return np.array([len(s) for s in self._states], dtype=np.int64)

    @property
    def edges(self):
        """Sorted list of ``(parent_name, child_name)`` pairs."""
        return sorted(
            (self._names[p], self._names[v])
            for v, ps in enumerate(self._parents)
            for p in ps
        )

    def index(self, name):
        """Index of variable ``name``.

        Raises
        ------
        InvalidParameterError
            The network has no such variable.
        """
        try:
            return self._index[name]
        except KeyError:
            raise error("network-unknown-variable", name=name) from None

    def topological_order(self):
        """Variable indices, parents first (Kahn's algorithm, smallest index first).

        Returns
        -------
        list of int
        """
        return partial_topological_order(self._parents)

    def to_networkx(self):
        """The structure as a ``networkx.DiGraph`` over the variable names.

        Returns
        -------
        networkx.DiGraph
            Every variable is a node (in network order), edges go parent -> child.
        """
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self._names)
        graph.add_edges_from(self.edges)
        return graph

    def copy(self):
        """An independent copy (new CPT arrays)."""
        return BayesianNetwork(self._names, self._states, self._parents, self._cpts, self.kinds)

    def __repr__(self):
        n_edges = sum(len(ps) for ps in self._parents)
        n_params = sum(c.size - c.size // c.shape[-1] for c in self._cpts)
        return (
            f"BayesianNetwork(n_vars={self.n_vars}, n_edges={n_edges}, "
            f"n_free_parameters={n_params})"
        )


def _as_index(value, what):
    """``value`` as a Python int, or InvalidParameterError."""
    try:
        index = int(value)
    except (TypeError, ValueError):
        raise error("network-index-type", what=what, value=value) from None
    if index != value or isinstance(value, bool):
        raise error("network-index-type", what=what, value=value)
    return index


def _check_lengths(names, states, parents, cpts):
    n = len(names)
    for what, seq in (("states", states), ("parents", parents), ("cpts", cpts)):
        if len(seq) != n:
            raise error("network-lengths", what=what, n=n, got=len(seq))


def _check_names_and_states(names, states):
    seen = set()
    for name in names:
        if name in seen:
            raise error("network-duplicate-variable", name=name)
        seen.add(name)
    for name, st in zip(names, states):
        if not st:
            raise error("network-no-states", name=name)
        if len(st) > MAX_STATES:
            raise error("network-too-many-states", name=name, n_states=len(st), max_states=MAX_STATES)
        if len(set(st)) != len(st):
            dup = next(s for s in st if st.count(s) > 1)
            raise error("network-duplicate-state", name=name, state=dup)


def _check_parents(names, parents):
    n = len(names)
    for v, ps in enumerate(parents):
        for p in ps:
            if not 0 <= p < n:
                raise error("network-parent-range", name=names[v], parent=p, n=n)
            if p == v:
                raise error("network-self-parent", name=names[v])
        if len(set(ps)) != len(ps):
            raise error("network-repeated-parent", name=names[v])


def _check_cpt(names, arities, parents, v, cpt):
    name = names[v]
    expected = tuple(arities[p] for p in parents[v]) + (arities[v],)
    if cpt.shape != expected:
        raise error("network-cpt-shape", name=name, expected=expected, shape=cpt.shape)
    if cpt.size > _MAX_CPT_SIZE:
        raise error("network-cpt-size", name=name, size=cpt.size)
    if not np.all(np.isfinite(cpt)) or np.any(cpt < 0):
        raise error("network-cpt-values", name=name)
    rows = cpt.reshape(-1, arities[v]).sum(axis=1)
    bad = np.flatnonzero(np.abs(rows - 1.0) > _ROW_SUM_TOL)
    if bad.size:
        config = np.unravel_index(bad[0], expected[:-1]) if parents[v] else ()
        raise error("network-cpt-row-sum", name=name, config=tuple(int(c) for c in config), total=rows[bad[0]],
                    tol=_ROW_SUM_TOL)


def _check_acyclic(names, parents):
    order = partial_topological_order(parents)
    if len(order) == len(parents):
        return
    left = set(range(len(parents))) - set(order)
    # Every node left over has a parent left over; walking up parents must loop.
    v = min(left)
    path, seen = [], {}
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = min(p for p in parents[v] if p in left)
    cycle = path[seen[v]:][::-1]
    shown = " -> ".join(repr(names[c]) for c in cycle + [cycle[0]])
    raise error("network-cycle", name=names[cycle[0]], cycle=shown)


# ---------------------------------------------------------------------------
# Parameter fitting
# ---------------------------------------------------------------------------


def _config_codes(codes, parent_columns, parent_arities):
    """Mixed-radix parent configuration code of each row (first parent most significant)."""
    config = np.zeros(codes.shape[0], dtype=np.int64)
    for col, arity in zip(parent_columns, parent_arities):
        config *= int(arity)
        config += codes[:, col]
    return config


def _posterior_mean_cpt(child_codes, config, parent_arities, arity, ess):
    """BDeu posterior-mean CPT of one variable, shape ``(*parent_arities, arity)``."""
    q = int(np.prod(parent_arities, dtype=np.int64))
    counts = np.bincount(config * arity + child_codes, minlength=q * arity)
    counts = counts.reshape(q, arity).astype(np.float64)
    alpha = ess / (q * arity)
    theta = (counts + alpha) / (counts.sum(axis=1, keepdims=True) + ess / q)
    return theta.reshape(tuple(int(a) for a in parent_arities) + (arity,))


register("network-graph-node", InvalidParameterError,
         "the graph has node {node!r}, which is not a variable of the data.",
         cause="The networkx graph given as the structure has a node that is not among the variables fitted.",
         fix="Remove the node from the graph, or fit on data (or names) that include it.")


def _parents_from_graph(graph, names):
    """Parent index tuples from a networkx DiGraph over ``names``."""
    index = {n: i for i, n in enumerate(names)}
    unknown = [n for n in graph.nodes if n not in index]
    if unknown:
        raise error("network-graph-node", node=unknown[0])
    parents = [[] for _ in names]
    for u, v in graph.edges:
        parents[index[v]].append(index[u])
    return tuple(tuple(sorted(ps)) for ps in parents)


register("network-data-type", InvalidDataError, "data must be a DiscreteData; got {type_name}.",
         cause="Something other than a DiscreteData (e.g. a DataFrame or an array) was passed as the data.",
         fix="Wrap the data first, e.g. with mtbn.data.from_dataframe or mtbn.data.read_csv.")


def fit_parameters(parents, data: Any, *, equivalent_sample_size: float = 1.0, names=None) -> BayesianNetwork:
    """Fit the CPTs of a structure to data (BDeu posterior mean).

    For a variable with ``r`` states whose parents have ``q`` joint
    configurations, ``theta_jk = (N_jk + ess / (q r)) / (N_j + ess / q)``.
    A parent configuration never observed gets the uniform distribution, and
    a declared state never observed gets a positive probability.

    Parameters
    ----------
    parents : DAG, sequence of sequence of int, or networkx.DiGraph
        A :class:`mtbn.graph.DAG` (its node names are looked up in ``data``
        unless ``names`` is given), the parent indices of each network variable
        (indices into ``names``), or a DiGraph whose nodes are variable names
        (parents are then ordered by index; variables absent from the graph
        have no parents).
    data : DiscreteData
        The training data; arities are ``len(data.states[v])``.
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (> 0).
    names : sequence of str, optional
        The network's variables, in the order ``parents`` indexes them; each is
        looked up in ``data`` by name. Defaults to ``data.names`` (then
        ``parents`` indexes ``data``'s columns directly).

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    InvalidParameterError
        Bad structure or equivalent sample size.
    InvalidDataError
        ``data`` is not a DiscreteData or lacks one of ``names``.
    CycleError
        The structure has a directed cycle.
    """
    if not isinstance(data, DiscreteData):
        raise error("network-data-type", type_name=type(data).__name__)
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    if isinstance(parents, DAG):
        names = parents.names if names is None else names
        parents = [tuple(sorted(p)) for p in parents.parents]
    names = data.names if names is None else tuple(str(n) for n in names)
    columns = [_data_column(data, n) for n in names]
    if hasattr(parents, "predecessors") and hasattr(parents, "edges"):
        parents = _parents_from_graph(parents, names)
    parents = tuple(tuple(_as_index(p, "parents") for p in ps) for ps in parents)
    if len(parents) != len(names):
        raise error("network-lengths", what="parents", n=len(names), got=len(parents))
    _check_parents(names, parents)
    _check_acyclic(names, parents)
    states = tuple(data.states[c] for c in columns)
    data_kinds = getattr(data, "kinds", None)
    kinds = None if data_kinds is None else tuple(data_kinds[c] for c in columns)
    arities = [len(s) for s in states]
    codes = data.codes
    cpts = []
    for v, ps in enumerate(parents):
        parent_arities = [arities[p] for p in ps]
        size = int(np.prod(parent_arities + [arities[v]], dtype=object))
        if size > _MAX_CPT_SIZE:
            raise error("network-cpt-size", name=names[v], size=size)
        config = _config_codes(codes, [columns[p] for p in ps], parent_arities)
        child = codes[:, columns[v]].astype(np.int64)
        cpts.append(_posterior_mean_cpt(child, config, parent_arities, arities[v], ess))
    return BayesianNetwork(names, states, parents, cpts, kinds)


def _label_value(label, kind):
    """A state label back as the user's value."""
    if kind == "int":
        return int(label)
    if kind == "float":
        return float(label)
    if kind == "bool":
        return label == "True"
    return label


register("network-missing-column", InvalidDataError, "task {task!r} has no column for network variable {name!r}.",
         cause="The network (or the names asked for) has a variable that the task's data has no column for.",
         fix="Add the column to the data, or use a network over the task's columns; names are matched exactly.")


def _data_column(data, name):
    try:
        return data._index[name]
    except KeyError:
        raise error("network-missing-column", task=data.name, name=name) from None


# ---------------------------------------------------------------------------
# Log-likelihood
# ---------------------------------------------------------------------------


register("network-unknown-state", InvalidDataError,
         "task {task!r}, column {column!r}: state {label!r} is unknown to the network (its states: {states}).",
         cause="A value observed in the data is not one of the network's states for that variable.",
         fix="Recode the column to the network's state labels (listed; they are matched exactly), or drop the rows.")


def _recode_column(data, column, target_states):
    """Codes of ``data``'s ``column`` expressed in ``target_states`` (by label)."""
    codes = data.codes[:, column]
    own = data.states[column]
    if own == target_states:
        return codes.astype(np.intp)
    pos = {s: k for k, s in enumerate(target_states)}
    used = np.bincount(codes, minlength=len(own)) > 0
    lut = np.zeros(max(len(own), 1), dtype=np.intp)
    for k, label in enumerate(own):
        if label in pos:
            lut[k] = pos[label]
        elif used[k]:
            raise error("network-unknown-state", task=data.name, column=data.names[column], label=label,
                        states=", ".join(map(repr, target_states)))
    return lut[codes]


def _network_codes(network, data):
    """One intp code array per network variable, matched to ``data`` by name."""
    if not isinstance(data, DiscreteData):
        raise error("network-data-type", type_name=type(data).__name__)
    return [
        _recode_column(data, _data_column(data, name), network.states[v])
        for v, name in enumerate(network.names)
    ]


register("network-empty-task", InvalidDataError, "task {task!r} has no rows: the mean is undefined.",
         cause="The mean log-likelihood was asked for on a task with no rows.",
         fix="Pass data with at least one row, or use per_row=True to get an empty array.")


def log_likelihood(network, data, *, per_row=False):
    """Log-likelihood (natural log) of data under a network.

    Parameters
    ----------
    network : BayesianNetwork
    data : DiscreteData
        Matched to the network by variable name (other column orders and extra
        columns are fine) and recoded by state label.
    per_row : bool, default False
        Return the per-row log-likelihoods instead of their mean.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The mean log-likelihood per row, or each row's log-likelihood. A row
        with a zero-probability event gives ``-inf``.

    Raises
    ------
    InvalidDataError
        A network variable is missing from ``data``, a label observed in
        ``data`` is unknown to the network, or (for the mean) ``data`` has no
        rows.
    """
    codes = _network_codes(network, data)
    total = np.zeros(data.n_samples, dtype=np.float64)
    with np.errstate(divide="ignore"):
        for v, ps in enumerate(network.parents):
            log_cpt = np.log(network.cpts[v])
            total += log_cpt[tuple(codes[p] for p in ps) + (codes[v],)]
    if per_row:
        return total
    if data.n_samples == 0:
        raise error("network-empty-task", task=data.name)
    return float(total.mean())


# ---------------------------------------------------------------------------
# Forward sampling
# ---------------------------------------------------------------------------


def _cumulative_table(cpt):
    """Row-wise cumulative probabilities, shape (q, r), last column exactly 1."""
    arity = cpt.shape[-1]
    cum = np.cumsum(cpt.reshape(-1, arity), axis=1)
    return cum / cum[:, -1:]


register("network-sample-size", InvalidParameterError, "n_samples must be an integer >= 0; got {value!r}.",
         cause="The number of rows to sample is negative, fractional or not a number.",
         fix="Pass a whole number of rows, 0 or more.")


def sample(network, n_samples, *, random_state: Any = None) -> DiscreteData:
    """Draw rows from a network by forward sampling.

    Variables are drawn in :meth:`BayesianNetwork.topological_order`, each
    with one uniform number per row compared against the cumulative
    probabilities of the row's parent configuration.

    Parameters
    ----------
    network : BayesianNetwork
    n_samples : int
        Number of rows (>= 0).
    random_state : None, int or numpy.random.Generator
        Seed; the same seed gives the same sample.

    Returns
    -------
    DiscreteData
        Named ``"sample"``, with the network's variables and state lists.
    """
    if (
        isinstance(n_samples, bool)
        or not isinstance(n_samples, (int, np.integer))
        or n_samples < 0
    ):
        raise error("network-sample-size", value=n_samples)
    n_samples = int(n_samples)
    rng = check_random_state(random_state)
    arities = network.arities
    codes = np.empty((n_samples, network.n_vars), dtype=np.uint8, order="F")
    for v in network.topological_order():
        ps = network.parents[v]
        cum = _cumulative_table(network.cpts[v])
        config = _config_codes(codes, ps, arities[list(ps)])
        u = rng.random(n_samples)
        # State s is drawn when cum[s - 1] <= u < cum[s]; zero-probability states
        # have cum[s] == cum[s - 1] and are never drawn.
        drawn = (cum[config] <= u[:, None]).sum(axis=1)
        codes[:, v] = drawn
    return DiscreteData(codes, network.names, network.states, "sample")


# ---------------------------------------------------------------------------
# BIF reading
# ---------------------------------------------------------------------------

_COMMENT_RE = re.compile(r'("(?:[^"\\]|\\.)*")|/\*.*?\*/|//[^\n]*', re.DOTALL)
_TOKEN_RE = re.compile(
    r'\s+|"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<punct>[{}()\[\],;|])'
    r'|(?P<word>[^\s{}()\[\],;|"]+)|(?P<bad>.)',
    re.DOTALL,
)


register("bif-unterminated-quote", InvalidDataError, "BIF parse error at line {line}: unterminated quoted string.",
         cause="A double quote opens a name or label that is never closed.",
         fix="Close the quoted text with a double quote on the line shown (or remove the stray quote).")
register("bif-unexpected-end", InvalidDataError,
         "BIF parse error at line {line}: unexpected end of text, expected {what}.",
         cause="The text stops in the middle of a declaration, e.g. a block without its closing brace.",
         fix="Complete the declaration at the end of the file (the file may be truncated).")
register("bif-expected-punct", InvalidDataError, "BIF parse error at line {line}: expected {char!r}, found {value!r}.",
         cause="A bracket, brace or semicolon that the BIF grammar needs at this point is missing.",
         fix="Insert the character shown at the line shown, or fix the token found there.")
register("bif-expected-word", InvalidDataError, "BIF parse error at line {line}: expected {what}, found {value!r}.",
         cause="A punctuation character stands where a keyword, name or number is needed.",
         fix="Put the item named at the line shown.")
register("bif-list-punct", InvalidDataError, "BIF parse error at line {line}: unexpected {value!r} in a list.",
         cause="A list of states, parents or parent states holds a bracket, brace, semicolon or '|'.",
         fix="Separate list items by commas or spaces only, and quote names that contain punctuation.")
register("bif-empty-item", InvalidDataError, "BIF parse error at line {line}: empty item in a comma-separated list.",
         cause="A list has two commas in a row, or a comma at its start or end.",
         fix="Remove the extra comma, or put the missing item between the commas.")
register("bif-variable-name-punct", InvalidDataError,
         "BIF parse error at line {line}: unexpected punctuation in a variable name.",
         cause="The name after 'variable' contains a bracket, comma, semicolon or '|'.",
         fix="Put the name in double quotes, or remove the punctuation from it.")
register("bif-variable-no-name", InvalidDataError, "BIF parse error at line {line}: a variable without a name.",
         cause="A 'variable' keyword is directly followed by its '{' block.",
         fix="Write the variable's name between 'variable' and '{'.")
register("bif-variable-type", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} has type {kind!r}; only discrete is supported.",
         cause="A variable is declared with a type other than 'discrete' (e.g. continuous).",
         fix="Discretise the variable and declare it 'type discrete [ N ] { states };'.")
register("bif-state-count", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r}: bad number of states {count!r}.",
         cause="The count in 'type discrete [ N ]' is not a whole number.",
         fix="Write the number of states as digits, e.g. '[ 3 ]'.")
register("bif-state-count-mismatch", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} declares {count} states but lists {n_listed}.",
         cause="The count in 'type discrete [ N ]' differs from the number of state labels listed.",
         fix="Make the count equal to the number of labels, or list the missing labels.")
register("bif-variable-no-type", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} has no 'type discrete' declaration.",
         cause="A variable block does not declare its states.",
         fix="Add 'type discrete [ N ] { s1, s2, ... };' to the variable's block.")
register("bif-numbers-end", InvalidDataError, "BIF parse error at line {line}: unexpected end of text in {what}.",
         cause="The text stops in the middle of a list of probabilities.",
         fix="Complete the probabilities and close the block (the file may be truncated).")
register("bif-probability-expected", InvalidDataError,
         "BIF parse error at line {line}: expected a probability in {what}, found {value!r}.",
         cause="A table, default or row entry starts with something that is not a number.",
         fix="Write the probabilities as numbers separated by commas, ended by ';'.")
register("bif-no-probabilities", InvalidDataError, "BIF parse error at line {line}: no probabilities in {what}.",
         cause="A table, default or row entry has no numbers.",
         fix="Give the entry one probability per state of the variable (per parent configuration for a table).")
register("bif-header-bars", InvalidDataError,
         "BIF parse error at line {line}: more than one '|' in a probability header.",
         cause="The header 'probability ( child | parents )' has a second '|'.",
         fix="Write one '|' between the child and its comma-separated parents.")
register("bif-block-no-variable", InvalidDataError,
         "BIF parse error at line {line}: a probability block without a variable.",
         cause="A 'probability ( )' header names no child variable.",
         fix="Write the child's name first in the header, e.g. 'probability ( child | parent )'.")
register("bif-block-punct", InvalidDataError,
         "BIF parse error at line {line}: unexpected {value!r} in the probability block of {child!r}.",
         cause="A probability block holds punctuation where a 'table', 'default' or '(' row is expected.",
         fix="Remove the stray character; rows read '(parent states) p1, p2;'.")
register("bif-undeclared-variable", InvalidDataError,
         "BIF parse error at line {line}: probability block refers to undeclared variable {name!r}.",
         cause="A probability header names a child or parent with no 'variable' declaration (even ignoring case).",
         fix="Declare the variable, or fix the spelling of the name in the header.")
register("bif-table-size", InvalidDataError,
         "BIF parse error at line {line}: the table of {child!r} has {n_values} values; expected {expected}.",
         cause="A 'table' entry does not have one value per combination of the child's and its parents' states.",
         fix="Give the number of values shown (child state varying slowest, then the parents in header order).")
register("bif-row-size", InvalidDataError,
         "BIF parse error at line {line}: a row of {child!r} has {n_values} values; expected {arity}.",
         cause="A row or 'default' entry does not have one probability per state of the child.",
         fix="Give one probability per state of the child, in the order of its declared states.")
register("bif-row-parent-count", InvalidDataError,
         "BIF parse error at line {line}: a row of {child!r} names {n_labels} parent states; expected {n_parents}.",
         cause="The '(...)' of a row lists more or fewer parent states than the header has parents.",
         fix="List one state per parent, in the order of the header.")
register("bif-row-unknown-state", InvalidDataError,
         "BIF parse error at line {line}: a row of {child!r} has unknown state {label!r} of parent {parent!r}.",
         cause="A row names a parent state that is not among that parent's declared states.",
         fix="Use the parent's state labels exactly as declared (case-sensitive).")
register("bif-row-twice", InvalidDataError,
         "BIF parse error at line {line}: {child!r} has two rows for parent states {labels}.",
         cause="Two rows of a probability block are for the same parent configuration.",
         fix="Keep one row per parent configuration.")
register("bif-row-missing", InvalidDataError,
         "BIF parse error at line {line}: {child!r} has no probabilities for parent states {labels}.",
         cause="A probability block has no row, table or default for the parent configuration shown.",
         fix="Add a row for that configuration, or a 'default' row for all configurations not listed.")
register("bif-variable-twice", InvalidDataError, "BIF parse error at line {line}: variable {name!r} is declared twice.",
         cause="Two 'variable' blocks have the same name.",
         fix="Remove or rename one of the two declarations.")
register("bif-unexpected-keyword", InvalidDataError, "BIF parse error at line {line}: unexpected {keyword!r}.",
         cause="A statement starts with a word other than 'network', 'variable' or 'probability'.",
         fix="Remove the statement or fix the keyword; check for a missing '}' or ';' before it.")
register("bif-no-variables", InvalidDataError, "BIF parse error at line {line}: no variables declared.",
         cause="The text has no 'variable' block (it may be empty or not BIF at all).",
         fix="Check that the file is a BIF network and declares its variables.")
register("bif-blocks-twice", InvalidDataError,
         "BIF parse error at line {line}: variable {child!r} has more than one probability block.",
         cause="Two probability blocks are for the same variable (names compared ignoring case when not exact).",
         fix="Keep one probability block per variable.")
register("bif-no-block", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} has no probability block.",
         cause="A declared variable has no 'probability' block giving its table.",
         fix="Add a probability block for the variable, or remove its declaration.")


class _Tokens:
    """A cursor over BIF tokens ``(text, is_punct, offset)``."""

    def __init__(self, text):
        self.text = text
        self.items = []
        for m in _TOKEN_RE.finditer(text):
            kind = m.lastgroup
            if kind is None:
                continue
            if kind == "bad":
                self.fail("bif-unterminated-quote", m.start())
            value = m.group(kind)
            self.items.append((value, kind == "punct", m.start()))
        self.pos = 0

    def fail(self, code, offset=None, **fields):
        """Raise the registered BIF parse error ``code`` at ``offset`` (default: the current token)."""
        if offset is None:
            offset = self.items[self.pos][2] if self.pos < len(self.items) else len(self.text)
        line = self.text.count("\n", 0, offset) + 1
        raise error(code, line=line, **fields)

    def done(self):
        return self.pos >= len(self.items)

    def peek(self):
        return None if self.done() else self.items[self.pos]

    def next(self, what="a token"):
        if self.done():
            self.fail("bif-unexpected-end", what=what)
        item = self.items[self.pos]
        self.pos += 1
        return item

    def is_punct(self, char):
        item = self.peek()
        return item is not None and item[1] and item[0] == char

    def expect(self, char):
        value, punct, _ = self.next(repr(char))
        if not (punct and value == char):
            self.pos -= 1
            self.fail("bif-expected-punct", char=char, value=value)

    def word(self, what):
        value, punct, _ = self.next(what)
        if punct:
            self.pos -= 1
            self.fail("bif-expected-word", what=what, value=value)
        return value

    def until(self, closing):
        """Tokens up to (and consuming) the punctuation ``closing``."""
        out = []
        while True:
            item = self.next(repr(closing))
            if item[1] and item[0] == closing:
                return out
            out.append(item)

    def skip_statement(self):
        """Skip to just after the next ';' (or before a '}' closing the block)."""
        while not self.done() and not self.is_punct("}"):
            value, punct, _ = self.next()
            if punct and value == ";":
                return

    def skip_block(self):
        """Skip a balanced ``{ ... }`` block (the '{' not yet consumed)."""
        self.expect("{")
        depth = 1
        while depth:
            value, punct, _ = self.next("'}'")
            if punct and value == "{":
                depth += 1
            elif punct and value == "}":
                depth -= 1


def _split_items(tokens, tok, expected=None, commas_only=False):
    """Items of a list: comma-separated (words joined by one space) or one per word.

    Without commas, the words are one item each, unless ``commas_only`` or
    exactly one item is ``expected`` (then the words form one item).
    """
    for value, punct, offset in tokens:
        if punct and value != ",":
            tok.fail("bif-list-punct", offset, value=value)
    words = [value for value, punct, _ in tokens if not punct]
    if len(words) == len(tokens):
        if words and (commas_only or (expected == 1 and len(words) > 1)):
            return [" ".join(words)]
        return words
    items, current = [], []
    for value, punct, _ in tokens:
        if punct:
            items.append(" ".join(current))
            current = []
        else:
            current.append(value)
    items.append(" ".join(current))
    if any(not item for item in items):
        tok.fail("bif-empty-item", tokens[0][2])
    return items


def _parse_variable(tok):
    """``variable NAME { type discrete [ N ] { s1, s2 }; property ...; }``."""
    head = tok.until("{")
    if any(punct for _, punct, _ in head):
        tok.fail("bif-variable-name-punct", head[0][2])
    name = " ".join(v for v, _, _ in head)
    if not name:
        tok.fail("bif-variable-no-name")
    states = None
    while not tok.is_punct("}"):
        value, punct, _ = tok.next("'}'")
        if punct and value == ";":
            continue
        if not punct and value == "type":
            kind = tok.word("a variable type")
            if kind.lower() != "discrete":
                tok.fail("bif-variable-type", name=name, kind=kind)
            tok.expect("[")
            count = tok.word("the number of states")
            tok.expect("]")
            tok.expect("{")
            inner = tok.until("}")
            if tok.is_punct(";"):
                tok.next()
            if not count.isdigit():
                tok.fail("bif-state-count", name=name, count=count)
            states = _split_items(inner, tok, expected=int(count))
            if len(states) != int(count):
                tok.fail("bif-state-count-mismatch", name=name, count=count, n_listed=len(states))
        else:
            tok.skip_statement()  # property or unknown statement
    tok.expect("}")
    if states is None:
        tok.fail("bif-variable-no-type", name=name)
    return name, states


def _parse_numbers(tok, what):
    """Numbers separated by commas/whitespace, ended by ';' (or by the next row)."""
    values = []
    while True:
        item = tok.peek()
        if item is None:
            tok.fail("bif-numbers-end", what=what)
        value, punct, _ = item
        if punct:
            if value == ",":
                tok.pos += 1
                continue
            if value == ";":
                tok.pos += 1
            break
        try:
            number = float(value)
        except ValueError:
            if not values:
                tok.fail("bif-probability-expected", what=what, value=value)
            break
        values.append(number)
        tok.pos += 1
    if not values:
        tok.fail("bif-no-probabilities", what=what)
    return values


def _parse_probability(tok, declared):
    """``probability ( CHILD | P1, P2 ) { rows }`` -> (child, parents, entries)."""
    tok.expect("(")
    header = tok.until(")")
    bars = [i for i, (v, p, _) in enumerate(header) if p and v == "|"]
    if len(bars) > 1:
        tok.fail("bif-header-bars", header[bars[1]][2])
    if bars:
        child = " ".join(v for v, p, _ in header[: bars[0]] if not p)
        parents = _split_items(header[bars[0] + 1:], tok, commas_only=True)
    else:
        # Old style "( CHILD P1 P2 )"; a declared multi-word name is one variable.
        joined = " ".join(v for v, p, _ in header if not p)
        items = [joined] if joined in declared else _split_items(header, tok)
        child, parents = items[0] if items else "", items[1:]
    if not child:
        tok.fail("bif-block-no-variable")
    tok.expect("{")
    entries = []  # (kind, labels, values, offset)
    while not tok.is_punct("}"):
        value, punct, offset = tok.next("'}'")
        if punct and value == ";":
            continue
        if punct and value == "(":
            labels = _split_items(tok.until(")"), tok, expected=len(parents))
            entries.append(("row", labels, _parse_numbers(tok, f"a row of {child!r}"), offset))
        elif not punct and value in ("table", "default"):
            entries.append((value, None, _parse_numbers(tok, f"the {value} of {child!r}"), offset))
        elif not punct:
            tok.skip_statement()  # property or unknown statement
        else:
            tok.fail("bif-block-punct", offset, value=value, child=child)
    tok.expect("}")
    return child, parents, entries


def _resolve_name(name, declared, lower, tok):
    """The declared variable called ``name`` (exactly, or else ignoring case)."""
    if name in declared:
        return name
    match = lower.get(name.lower())
    if match is None:
        tok.fail("bif-undeclared-variable", name=name)
    return match


def _build_cpt(child, parents, entries, states, tok):
    """Assemble one CPT of shape (*parent arities, arity) from parsed entries."""
    arity = len(states[child])
    cards = tuple(len(states[p]) for p in parents)
    q = int(np.prod(cards, dtype=np.int64)) if cards else 1
    cpt = np.full((q, arity), np.nan)
    default = None
    filled = np.zeros(q, dtype=bool)
    for kind, labels, values, offset in entries:
        if kind == "table":
            if len(values) != q * arity:
                tok.fail("bif-table-size", offset, child=child, n_values=len(values), expected=q * arity)
            # Child state varies slowest, then the parents in header order.
            cpt[:] = np.asarray(values).reshape(arity, q).T
            filled[:] = True
            continue
        if len(values) != arity:
            tok.fail("bif-row-size", offset, child=child, n_values=len(values), arity=arity)
        if kind == "default":
            default = values
            continue
        if len(labels) != len(parents):
            tok.fail("bif-row-parent-count", offset, child=child, n_labels=len(labels), n_parents=len(parents))
        j = 0
        for p, label in zip(parents, labels):
            try:
                k = states[p].index(label)
            except ValueError:
                tok.fail("bif-row-unknown-state", offset, child=child, label=label, parent=p)
            j = j * len(states[p]) + k
        if filled[j]:
            tok.fail("bif-row-twice", offset, child=child, labels=tuple(labels))
        cpt[j] = values
        filled[j] = True
    if default is not None:
        cpt[~filled] = default
        filled[:] = True
    if not filled.all():
        missing = np.unravel_index(int(np.flatnonzero(~filled)[0]), cards)
        labels = tuple(states[p][k] for p, k in zip(parents, missing))
        tok.fail("bif-row-missing", child=child, labels=labels)
    return cpt.reshape(cards + (arity,))


def _parse_bif(text):
    """Parse BIF text into a BayesianNetwork."""
    text = _COMMENT_RE.sub(lambda m: m.group(1) or " ", text)
    tok = _Tokens(text)
    states = {}
    blocks = {}
    encoded = False
    while not tok.done():
        if tok.is_punct(";"):
            tok.next()
            continue
        keyword = tok.word("'network', 'variable' or 'probability'")
        if keyword == "network":
            while not tok.is_punct("{"):
                tok.next("'{'")
            start = tok.pos
            tok.skip_block()
            encoded = encoded or any(v == _ENCODING_PROPERTY for v, _, _ in tok.items[start:tok.pos])
        elif keyword == "variable":
            name, st = _parse_variable(tok)
            if name in states:
                tok.fail("bif-variable-twice", name=name)
            states[name] = st
        elif keyword == "probability":
            blocks_entry = _parse_probability(tok, states)
            blocks.setdefault(blocks_entry[0], []).append(blocks_entry)
        else:
            tok.pos -= 1
            tok.fail("bif-unexpected-keyword", keyword=keyword)
    net = _assemble(states, blocks, tok)
    if encoded:
        net = BayesianNetwork([_bif_decode(n) for n in net.names],
                              [[_bif_decode(x) for x in st] for st in net.states], net.parents, net.cpts)
    return net


def _assemble(states, blocks, tok):
    names = list(states)
    if not names:
        tok.fail("bif-no-variables")
    lower = {}
    for n in names:
        lower.setdefault(n.lower(), n)
    resolved = {}
    for raw, found in blocks.items():
        child = _resolve_name(raw, states, lower, tok)
        if child in resolved or len(found) > 1:
            tok.fail("bif-blocks-twice", child=child)
        _, parents, entries = found[0]
        parents = [_resolve_name(p, states, lower, tok) for p in parents]
        resolved[child] = (parents, entries)
    index = {n: i for i, n in enumerate(names)}
    parent_idx, cpts = [], []
    for n in names:
        if n not in resolved:
            tok.fail("bif-no-block", name=n)
        parents, entries = resolved[n]
        parent_idx.append(tuple(index[p] for p in parents))
        cpts.append(_build_cpt(n, parents, entries, states, tok))
    try:
        return BayesianNetwork(names, [states[n] for n in names], parent_idx, cpts)
    except CycleError:
        raise
    except InvalidParameterError as exc:
        raise error("bif-invalid-network", detail=exc) from None


register("bif-invalid-network", InvalidDataError, "invalid BIF network: {detail}",
         cause="The BIF text parses, but the network it describes is inconsistent (the detail says how).",
         fix="Correct the declaration or probability block named in the detail.")
register("bif-read", InvalidDataError, "cannot read {path!r}: {reason}.",
         cause="The BIF file named cannot be opened: it does not exist, is a folder, or is not readable.",
         fix="Check the path and the file's permissions.")
register("bif-source-type", InvalidParameterError, "source must be a path or a string of BIF text; got {type_name}.",
         cause="read_bif was given something other than a path, a string or bytes.",
         fix="Pass the path of a .bif or .bif.gz file, or the BIF text itself as a string.")
register("bif-decompress", InvalidDataError, "cannot decompress BIF data: {reason}.",
         cause="The data starts like a gzip file but is truncated or corrupt.",
         fix="Download or copy the .bif.gz file again, or pass the uncompressed .bif file.")


def _read_text(source):
    """BIF text from a path (plain or gzip) or from a string holding the text."""
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, str) and ("{" in source or "\n" in source):
        return source
    elif isinstance(source, (str, os.PathLike)):
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise error("bif-read", path=os.fspath(source), reason=exc.strerror or exc) from None
    else:
        raise error("bif-source-type", type_name=type(source).__name__)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise error("bif-decompress", reason=exc) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_bif(source) -> BayesianNetwork:
    """Read a network in the BIF format (as used by the bnlearn repository).

    Supports ``table`` rows (roots, and conditional tables with the child
    state varying slowest, then the parents in header order), one row per
    parent configuration ``(s1, s2) p1, p2;`` (parent states in header
    order), a ``default`` row for the configurations not listed, properties
    (ignored), ``//`` and ``/* */`` comments and quoted names.

    Parameters
    ----------
    source : str or path-like
        A path to a ``.bif`` or gzip-compressed ``.bif.gz`` file, or a string
        holding BIF text.

    Returns
    -------
    BayesianNetwork
        Variables in declaration order; each variable's parents in the order
        of its probability header.

    Raises
    ------
    InvalidDataError
        The file cannot be read or is not valid BIF.
    CycleError
        The network has a directed cycle.
    """
    return _parse_bif(_read_text(source))


# ---------------------------------------------------------------------------
# BIF writing
# ---------------------------------------------------------------------------

_UNSAFE_RE = re.compile(r'[{}()\[\],;|"\t\n\r\f\v]|//|/\*|  ')


#: Network property that marks percent-encoded names and labels (see _bif_encode).
_ENCODING_PROPERTY = "mtbn_percent_encoding"
_ENCODE_CHARS = set('{}()[],;|"%/* \t\n\r\f\v')


def _bif_safe(text):
    return bool(text) and text == text.strip() and not _UNSAFE_RE.search(text) and "%" not in text


def _bif_encode(text):
    """A BIF-safe token for ``text``: characters BIF cannot hold (and ``%``) as ``%XX``; ``""`` as ``%%``."""
    if not text:
        return "%%"
    return "".join(f"%{ord(c):02X}" if c in _ENCODE_CHARS else c for c in text)


def _bif_decode(token):
    if token == "%%":
        return ""
    return re.sub(r"%([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), token)


def _bif_text(network):
    """The BIF text of a network (probabilities printed with repr precision).

    Names and state labels that BIF cannot hold (brackets, commas, quotes,
    semicolons, leading, trailing or repeated spaces, empty labels, ...) are
    written percent-encoded, and the network block then carries the
    property ``mtbn_percent_encoding``, on which :func:`read_bif` decodes them:
    the round trip is lossless, and other readers see valid identifiers.
    """
    texts = list(network.names) + [x for st in network.states for x in st]
    encode = not all(_bif_safe(t) for t in texts)
    code = _bif_encode if encode else (lambda t: t)
    names = [code(n) for n in network.names]
    states = [[code(x) for x in st] for st in network.states]
    lines = ["network unknown {"] + ([f"  property {_ENCODING_PROPERTY} true ;"] if encode else []) + ["}"]
    network = _Renamed(names, states, network)
    for name, st in zip(network.names, network.states):
        lines.append(f"variable {name} {{")
        lines.append(f"  type discrete [ {len(st)} ] {{ {', '.join(st)} }};")
        lines.append("}")
    for v, name in enumerate(network.names):
        ps = network.parents[v]
        arity = len(network.states[v])
        rows = network.cpts[v].reshape(-1, arity)
        if not ps:
            lines.append(f"probability ( {name} ) {{")
            lines.append(f"  table {', '.join(repr(float(x)) for x in rows[0])};")
        else:
            header = ", ".join(network.names[p] for p in ps)
            lines.append(f"probability ( {name} | {header} ) {{")
            cards = tuple(len(network.states[p]) for p in ps)
            for j, row in enumerate(rows):
                config = np.unravel_index(j, cards)
                labels = ", ".join(network.states[p][k] for p, k in zip(ps, config))
                lines.append(f"  ({labels}) {', '.join(repr(float(x)) for x in row)};")
        lines.append("}")
    return "\n".join(lines) + "\n"


class _Renamed:
    """A network's structure and CPTs under other names and labels (for writing)."""

    def __init__(self, names, states, network):
        self.names, self.states = names, states
        self.parents, self.cpts = network.parents, network.cpts


def write_bif(network, path):
    """Write a network as BIF text (gzip-compressed if ``path`` ends in ``.gz``).

    Probabilities are printed with ``repr`` precision, so reading the file
    back with :func:`read_bif` gives the same network exactly. pgmpy's
    ``BIFReader`` reads the file too (except that it splits a root variable
    name that contains a space).

    Parameters
    ----------
    network : BayesianNetwork
    path : str or path-like

    Names or labels that BIF cannot hold are percent-encoded (see
    :func:`_bif_text`); :func:`read_bif` restores them.
    """
    text = _bif_text(network).encode("utf-8")
    path = os.fspath(path)
    if path.endswith(".gz"):
        # mtime=0 and no embedded file name: the same network gives the same bytes.
        with open(path, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
                fh.write(text)
    else:
        with open(path, "wb") as fh:
            fh.write(text)


def _shipped_bytes(name):
    """Bytes of a shipped ``<name>.bif.gz`` (package resources, else the repo's data/)."""
    filename = f"{name}.bif.gz"
    try:
        from importlib.resources import files

        return (files("mtbn.datasets") / filename).read_bytes()
    except (ImportError, OSError, TypeError, ValueError):
        fallback = Path(__file__).resolve().parent.parent / "data" / filename
        return fallback.read_bytes()


register("network-format", InvalidParameterError,
         "cannot tell the network format of {path!r}: give a .bif, .bif.gz, .xml/.xmlbif, .net or .uai file.",
         cause="The file name's extension is not a Bayesian network format mtbn reads.",
         fix="Rename the file with the extension of its format, or convert it to BIF.")
register("network-unknown", InvalidParameterError,
         "unknown network {name!r}: give one of {choices} or the path of a .bif / .bif.gz file.",
         cause="The name is neither a network shipped with mtbn nor the path of an existing file.",
         fix="Use one of the shipped names listed (case-insensitive), or check the file's path.")


def load_network(name: str) -> BayesianNetwork:
    """Load a shipped network by name, or a BIF file by path.

    Parameters
    ----------
    name : str or path-like
        One of :data:`SHIPPED_NETWORKS` (``"alarm"``, ``"asia"``,
        ``"insurance"``; case-insensitive), or a path to a ``.bif`` /
        ``.bif.gz`` file.

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    InvalidParameterError
        ``name`` is neither a shipped network nor an existing file.
    """
    if isinstance(name, str) and name.lower() in SHIPPED_NETWORKS:
        return _parse_bif(_read_text(_shipped_bytes(name.lower())))
    if isinstance(name, (str, os.PathLike)) and Path(name).is_file():
        return read_bif(Path(name))
    raise error("network-unknown", name=name, choices=", ".join(map(repr, SHIPPED_NETWORKS)))


def read_network(path: Any) -> BayesianNetwork:
    """Read a Bayesian network file: BIF here, XMLBIF, NET (Hugin) and UAI through pgmpy's readers.

    The format comes from the extension: ``.bif`` / ``.bif.gz`` (mtbn's own
    parser), ``.xml`` / ``.xmlbif``, ``.net``, ``.uai`` (pgmpy's
    ``XMLBIFReader``, ``NETReader``, ``UAIReader``, then :func:`from_pgmpy`).

    Returns
    -------
    BayesianNetwork
    """
    name = str(path).lower()
    if name.endswith((".bif", ".bif.gz")):
        return read_bif(path)
    readers = {".xml": "XMLBIFReader", ".xmlbif": "XMLBIFReader", ".net": "NETReader", ".uai": "UAIReader"}
    ext = next((e for e in readers if name.endswith(e)), None)
    if ext is None:
        raise error("network-format", path=str(path))
    if not Path(path).is_file():
        raise error("network-unknown", name=str(path), choices=", ".join(map(repr, SHIPPED_NETWORKS)))
    from pgmpy import readwrite

    reader = getattr(readwrite, readers[ext])(path=str(path))
    return from_pgmpy(reader.get_model())


# ---------------------------------------------------------------------------
# pgmpy conversion
# ---------------------------------------------------------------------------


def to_pgmpy(network):
    """Convert to a ``pgmpy.models.DiscreteBayesianNetwork`` with TabularCPDs.

    Parameters
    ----------
    network : BayesianNetwork

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        Nodes in network order; each CPD's evidence in the network's parent
        order, with state names set.
    """
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork()
    model.add_nodes_from(network.names)
    model.add_edges_from(
        (network.names[p], network.names[v])
        for v, ps in enumerate(network.parents)
        for p in ps
    )
    cpds = []
    for v, name in enumerate(network.names):
        ps = network.parents[v]
        arity = len(network.states[v])
        evidence = [network.names[p] for p in ps]
        state_names = {name: network.state_values(v)}
        state_names.update({network.names[p]: network.state_values(p) for p in ps})
        cpds.append(
            TabularCPD(
                variable=name,
                variable_card=arity,
                values=np.array(network.cpts[v]).reshape(-1, arity).T,
                evidence=evidence or None,
                evidence_card=[len(network.states[p]) for p in ps] or None,
                state_names=state_names,
            )
        )
    model.add_cpds(*cpds)
    return model


register("pgmpy-state-mismatch", InvalidParameterError,
         "CPD of {child!r} uses states {labels} for {parent!r}, whose own states are {target}.",
         cause="In the pgmpy model, a child's CPD names other states for a parent than the parent's own CPD.",
         fix="Give the CPDs the same state_names for each variable.")
register("pgmpy-missing-cpd", InvalidParameterError, "node {node!r} of the pgmpy model has no CPD.",
         cause="A node of the pgmpy model has no TabularCPD attached.",
         fix="Add a CPD for every node (model.add_cpds) before converting.")
register("pgmpy-unknown-evidence", InvalidParameterError, "CPD of {node!r} has unknown evidence {evidence!r}.",
         cause="A CPD of the pgmpy model conditions on a variable that is not a node of the model.",
         fix="Add the evidence variable to the model, or remove it from the CPD.")


def _align_axis(values, axis, labels, target, child, parent):
    """Permute ``values`` along ``axis`` from ``labels`` order to ``target`` order."""
    if list(labels) == list(target):
        return values
    if sorted(labels) != sorted(target):
        raise error("pgmpy-state-mismatch", child=child, labels=list(labels), parent=parent, target=list(target))
    return np.take(values, [list(labels).index(s) for s in target], axis=axis)


def from_pgmpy(model):
    """Convert a pgmpy discrete Bayesian network (with TabularCPDs).

    Parameters
    ----------
    model : pgmpy.models.DiscreteBayesianNetwork

    Returns
    -------
    BayesianNetwork
        Variables in ``model.nodes()`` order; each variable's parents in its
        CPD's evidence order; state labels converted to str.

    Raises
    ------
    InvalidParameterError
        A node has no CPD, or CPDs disagree about a variable's states.
    """
    names = [str(n) for n in model.nodes()]
    nodes = list(model.nodes())
    cpds = {}
    for node in nodes:
        cpd = model.get_cpds(node)
        if cpd is None:
            raise error("pgmpy-missing-cpd", node=node)
        cpds[node] = cpd

    def labels(cpd, var):
        card = cpd.cardinality[cpd.variables.index(var)]
        sn = (cpd.state_names or {}).get(var)
        return [str(s) for s in sn] if sn is not None else [str(k) for k in range(card)]

    states = [labels(cpds[n], n) for n in nodes]
    index = {n: i for i, n in enumerate(nodes)}
    parents, tables = [], []
    for v, node in enumerate(nodes):
        cpd = cpds[node]
        evidence = list(cpd.variables[1:])
        values = np.moveaxis(np.asarray(cpd.values, dtype=np.float64), 0, -1)
        for axis, e in enumerate(evidence):
            if e not in index:
                raise error("pgmpy-unknown-evidence", node=node, evidence=e)
            values = _align_axis(values, axis, labels(cpd, e), states[index[e]], node, e)
        parents.append(tuple(index[e] for e in evidence))
        tables.append(values)
    return BayesianNetwork(names, states, parents, tables)
