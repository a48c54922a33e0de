"""A structure plus data to a network (BDeu posterior mean), data scored under a network, and sampling."""

from __future__ import annotations

from typing import Any


import numpy as np

from mtbn._validation import check_positive, check_random_state
from mtbn.data import DiscreteData
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.graph import DAG
from mtbn.messages import error, register
from mtbn.networks.model import MAX_CPT_SIZE, BayesianNetwork, as_index, check_acyclic, check_parents

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


def _cpt_size(arities, v, parents):
    """Entries of variable ``v``'s CPT: its arity times its parents' (an exact Python int)."""
    size = int(arities[v])
    for p in parents:
        size *= int(arities[p])
    return size


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
    parents = tuple(tuple(as_index(p, "parents") for p in ps) for ps in parents)
    if len(parents) != len(names):
        raise error("network-lengths", what="parents", n=len(names), got=len(parents))
    check_parents(names, parents)
    check_acyclic(names, parents)
    states = tuple(data.states[c] for c in columns)
    data_kinds = getattr(data, "kinds", None)
    kinds = None if data_kinds is None else tuple(data_kinds[c] for c in columns)
    arities = [len(s) for s in states]
    codes = data.codes
    cpts = []
    for v, ps in enumerate(parents):
        parent_arities = [arities[p] for p in ps]
        size = _cpt_size(arities, v, ps)
        if size > MAX_CPT_SIZE:
            raise error("network-cpt-size", name=names[v], size=size)
        config = _config_codes(codes, [columns[p] for p in ps], parent_arities)
        child = codes[:, columns[v]].astype(np.int64)
        cpts.append(_posterior_mean_cpt(child, config, parent_arities, arities[v], ess))
    return BayesianNetwork(names, states, parents, cpts, kinds)


register("network-missing-column", InvalidDataError, "task {task!r} has no column for network variable {name!r}.",
         cause="The network (or the names asked for) has a variable that the task's data has no column for.",
         fix="Add the column to the data, or use a network over the task's columns; names are matched exactly.")


def _data_column(data, name):
    """The column of ``data`` that holds network variable ``name``."""
    try:
        return data.index(name)
    except InvalidDataError:  # DiscreteData.index's own message names no network
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
        The network whose CPTs give the probabilities.
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


def fits_in_tables(graph, data):
    """Whether every CPT of ``graph`` (a DAG over ``data``'s variables) stays within ``MAX_CPT_SIZE`` entries.

    Parameters
    ----------
    graph : DAG
        The structure, whose node names are variables of ``data``.
    data : DiscreteData
        Gives each variable's number of states (``len(data.states[v])``, declared states included).

    Returns
    -------
    bool
        True if :func:`fit_parameters` can build every CPT of ``graph`` on ``data`` (each variable's arity times
        its parents' is at most ``MAX_CPT_SIZE``); False otherwise.
    """
    arities = [len(data.states[data.index(n)]) for n in graph.names]
    return all(_cpt_size(arities, v, ps) <= MAX_CPT_SIZE for v, ps in enumerate(graph.parents))


def heldout_log_likelihood(graph, train, test, *, equivalent_sample_size=1.0):
    """Per-row log-likelihood of ``test`` under ``graph`` with its parameters fitted on ``train``, without CPTs.

    The values of ``log_likelihood(fit_parameters(graph, train), test,
    per_row=True)``: the BDeu posterior mean ``(N_jk + ess / (q r)) / (N_j +
    ess / q)``, ``1 / r`` for a parent configuration ``train`` never shows.
    Only the configurations that occur are counted, so it also works for a
    structure whose dense CPTs would be too large to build (a variable with
    dozens of parents, as single-task learning can produce from a few hundred
    rows). ``train`` and ``test`` must share the variables' state lists (rows
    of one data set).

    Parameters
    ----------
    graph : DAG
        Over variables of ``train`` and ``test`` (matched by name).
    train : DiscreteData
        The rows the parameters are estimated from; its state lists are the variables' states.
    test : DiscreteData
        The rows scored; its labels are recoded onto ``train``'s state lists (a label ``train`` does not list is
        an error).
    equivalent_sample_size : float, default 1.0
        The BDeu equivalent sample size (> 0) of the posterior mean.

    Returns
    -------
    ndarray of shape (test.n_samples,)
        The natural-log likelihood of each row of ``test``.
    """
    ess = check_positive(equivalent_sample_size, "equivalent_sample_size")
    for d in (train, test):
        if not isinstance(d, DiscreteData):
            raise error("network-data-type", type_name=type(d).__name__)
    tr = [_data_column(train, n) for n in graph.names]
    te = [_recode_column(test, _data_column(test, n), train.states[c]) for n, c in zip(graph.names, tr)]
    n_train = train.n_samples
    total = np.zeros(test.n_samples)
    for v, ps in enumerate(graph.parents):
        ps = sorted(ps)
        r = len(train.states[tr[v]])
        q = 1
        for p in ps:
            q *= len(train.states[tr[p]])
        both = np.vstack([np.column_stack([train.codes[:, tr[p]] for p in ps] or [np.zeros(n_train, int)]),
                          np.column_stack([te[p] for p in ps] or [np.zeros(test.n_samples, int)])])
        config = np.unique(both, axis=0, return_inverse=True)[1].reshape(-1)
        c_tr, c_te = config[:n_train], config[n_train:]
        m = int(config.max()) + 1 if len(config) else 1
        counts = np.bincount(c_tr * r + train.codes[:, tr[v]], minlength=m * r).reshape(m, r).astype(np.float64)
        with np.errstate(divide="ignore"):
            total += np.log((counts[c_te, te[v]] + ess / (q * r)) / (counts.sum(axis=1)[c_te] + ess / q))
    return total


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
        The network sampled from.
    n_samples : int
        Number of rows (>= 0).
    random_state : None, int or numpy.random.Generator
        Seed; the same seed gives the same sample.

    Returns
    -------
    DiscreteData
        Named ``"sample"``, with the network's variables and state lists.

    Examples
    --------
    In ASIA, half the patients smoke, and smokers get lung cancer with
    probability 0.1 against 0.01 for the others; a sample of 1000 rows comes
    close:

    >>> import numpy as np
    >>> from mtbn.networks import load_network
    >>> net = load_network("asia")
    >>> d = sample(net, 1000, random_state=0)
    >>> d.name, d.n_samples, d.names == net.names
    ('sample', 1000, True)
    >>> df = d.to_dataframe()
    >>> round(float((df["smoke"] == "yes").mean()), 3)
    0.519
    >>> lung = df["lung"] == "yes"
    >>> round(float(lung[df["smoke"] == "yes"].mean()), 3), round(float(lung[df["smoke"] == "no"].mean()), 3)
    (0.079, 0.008)

    The same seed draws the same rows:

    >>> np.array_equal(sample(net, 5, random_state=1).codes, sample(net, 5, random_state=1).codes)
    True
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
