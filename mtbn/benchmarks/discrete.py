"""Multitask benchmark problems built from shipped networks (paper Section 2.3.4 and beyond).

Every generator is seeded and returns the true parametrised network of each
task (:class:`mtbn.networks.BayesianNetwork`), from which training, validation
and test data are drawn with :func:`mtbn.networks.sample`.

* ``alarm``, ``insurance`` (correlated parameters): each task starts from the
  original network and deletes every edge with probability ``p_del``. When
  ``Y -> X`` is deleted, ``X``'s CPT becomes
  ``P(X | Pa \\ Y) = sum_y P(X | Pa) P(Y = y | Pa \\ Y)``, with the joint
  ``P(Pa)`` of ``X``'s original parents computed exactly (variable
  elimination) in the original network; several deleted parents are summed
  out together. The dependence of ``X`` on its remaining parents is
  unchanged.
* ``alarm-ind``, ``insurance-ind`` (independent parameters): the same, but
  every task first draws fresh CPTs on the original structure: each CPT row
  is an independent Dirichlet(1, ..., 1) draw (uniform on the simplex).
* ``sachs``, ``hepar2``, ``win95pts``, ``andes`` and their ``-ind`` forms:
  the same two constructions on networks the method was not developed on
  (the robustness suite, ``experiments/robustness.py``).
* ``alarm-unrelated``, ``sachs-unrelated``: tasks that share variable names
  but not structure. The tasks are built as ``alarm`` / ``sachs``, then every
  task but the first renames its variables by a random permutation of the
  names (each variable keeps its states, parents and CPT), so an edge
  between two names in one task says nothing about the others. Multitask
  learning should not help here; the negative-transfer guard should fire.
* ``alarm-random``, ``sachs-random``, ``hepar2-random``: unrelated tasks
  built otherwise than the relatedness test's null (which relabels): the
  first task is built as ``alarm`` / ..., every other task is an
  independent random network over the same variables and states, with as
  many edges (a random DAG, at most 4 parents per node) and Dirichlet(1)
  CPTs.
* ``alarm-marginals``, ``sachs-marginals``, ``hepar2-marginals``: unrelated
  tasks whose variables look alike (issue 47): every task an independent
  random DAG over the network's variables (as many edges, at most 4
  parents), each CPT row a Dirichlet(10 p_v) draw around the variable's
  marginal ``p_v`` in the network, so the tasks share every variable's
  marginal and nothing of their structure.
* ``alarm-cptshare``, ``sachs-cptshare``, ``hepar2-cptshare``: independent
  random DAGs as above with Dirichlet(1) CPTs, but tasks whose parent sets
  of a variable coincide share its CPT (roots share their marginals).
* ``networks-unrelated``: one task from each of ALARM, HEPAR2, WIN95PTS,
  INSURANCE and ANDES (:data:`UNRELATED_NETWORKS`): the first 20 variables
  of each in a topological order (an ancestral set, whose sub-network is
  their exact marginal), renamed ``v0..v19`` with states ``s0, s1, ...``.
* ``alarm-mixed``, ``sachs-mixed``, ``hepar2-mixed`` (and ``insurance-mixed``,
  ``win95pts-mixed``, ``andes-mixed``, networks the constants of the per-task
  decision were not set on): tasks of which only
  some are related: built as ``alarm`` / ..., then the last 2 of 5 tasks
  (:func:`mixed_unrelated`) are relabelled as in ``*-unrelated``.
* ``alarm-lookalike``, ``sachs-lookalike``, ``hepar2-lookalike``: as
  ``*-mixed``, but the last 2 of 5 tasks are built as in ``*-marginals``
  (random structures whose variables keep the network's marginals): unrelated
  tasks that look like the related ones, which each task's own relatedness
  test must still tell apart.
* ``alarm-comp``: ALARM split into the paper's four components
  (:data:`PAPER_ALARM_COMPONENTS`: its node numbers read as positions in the
  BIF file's variable order; 7, 8, 8 and 14 nodes, not all connected), and
  ``alarm-comp-connected``, our earlier split into four connected
  components (:data:`ALARM_COMPONENTS`, also 7, 8, 8 and 14). Changing a component
  draws a new random DAG over its nodes with the same number of internal
  edges (each node keeps at most 4 parents in all), and new Dirichlet(1) CPTs
  for its nodes; edges from outside the component into it are kept, and the
  rest of the network (edges and parameters) is unchanged. The five tasks
  change components {}, {1}, {2}, {3}, {1, 3}; each task redraws its changed
  components independently of the other tasks (two tasks that change the
  same component get different random sub-DAGs and CPTs there).
  :func:`make_component_pool` gives the 15 tasks that change every
  non-empty subset of components.
* a network file (``.bif``, ``.bif.gz``, XMLBIF, ``.net``, ``.uai``; read with
  :func:`mtbn.networks.read_network`): the ``alarm`` construction on that
  network (related tasks by deleting edges, correlated parameters), so a
  user's own network, or one of pgmpy's example networks, is a benchmark;
  ``KIND:FILE`` (KIND ``ind``, ``unrelated``, ``random``, ``mixed``,
  ``marginals``, ``cptshare`` or ``lookalike``) the construction of the
  ``-KIND`` problems on it.
"""

