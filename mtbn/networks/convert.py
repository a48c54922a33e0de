"""Conversion to and from pgmpy models (pgmpy is imported only inside these functions)."""

from __future__ import annotations



import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.networks.model import BayesianNetwork, renormalise_rounded

# ---------------------------------------------------------------------------
# pgmpy conversion
# ---------------------------------------------------------------------------


def to_pgmpy(network):
    """Convert to a ``pgmpy.models.DiscreteBayesianNetwork`` with TabularCPDs.

    Parameters
    ----------
    network : BayesianNetwork
        The network to convert; state names are given back as the values of their kinds (see
        :meth:`BayesianNetwork.state_values`).

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        Nodes in network order; each CPD's evidence in the network's parent
        order, with state names set.
    """
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork()
    if network.name:
        model.name = network.name
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


def from_pgmpy(model, *, source=None):
    """Convert a pgmpy discrete Bayesian network (with TabularCPDs).

    Parameters
    ----------
    model : pgmpy.models.DiscreteBayesianNetwork
        A model with a TabularCPD for every node; a CPD without state names numbers its states
        ``"0"``, ``"1"``, ..., and a child's CPD may list a parent's states in another order than the parent's
        own CPD (its table is reordered).
    source : str, optional
        The file the model was read from: its CPT rows that sum to one only within
        :data:`~mtbn.networks.model.READ_ROW_SUM_TOL` (rounded probabilities) are renormalised, with a
        warning naming it. Without it (a model built in Python) every row must sum to one within ``1e-6``.

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
    if source is not None:
        tables = renormalise_rounded(names, tables, source)
    return BayesianNetwork(names, states, parents, tables, name=getattr(model, "name", None) or None)
