"""The :class:`BayesianNetwork` class: variables, parents, CPTs, and the checks that keep it valid."""

from __future__ import annotations



import numpy as np

from mtbn.data import MAX_CPT_SIZE, MAX_STATES
from mtbn.exceptions import CycleError, DataWarning, InvalidParameterError
from mtbn.graph import partial_topological_order
from mtbn.messages import error, register, text, warn


#: Largest allowed deviation of a CPT row sum from one.
_ROW_SUM_TOL = 1e-6
#: A CPT row read from a file may sum to one only within this: other tools write rounded probabilities
#: (0.3333 three times). Such rows are divided by their sums, with a warning; pgmpy's ``check_model`` allows
#: the same deviation.
READ_ROW_SUM_TOL = 0.01

register("network-rows-renormalised", DataWarning,
         "{source}: {n} CPT row(s) summed to one only within {largest:.2g} (rounded probabilities); divided by "
         "their sums.",
         cause="The tool that wrote the file rounded the probabilities, so a row's sum is slightly off one.",
         fix="Nothing to do if the file was written with rounding; a row further than 0.01 from one is refused.")


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
    kinds : sequence of {"int", "float", "bool", None}, optional
        Per variable, the Python type its state labels stand for (None: text), as
        :attr:`mtbn.data.DiscreteData.kinds`; :meth:`state_values` and :func:`to_pgmpy` turn labels back into
        those values. None, or every entry None, keeps the labels as strings.
    name : str, optional
        The network's name (kept as the attribute ``name``): a learned network carries its task's, and
        the XMLBIF and BIF writers and :func:`to_pgmpy` pass it on.

    Raises
    ------
    InvalidParameterError
        Inconsistent lengths, duplicate names or labels, bad parent indices,
        wrong CPT shapes, negative or non-finite probabilities, or rows that
        do not sum to one.
    CycleError
        The parent structure has a directed cycle.
    """

    __slots__ = ("_names", "_states", "_parents", "_cpts", "_index", "_kinds", "name")

    def __init__(self, names, states, parents, cpts, kinds=None, name=None):
        names = tuple(str(n) for n in names)
        states = tuple(tuple(str(s) for s in st) for st in states)
        parents = tuple(tuple(as_index(p, "parents") for p in ps) for ps in parents)
        cpts = tuple(np.array(c, dtype=np.float64) for c in cpts)
        _check_lengths(names, states, parents, cpts)
        _check_names_and_states(names, states)
        check_parents(names, parents)
        arities = tuple(len(s) for s in states)
        for v in range(len(names)):
            _check_cpt(names, arities, parents, v, cpts[v])
            cpts[v].flags.writeable = False
        check_acyclic(names, parents)
        self._names = names
        self._states = states
        self._parents = parents
        self._cpts = cpts
        self._index = {n: i for i, n in enumerate(names)}
        self._kinds = None if kinds is None or all(k is None for k in kinds) else tuple(kinds)
        #: The network's name (a learned network: its task's), written to XMLBIF and BIF files; None if unnamed.
        self.name = None if name is None else str(name)

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
        """The states of variable ``v`` as the user's values (ints, floats, bools or the labels).

        Parameters
        ----------
        v : int
            The variable's index.

        Returns
        -------
        list
            The state labels of ``v`` in order, converted to ``int``, ``float`` or ``bool`` according to
            ``kinds[v]``; the labels themselves (str) when the variable has no kind.
        """
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

        Parameters
        ----------
        name : str
            A variable name (case-sensitive).

        Returns
        -------
        int
            The position of ``name`` in :attr:`names`.

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
        """An independent copy (new CPT arrays).

        Returns
        -------
        BayesianNetwork
            A network with the same names, states, parents, CPT values and kinds, checked again as it is built.
        """
        return BayesianNetwork(self._names, self._states, self._parents, self._cpts, self.kinds, name=self.name)

    def __repr__(self):
        n_edges = sum(len(ps) for ps in self._parents)
        n_params = sum(c.size - c.size // c.shape[-1] for c in self._cpts)
        return (
            f"BayesianNetwork(n_vars={self.n_vars}, n_edges={n_edges}, "
            f"n_free_parameters={n_params})"
        )


def as_index(value, what):
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


def check_parents(names, parents):
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
    if cpt.size > MAX_CPT_SIZE:
        raise error("network-cpt-size", name=name, size=cpt.size)
    if not np.all(np.isfinite(cpt)) or np.any(cpt < 0):
        raise error("network-cpt-values", name=name)
    rows = cpt.reshape(-1, arities[v]).sum(axis=1)
    bad = np.flatnonzero(np.abs(rows - 1.0) > _ROW_SUM_TOL)
    if bad.size:
        config = np.unravel_index(bad[0], expected[:-1]) if parents[v] else ()
        raise error("network-cpt-row-sum", name=name, config=tuple(int(c) for c in config),
                    total=float(rows[bad[0]]), tol=_ROW_SUM_TOL)


def check_acyclic(names, parents):
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


def _label_value(label, kind):
    """A state label back as the user's value."""
    if kind == "int":
        return int(label)
    if kind == "float":
        return float(label)
    if kind == "bool":
        return label == "True"
    return label


def renormalise_rounded(names, cpts, source):
    """The tables of a network read from a file, with rows that sum to one only within
    :data:`READ_ROW_SUM_TOL` divided by their sums (one :class:`~mtbn.exceptions.DataWarning` says how many).

    Rows further off are left as they are, for the network's own check to refuse with the variable named.

    Parameters
    ----------
    names : sequence of str
        The variables, in the order of ``cpts``.
    cpts : list of ndarray
        Each variable's table, its own states on the last axis.
    source : str
        The file (or description) named in the warning.

    Returns
    -------
    list of ndarray
        The tables, the rows within the tolerance renormalised (the others unchanged).
    """
    out, n, largest = [], 0, 0.0
    for cpt in cpts:
        cpt = np.asarray(cpt, dtype=np.float64)
        sums = cpt.sum(axis=-1, keepdims=True)
        off = np.abs(sums - 1.0)
        fix = (off > _ROW_SUM_TOL) & (off <= READ_ROW_SUM_TOL) & np.isfinite(sums)
        if fix.any():
            cpt = np.where(fix, cpt / np.where(fix, sums, 1.0), cpt)
            n += int(fix.sum())
            largest = max(largest, float(off[fix].max()))
        out.append(cpt)
    if n:
        warn(text("network-rows-renormalised", source=source, n=n, largest=largest), DataWarning)
    return out


def mixed_over_parent(cpt, axis, weights):
    """``cpt`` with its parent on ``axis`` no longer seen: every slice along ``axis`` is the ``weights`` mixture of
    the slices (one-hot weights: the rows at one value of that parent, whatever its value).

    Parameters
    ----------
    cpt : ndarray
        A CPT, one axis per parent and the child's last.
    axis : int
        The axis of the parent whose value the child stops seeing.
    weights : sequence of float
        One weight per value of that parent, summing to one.

    Returns
    -------
    ndarray
        Same shape as ``cpt``, constant along ``axis``, C-contiguous.

    Examples
    --------
    >>> mixed_over_parent(np.array([[0.9, 0.1], [0.2, 0.8]]), 0, [0.5, 0.5]).tolist()
    [[0.55, 0.45], [0.55, 0.45]]
    """
    cpt = np.asarray(cpt)
    mixed = np.tensordot(np.asarray(weights, dtype=float), cpt, axes=([0], [axis]))
    return np.ascontiguousarray(np.repeat(np.expand_dims(mixed, axis), cpt.shape[axis], axis=axis))