import itertools
import math
import os
from pathlib import Path

import numpy as np

from mtbn._validation import check_option, check_random_state
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.networks import BayesianNetwork, load_network, read_network
from mtbn.networks.model import mixed_over_parent

__all__ = [
    "PROBLEMS",
    "ALARM_COMPONENTS",
    "PAPER_ALARM_COMPONENTS",
    "COMPONENT_SPLITS",
    "make_problem",
    "problem_source",
    "problem_file",
    "FILE_CONSTRUCTIONS",
    "mixed_unrelated",
    "make_perturbed_tasks",
    "relabel",
    "make_component_tasks",
    "make_component_pool",
    "marginal",
    "random_cpts",
]

#: The paper's ALARM-COMP split (Section 2.3.4): "nodes 1-7 in the first
#: component, nodes 9-14, 21 and 34 in the second, nodes 8, 27-31, 36 and 37
#: in the third and the rest in the fourth", with node i read as the i-th
#: variable of the ALARM BIF file (the bnlearn repository's order, which
#: ``load_network("alarm").names`` keeps). Component sizes 7, 8, 8, 14 with
#: 7, 4, 5 and 11 internal edges.
PAPER_ALARM_COMPONENTS = (
    ("HISTORY", "CVP", "PCWP", "HYPOVOLEMIA", "LVEDVOLUME", "LVFAILURE", "STROKEVOLUME"),
    ("HRBP", "HREKG", "ERRCAUTER", "HRSAT", "INSUFFANESTH", "ANAPHYLAXIS", "SAO2", "CATECHOL"),
    ("ERRLOWOUTPUT", "DISCONNECT", "MINVOLSET", "VENTMACH", "VENTTUBE", "VENTLUNG", "CO", "BP"),
    ("TPR", "EXPCO2", "KINKEDTUBE", "MINVOL", "FIO2", "PVSAT", "PAP", "PULMEMBOLUS", "SHUNT", "INTUBATION",
     "PRESS", "VENTALV", "ARTCO2", "HR"),
)

#: ALARM split into four connected components (chosen from the graph: the
#: cardiac-volume block, the heart-rate/output block, the ventilator block
#: and the rest): the ``alarm-comp-connected`` problem.
ALARM_COMPONENTS = (
    ("HYPOVOLEMIA", "LVFAILURE", "HISTORY", "LVEDVOLUME", "CVP", "PCWP", "STROKEVOLUME"),
    ("HR", "HRBP", "HREKG", "HRSAT", "ERRCAUTER", "ERRLOWOUTPUT", "CO", "BP"),
    ("MINVOLSET", "VENTMACH", "DISCONNECT", "VENTTUBE", "KINKEDTUBE", "PRESS", "VENTLUNG", "MINVOL"),
    (
        "ANAPHYLAXIS", "TPR", "ARTCO2", "CATECHOL", "EXPCO2", "FIO2", "PVSAT", "SAO2",
        "INSUFFANESTH", "SHUNT", "PULMEMBOLUS", "PAP", "VENTALV", "INTUBATION",
    ),
)

#: The component split of each ALARM-COMP problem.
COMPONENT_SPLITS = {"alarm-comp": PAPER_ALARM_COMPONENTS, "alarm-comp-connected": ALARM_COMPONENTS}

#: The five problems of the paper: name -> (network, independent parameters?).
PROBLEMS = {
    "alarm": ("alarm", False),
    "alarm-ind": ("alarm", True),
    "insurance": ("insurance", False),
    "insurance-ind": ("insurance", True),
    "alarm-comp": ("alarm", None),
    "alarm-comp-connected": ("alarm", None),
    **{f"{net}{suffix}": (net, ind) for net in ("sachs", "hepar2", "win95pts", "andes")
       for suffix, ind in (("", False), ("-ind", True))},
    "alarm-unrelated": ("alarm", "unrelated"),
    "sachs-unrelated": ("sachs", "unrelated"),
    **{f"{net}-{kind}": (net, kind) for net in ("alarm", "sachs", "hepar2") for kind in ("random", "mixed")},
    **{f"{net}-{kind}": (net, kind) for net in ("alarm", "sachs", "hepar2")
       for kind in ("marginals", "cptshare", "lookalike")},
    **{f"{net}-mixed": (net, "mixed") for net in ("insurance", "win95pts", "andes")},
    "networks-unrelated": (None, "networks"),
}

#: ``networks-unrelated``: the networks its tasks come from (one each, in this order), and how many variables of
#: each (the first in a topological order: an ancestral set, so the sub-network is its exact marginal).
UNRELATED_NETWORKS, UNRELATED_NETWORK_VARIABLES = ("alarm", "hepar2", "win95pts", "insurance", "andes"), 20

_MAX_PARENTS_RANDOM = 4


# ---------------------------------------------------------------------------
# Exact marginals by variable elimination
# ---------------------------------------------------------------------------


register("n-tasks-value", InvalidParameterError, "n_tasks must be >= 1; got {value!r}.",
         cause="A benchmark problem with no tasks.", fix="Ask for at least one task (the paper uses 5).")


#: The largest factor (cells) :func:`marginal` builds: 2**27 float64 cells, 1 GiB.
MAX_FACTOR_CELLS = 2**27
register("marginal-too-large", InvalidParameterError,
         "The exact joint of {names} needs a factor of {cells:.3g} cells, more than the {limit:.3g} allowed.",
         cause="Variable elimination on this network builds a factor too large for memory (a benchmark "
               "construction marginalises the CPT of a child whose parent edge it deletes).",
         fix="Use a construction that deletes no edges (e.g. a network's ``-unrelated`` or relabelled tasks), "
             "or a network with smaller cliques.")


def _ancestors(network, variables):
    seen = set(variables)
    stack = list(variables)
    while stack:
        v = stack.pop()
        for p in network.parents[v]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def marginal(network, variables):
    """Exact joint distribution of ``variables`` (indices), axes in that order.

    Variable elimination over the ancestors of ``variables`` (other nodes are
    barren and sum to one), eliminating the variable whose product factor is
    smallest first.

    Parameters
    ----------
    network : BayesianNetwork
        The network whose joint distribution is marginalised.
    variables : sequence of int
        The indices of the variables to keep, in the order of the result's axes.

    Returns
    -------
    ndarray
        ``P(variables)``: one axis per variable of ``variables``, of that variable's arity (a 0-d array holding
        1.0 when ``variables`` is empty).

    Raises
    ------
    InvalidParameterError
        When the elimination would build a factor of more than :data:`MAX_FACTOR_CELLS` cells (before any is
        built).
    """
    variables = [int(v) for v in variables]
    keep = _ancestors(network, variables)
    arity = network.arities
    # The factors by id in the order they were made (a new one gets the next id): the order einsum multiplies
    # them in, and so the result's last bits, as when they were a list.
    factors = {i: ((*network.parents[v], v), np.asarray(network.cpts[v])) for i, v in enumerate(sorted(keep))}
    holding = {x: set() for x in keep}  # variable -> ids of the factors it is in
    for i, (vs, _) in factors.items():
        for x in vs:
            holding[x].add(i)

    def cost(z):  # the cells of the product of the factors z is in (Python ints: no overflow on wide networks)
        return math.prod(int(arity[x]) for x in set().union(*(factors[i][0] for i in holding[z])))

    def check(cells):
        if cells > MAX_FACTOR_CELLS:
            raise error("marginal-too-large", names=", ".join(network.names[v] for v in variables), cells=cells,
                        limit=MAX_FACTOR_CELLS)

    check(math.prod(int(arity[v]) for v in variables))  # the result itself
    costs = {z: cost(z) for z in set(keep) - set(variables)}
    new = len(factors)  # the next factor's id
    while costs:
        z = min(costs, key=lambda x: (costs[x], x))
        check(costs.pop(z))
        ids = sorted(holding.pop(z))
        touching = [factors.pop(i) for i in ids]
        scope = sorted({x for vs, _ in touching for x in vs} - {z})
        factors[new] = (tuple(scope), _contract(touching, scope))
        for x in scope:  # only these variables' factors changed
            holding[x].difference_update(ids)
            holding[x].add(new)
            if x in costs:
                costs[x] = cost(x)
        new += 1
    if not factors:
        return np.ones(())
    return _contract(list(factors.values()), variables)


def _contract(factors, out):
    """einsum of ``(variables, array)`` factors onto ``out`` (ids relabelled below 52)."""
    label = {}
    args = []
    for vs, arr in factors:
        args.extend([arr, [label.setdefault(v, len(label)) for v in vs]])
    return np.einsum(*args, [label[v] for v in out], optimize=True)


def _marginalised_cpt(network, v, kept, family_joint=None):
    """``P(v | kept parents)`` in ``network`` (kept: subset of its parents, in order)."""
    ps = list(network.parents[v])
    cpt = np.asarray(network.cpts[v])
    if len(kept) == len(ps):
        return cpt
    if family_joint is None:
        family_joint = marginal(network, ps) if ps else np.ones(())
    joint = family_joint[..., None] * cpt  # P(Pa, X), axes: parents..., child
    drop = tuple(i for i, p in enumerate(ps) if p not in kept)
    pxr = joint.sum(axis=drop)  # P(kept, X)
    norm = pxr.sum(axis=-1, keepdims=True)
    fallback = cpt.mean(axis=drop)  # impossible parent configurations
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(norm > 0, pxr / np.where(norm > 0, norm, 1.0), fallback)
    return out / out.sum(axis=-1, keepdims=True)


def random_cpts(network, rng, variables=None, parents=None, alpha=1.0):
    """Dirichlet(alpha) CPT rows for ``variables`` (default all) given ``parents``.

    Parameters
    ----------
    network : BayesianNetwork
        Gives the variables' arities and the CPTs of the variables not redrawn.
    rng : numpy.random.Generator
        The generator of the Dirichlet draws.
    variables : iterable of int, optional
        The indices of the variables whose CPTs are redrawn; None redraws every variable's.
    parents : sequence of tuple of int, optional
        The parent indices of each variable (one entry per variable of ``network``), which set the shape of
        the redrawn CPTs; None takes ``network.parents``.
    alpha : float, default 1.0
        The concentration of every entry of the symmetric Dirichlet each CPT row is drawn from (1.0: uniform
        on the simplex).

    Returns
    -------
    list of ndarray
        One CPT per variable of ``network``: a new one of shape ``(parent arities..., arity)`` for each of
        ``variables``, ``network.cpts[v]`` for the others.
    """
    parents = network.parents if parents is None else parents
    arity = network.arities
    cpts = list(network.cpts)
    for v in range(network.n_vars) if variables is None else variables:
        shape = tuple(int(arity[p]) for p in parents[v]) + (int(arity[v]),)
        rows = rng.dirichlet(np.full(arity[v], alpha), size=int(np.prod(shape[:-1], dtype=np.int64)))
        cpts[v] = rows.reshape(shape)
    return cpts


def _delete_edges(base, deleted, joints):
    """A new network: ``base`` without the ``deleted`` edges, CPTs marginalised."""
    parents = []
    cpts = []
    for v in range(base.n_vars):
        kept = tuple(p for p in base.parents[v] if (p, v) not in deleted)
        parents.append(kept)
        cpts.append(_marginalised_cpt(base, v, kept, joints.get(v)) if kept != base.parents[v] else base.cpts[v])
    return BayesianNetwork(base.names, base.states, parents, cpts)


def make_perturbed_tasks(network, *, n_tasks=5, p_del=0.05, independent_parameters=False, random_state=None):
    """Related tasks by deleting each edge of ``network`` with probability ``p_del``.

    Parameters
    ----------
    network : BayesianNetwork or str
        The original network (or the name of a shipped one).
    n_tasks : int, default 5
        The number of tasks (at least 1).
    p_del : float in [0, 1], default 0.05
        The probability that each edge of the network is deleted in a task, drawn independently per edge and
        task.
    independent_parameters : bool, default False
        Draw fresh Dirichlet(1) CPTs for each task before deleting edges.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default None
        The seed of the random draws: a non-negative int, a Generator (used as it is), a RandomState (seeds
        a new Generator) or None (fresh entropy, so the tasks differ from call to call).

    Returns
    -------
    tasks : list of BayesianNetwork
        The true network of each task.
    deleted : list of set of (parent, child) names
        The edges each task deleted.
    """
    net = load_network(network) if isinstance(network, str) else network
    if not 0.0 <= float(p_del) <= 1.0:
        raise error("p-del-range", value=p_del)
    if int(n_tasks) < 1:
        raise error("n-tasks-value", value=n_tasks)
    rng = check_random_state(random_state)
    edges = [(p, v) for v in range(net.n_vars) for p in net.parents[v]]
    shared_joints = None
    tasks, deleted_names = [], []
    for _ in range(int(n_tasks)):
        if independent_parameters:
            base = BayesianNetwork(net.names, net.states, net.parents, random_cpts(net, rng))
            joints = None
        else:
            base = net
            joints = shared_joints
        deleted = {e for e in edges if rng.random() < p_del}
        if joints is None:
            joints = {}
        for v in {c for _, c in deleted}:
            if v not in joints:
                joints[v] = marginal(base, list(base.parents[v]))
        if not independent_parameters:
            shared_joints = joints
        tasks.append(_delete_edges(base, deleted, joints))
        deleted_names.append({(net.names[p], net.names[v]) for p, v in deleted})
    return tasks, deleted_names


# ---------------------------------------------------------------------------
# Changed components (ALARM-COMP)
# ---------------------------------------------------------------------------


def _component_indices(net, components):
    out = []
    for comp in components:
        out.append([net.index(name) for name in comp])
    return out


def _change_component(net, parents, cpts, comp, rng):
    """Replace the edges inside ``comp`` by a random DAG with as many edges.

    Candidate edges between component nodes are tried in random order and
    kept when the whole graph stays acyclic and the child has fewer than
    four parents.
    """
    import networkx as nx

    comp_set = set(comp)
    n_inside = sum(1 for v in comp for p in parents[v] if p in comp_set)
    outside = {v: [p for p in parents[v] if p not in comp_set] for v in comp}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(net.n_vars))
    graph.add_edges_from((p, v) for v in range(net.n_vars) for p in parents[v] if not (v in comp_set and p in comp_set))
    candidates = [(u, v) for u in comp for v in comp if u != v]
    new_inside = {v: [] for v in comp}
    chosen = 0
    for idx in rng.permutation(len(candidates)):
        if chosen == n_inside:
            break
        u, v = candidates[idx]
        if len(outside[v]) + len(new_inside[v]) >= _MAX_PARENTS_RANDOM or graph.has_edge(v, u):
            continue
        if nx.has_path(graph, v, u):
            continue
        graph.add_edge(u, v)
        new_inside[v].append(int(u))
        chosen += 1
    parents = list(parents)
    for v in comp:
        parents[v] = tuple(sorted(outside[v] + new_inside[v]))
    tmp = BayesianNetwork(net.names, net.states, parents, [
        np.full(tuple(int(net.arities[p]) for p in parents[v]) + (int(net.arities[v]),), 1.0 / net.arities[v])
        for v in range(net.n_vars)
    ])
    new_cpts = random_cpts(tmp, rng, variables=comp, parents=parents)
    cpts = list(cpts)
    for v in comp:
        cpts[v] = new_cpts[v]
    return parents, cpts


def _changed_network(net, comps, changed, rng):
    parents = list(net.parents)
    cpts = list(net.cpts)
    for c in changed:
        parents, cpts = _change_component(net, parents, cpts, comps[c], rng)
    return BayesianNetwork(net.names, net.states, parents, cpts)


def make_component_tasks(network="alarm", *, changed=((), (0,), (1,), (2,), (0, 2)),
                         components=PAPER_ALARM_COMPONENTS, random_state=None):
    """Tasks that each change some components of ``network`` (ALARM-COMP).

    Parameters
    ----------
    network : BayesianNetwork or str, default "alarm"
        The original network, or the name of a shipped one (read with :func:`mtbn.networks.load_network`).
    changed : sequence of tuples of component indices
        One entry per task (default: the paper's five tasks; components are
        0-based here: the paper's {1} is ``(0,)``).
    components : sequence of sequences of variable names, default PAPER_ALARM_COMPONENTS
        The components of ``network``, each a group of its variable names whose internal edges a change
        redraws.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default None
        The seed of the random draws: a non-negative int, a Generator (used as it is), a RandomState (seeds
        a new Generator) or None (fresh entropy, so the tasks differ from call to call).

    Returns
    -------
    list of BayesianNetwork
        The true network of each task, in the order of ``changed``.
    """
    net = load_network(network) if isinstance(network, str) else network
    rng = check_random_state(random_state)
    comps = _component_indices(net, components)
    return [_changed_network(net, comps, tuple(ch), rng) for ch in changed]


def make_component_pool(network="alarm", *, components=PAPER_ALARM_COMPONENTS, random_state=None):
    """The principal (original) network plus one task per non-empty subset of components.

    Parameters
    ----------
    network : BayesianNetwork or str, default "alarm"
        The original network, or the name of a shipped one (read with :func:`mtbn.networks.load_network`).
    components : sequence of sequences of variable names, default PAPER_ALARM_COMPONENTS
        The components of ``network`` (see :func:`make_component_tasks`).
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default None
        The seed of the random draws: a non-negative int, a Generator (used as it is), a RandomState (seeds
        a new Generator) or None (fresh entropy, so the tasks differ from call to call).

    Returns
    -------
    principal : BayesianNetwork
        The original network, unchanged.
    pool : list of BayesianNetwork
        ``2^c - 1`` tasks (15 for ALARM's four components).
    changed : list of tuple
        The components changed in each pool task.
    """
    net = load_network(network) if isinstance(network, str) else network
    c = len(components)
    changed = [s for r in range(1, c + 1) for s in itertools.combinations(range(c), r)]
    tasks = make_component_tasks(net, changed=changed, components=components, random_state=random_state)
    return net, tasks, changed


#: ``KIND:FILE`` problems: the constructions of the shipped networks' ``-KIND`` problems, on a network file.
FILE_CONSTRUCTIONS = {"ind": True, "unrelated": "unrelated", "random": "random", "mixed": "mixed",
                      "marginals": "marginals", "cptshare": "cptshare", "lookalike": "lookalike"}

register("problem-unknown", InvalidParameterError,
         "problem {value!r} is neither a benchmark problem ({choices}) nor a network file.",
         cause="A benchmark names one of mtbn's problems, or the path of a network file (.bif, .bif.gz, .xml, "
               ".xmlbif, .bifxml, .net, .uai) whose related tasks delete edges as alarm's do, or KIND:PATH for "
               "another construction (ind, unrelated, random, mixed, marginals, cptshare, lookalike).",
         fix="Give one of the problems listed, or the path of an existing network file.")


def problem_source(problem):
    """The network and the construction of a benchmark problem: a key of :data:`PROBLEMS`, or a network file.

    Parameters
    ----------
    problem : str or path-like
        A key of :data:`PROBLEMS`; or the path of a network file (any format :func:`mtbn.networks.read_network`
        reads), whose tasks are built as ``alarm``'s (edges deleted with probability ``p_del``, correlated
        parameters); or ``KIND:PATH``, KIND one of :data:`FILE_CONSTRUCTIONS` (``ind``, ``unrelated``,
        ``random``, ``mixed``, ``marginals``, ``cptshare``, ``lookalike``): the construction of ``alarm-KIND`` (or
        ``sachs-KIND``) on that file's network.

    Returns
    -------
    network : str or BayesianNetwork
        The shipped network's name (None for ``networks-unrelated``), or the network the file holds.
    construction : bool or str or None
        The value of :data:`PROBLEMS` (False for a network file).

    Raises
    ------
    InvalidParameterError
        ``problem`` is neither a key of :data:`PROBLEMS` nor an existing file, or the file's format is unknown.

    Examples
    --------
    >>> problem_source("alarm-ind")
    ('alarm', True)
    >>> problem_source("no-such-problem")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    mtbn.exceptions.InvalidParameterError: problem 'no-such-problem' is neither a benchmark problem (...) nor a ...
    """
    if isinstance(problem, str) and problem in PROBLEMS:
        return PROBLEMS[problem]
    found = problem_file(problem)
    if found is not None:
        return read_network(found[1]), FILE_CONSTRUCTIONS[found[0]] if found[0] else False
    value = os.fspath(problem) if isinstance(problem, os.PathLike) else problem
    raise error("problem-unknown", value=value, choices=", ".join(PROBLEMS))


def problem_file(problem):
    """``(kind, path)`` when ``problem`` names a network file (``kind`` "" for the related tasks, else a key of
    :data:`FILE_CONSTRUCTIONS`), None otherwise (a key of :data:`PROBLEMS`, or nothing that exists).

    Parameters
    ----------
    problem : str or path-like
        A benchmark problem (see :func:`problem_source`).

    Returns
    -------
    tuple of (str, str) or None
        The construction and the file's path.

    Examples
    --------
    >>> problem_file("alarm") is None
    True
    """
    if isinstance(problem, str) and problem in PROBLEMS:
        return None
    if isinstance(problem, (str, os.PathLike)) and Path(problem).is_file():
        return "", os.fspath(problem)
    if isinstance(problem, str):
        kind, _, path = problem.partition(":")
        if kind in FILE_CONSTRUCTIONS and Path(path).is_file():
            return kind, path
    return None


def make_problem(problem, *, n_tasks=5, p_del=0.05, random_state=None):
    """The true task networks of one of :data:`PROBLEMS`, or of a network file (:func:`problem_source`).

    ``alarm-comp`` and ``alarm-comp-connected`` ignore ``p_del`` and use the
    paper's five tasks (or the first ``n_tasks`` of them).

    Parameters
    ----------
    problem : str or path-like
        A key of :data:`PROBLEMS`, e.g. ``"alarm"``, ``"insurance-ind"`` or ``"sachs-unrelated"``, or the path of
        a network file (tasks built as ``alarm``'s).
    n_tasks : int, default 5
        The number of tasks. ``alarm-comp`` and ``alarm-comp-connected`` give at most 15 (the paper's five,
        then the other non-empty subsets of the four components); ``networks-unrelated`` allows at most 5.
    p_del : float in [0, 1], default 0.05
        The probability that each edge of the original network is deleted in a task (see
        :func:`make_perturbed_tasks`); unused by the ``alarm-comp`` problems and ``networks-unrelated``.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default None
        The seed of the random draws: a non-negative int, a Generator (used as it is), a RandomState (seeds
        a new Generator) or None (fresh entropy, so the tasks differ from call to call).

    Returns
    -------
    list of BayesianNetwork
        The true network of each task, in task order.

    Raises
    ------
    InvalidParameterError
        ``problem`` neither a problem nor a network file, more tasks than ``networks-unrelated`` has, or (for
        the problems built by deleting edges) ``p_del`` outside [0, 1] or fewer than one task.
    """
    name, independent = problem_source(problem)
    if problem in COMPONENT_SPLITS:
        changed = ((), (0,), (1,), (2,), (0, 2))
        if n_tasks > len(changed):
            extra = [s for r in range(1, 5) for s in itertools.combinations(range(4), r) if s not in changed]
            changed = changed + tuple(extra)
        return make_component_tasks(name, changed=changed[:n_tasks], components=COMPONENT_SPLITS[problem],
                                    random_state=random_state)
    rng = check_random_state(random_state)
    if independent == "networks":  # one task per network, their first variables renamed alike
        if n_tasks > len(UNRELATED_NETWORKS):
            raise error("networks-unrelated-tasks", n=len(UNRELATED_NETWORKS), value=n_tasks)
        return [_renamed_subnetwork(n, UNRELATED_NETWORK_VARIABLES) for n in UNRELATED_NETWORKS[:n_tasks]]
    tasks, _ = make_perturbed_tasks(name, n_tasks=n_tasks, p_del=p_del, independent_parameters=independent is True,
                                    random_state=rng)
    if independent in ("marginals", "lookalike"):  # independent structures, every variable's marginal the network's
        base = tasks[0]
        marginals = [marginal(base, [v]) for v in range(base.n_vars)]
        n_alike = n_tasks if independent == "marginals" else mixed_unrelated(n_tasks)
        return tasks[:n_tasks - n_alike] + [_marginal_network(base, rng, marginals) for _ in range(n_alike)]
    if independent == "cptshare":
        return _shared_row_networks(tasks[0], n_tasks, rng)
    if independent == "unrelated":
        tasks = [tasks[0]] + [relabel(net, rng.permutation(net.n_vars)) for net in tasks[1:]]
    elif independent == "mixed":
        n_other = mixed_unrelated(n_tasks)
        tasks = tasks[:n_tasks - n_other] + [relabel(net, rng.permutation(net.n_vars))
                                              for net in tasks[n_tasks - n_other:]]
    elif independent == "random":
        everything = [list(range(tasks[0].n_vars))]
        tasks = [tasks[0]] + [_changed_network(net, everything, [0], rng) for net in tasks[1:]]
    return tasks


#: ``make_interventional_tasks(kind=...)``: a target's mechanism changes (new CPT rows, same parents), is replaced
#: (no parents, a new distribution), or its activity is fixed (its children see one state of it).
INTERVENTION_KINDS = ("mechanism", "perfect", "activity")


def make_interventional_tasks(network, *, n_interventions=6, kind="mechanism", random_state=None):
    """One observational task and ``n_interventions`` single-variable interventions on ``network`` (issue 46).

    The targets are drawn without replacement among the variables with a
    parent or a child (``kind="activity"``: with a child). ``kind="mechanism"``:
    the target keeps its parents and every row of its CPT is redrawn from
    Dirichlet(1, ..., 1); ``kind="perfect"``: the target loses its parents
    and gets one Dirichlet(1, ..., 1) distribution; ``kind="activity"`` (an
    inhibitor or activator acting on what the target does, not on how much
    of it there is): the target's own CPT is kept, and each child's CPT
    becomes, for every value of the target, its rows at one state of the
    target drawn uniformly (the children no longer see the target's value).
    Every other CPT is the network's.

    Parameters
    ----------
    network : BayesianNetwork
        The system every condition shares.
    n_interventions : int, default 6
        How many single-variable interventions (one task each).
    kind : {"mechanism", "perfect", "activity"}, default "mechanism"
        What an intervention does to its target (see above).
    random_state : int or numpy.random.Generator, optional
        Seed of the targets and the new distributions.

    Returns
    -------
    list of (name, targets, BayesianNetwork)
        ``("observational", (), network)`` first, then ``("do-<target>",
        (target,), network of that condition)``.

    Examples
    --------
    >>> tasks = make_interventional_tasks("asia", n_interventions=2, kind="perfect", random_state=0)
    >>> [(name, targets, net.parents[net.names.index(targets[0])] if targets else None)
    ...  for name, targets, net in tasks]
    [('observational', (), None), ('do-either', ('either',), ()), ('do-dysp', ('dysp',), ())]
    """
    check_option("kind", kind, INTERVENTION_KINDS)
    net = load_network(network) if isinstance(network, str) else network
    rng = check_random_state(random_state)
    linked = [v for v in range(net.n_vars) if (net.parents[v] and kind != "activity")
              or any(v in ps for ps in net.parents)]
    if isinstance(n_interventions, bool) or not isinstance(n_interventions, (int, np.integer)) \
            or not 1 <= n_interventions <= len(linked):
        raise error("bench-interventions", value=n_interventions, n=len(linked))
    tasks = [("observational", (), net)]
    for v in rng.choice(linked, size=int(n_interventions), replace=False):
        v = int(v)
        parents = list(net.parents)
        if kind == "activity":
            cpts = _activity_cpts(net, v, int(rng.integers(len(net.states[v]))))
        else:
            if kind == "perfect":
                parents[v] = ()
            cpts = random_cpts(net, rng, variables=[v], parents=parents)
        name = net.names[v]
        tasks.append((f"do-{name}", (name,), BayesianNetwork(net.names, net.states, parents, cpts)))
    return tasks


def _activity_cpts(net, target, state):
    """``net``'s CPTs with each child of ``target`` given, whatever the target's value, its rows at ``state``."""
    seen = np.eye(len(net.states[target]))[state]
    return [mixed_over_parent(cpt, ps.index(target), seen) if target in ps else cpt
            for cpt, ps in zip(net.cpts, net.parents)]


register("networks-unrelated-tasks", InvalidParameterError,
         "networks-unrelated has at most {n} tasks (one per network); got n_tasks={value!r}.",
         cause="Each task of networks-unrelated comes from its own shipped network; more tasks would repeat one.",
         fix="Ask for at most that many tasks.")
register("bench-interventions", InvalidParameterError,
         "n_interventions must be an integer from 1 to {n} (the variables with a parent or a child); got {value!r}.",
         cause="More single-variable interventions than there are variables to intervene on, or not a count.",
         fix="Ask for fewer interventions.")


def _random_structure(net, rng):
    """A random DAG over ``net``'s variables with as many edges (at most 4 parents a node): its parent sets."""
    parents, _ = _change_component(net, list(net.parents), list(net.cpts), list(range(net.n_vars)), rng)
    return parents


def _marginal_network(net, rng, marginals, concentration=10.0):
    """An independent random network over ``net``'s variables whose CPT rows centre on each variable's
    ``marginals[v]`` (Dirichlet(concentration * marginal)): the structure is its own, the marginals shared."""
    parents = _random_structure(net, rng)
    cpts = []
    for v in range(net.n_vars):
        q = int(np.prod([net.arities[p] for p in parents[v]], dtype=np.int64))
        alpha = np.maximum(concentration * np.asarray(marginals[v], dtype=float), 1e-3)
        cpts.append(rng.dirichlet(alpha, size=q).reshape(tuple(int(net.arities[p]) for p in parents[v])
                                                          + (int(net.arities[v]),)))
    return BayesianNetwork(net.names, net.states, parents, cpts)


def _shared_row_networks(net, n_tasks, rng):
    """Independent random networks over ``net``'s variables, one CPT per (variable, parent set): tasks whose
    parent sets of a variable coincide share its CPT, nothing else."""
    table = {}
    nets = []
    for _ in range(n_tasks):
        parents = _random_structure(net, rng)
        cpts = []
        for v in range(net.n_vars):
            key = (v, parents[v])
            if key not in table:
                shape = tuple(int(net.arities[p]) for p in parents[v]) + (int(net.arities[v]),)
                table[key] = rng.dirichlet(np.ones(shape[-1]), size=int(np.prod(shape[:-1], dtype=np.int64)))\
                    .reshape(shape)
            cpts.append(table[key])
        nets.append(BayesianNetwork(net.names, net.states, parents, cpts))
    return nets


def _renamed_subnetwork(name, m):
    """The first ``m`` variables of network ``name`` in a topological order (an ancestral set: the sub-network
    with their CPTs is their exact marginal), renamed ``v0, v1, ...`` with states ``s0, s1, ...``."""
    from mtbn.graph import topological_order

    net = load_network(name)
    keep = list(topological_order([set(p) for p in net.parents]))[:m]
    position = {v: i for i, v in enumerate(keep)}
    return BayesianNetwork([f"v{i}" for i in range(len(keep))],
                           [tuple(f"s{j}" for j in range(len(net.states[v]))) for v in keep],
                           [tuple(sorted(position[p] for p in net.parents[v])) for v in keep],
                           [np.moveaxis(net.cpts[v], range(len(net.parents[v])),
                                        np.argsort(np.argsort([position[p] for p in net.parents[v]])))
                            if net.parents[v] else net.cpts[v] for v in keep])


def mixed_unrelated(n_tasks):
    """How many of the ``n_tasks`` tasks of a ``*-mixed`` or ``*-lookalike`` problem are unrelated (the last
    ones): 2 of 5.

    Parameters
    ----------
    n_tasks : int
        The number of tasks of the problem.

    Returns
    -------
    int
        ``max(1, 2 * n_tasks // 5)`` when there are at least two tasks, else 0.
    """
    return max(1, (2 * n_tasks) // 5) if n_tasks > 1 else 0


def relabel(network, perm):
    """``network`` with variable ``v`` renamed to ``network.names[perm[v]]`` (structure and CPTs kept).

    Parameters
    ----------
    network : BayesianNetwork
        The network to rename.
    perm : sequence of int
        A permutation of ``range(network.n_vars)``: variable ``v`` takes the name of variable ``perm[v]``.

    Returns
    -------
    BayesianNetwork
        A new network with the renamed variables and ``network``'s states, parent indices and CPTs.
    """
    return BayesianNetwork([network.names[int(p)] for p in perm], network.states, network.parents, network.cpts)
