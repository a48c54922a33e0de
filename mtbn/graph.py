"""Directed acyclic graphs: a small value type, conversions and edit distance.

:class:`DAG` is an immutable graph over integer nodes ``0..n-1`` with
optional variable names; it is what learners return besides networkx
graphs. :class:`SearchGraph` is the mutable state a search works on: a
boolean adjacency matrix plus an ancestor matrix kept up to date after every
move, so that the acyclicity of an addition is one look-up and that of a
reversal a look-up per parent of the child (no path enumeration).

Edges are always ``(parent, child)``. Functions here do not check that node
indices are in range.
"""

import numpy as np

from mtbn._validation import check_option
from mtbn.exceptions import CycleError, InvalidParameterError
from mtbn.messages import error, register

__all__ = [
    "DAG",
    "GRAPH_FORMATS",
    "SearchGraph",
    "edit_distance",
    "nodes_and_edges",
    "essential_graph",
    "cpdag_distance",
    "edge_states",
    "topological_order",
    "partial_topological_order",
    "REVERSAL_COSTS",
]

#: File formats of :meth:`DAG.write` (by extension).
GRAPH_FORMATS = ("dot", "gv", "gml", "json", "graphml", "csv")

register("graph-format", InvalidParameterError, "cannot tell the graph format of {path!r}: give one of {formats}.",
         cause="The file name's extension is not a graph format mtbn writes.",
         fix="End the file name with .dot, .gml, .json, .graphml or .csv.")

register("graph-cycle-node", CycleError, "the graph has the directed cycle {cycle}.",
         cause="The parent sets given describe a graph in which some node is, through its parents, its own ancestor.",
         fix="Remove or reverse an edge on the cycle named so that the graph is acyclic.")
register("graph-names-count", InvalidParameterError, "names has {n_names} entries for {n} nodes.",
         cause="The list of node names is longer or shorter than the list of parent sets.",
         fix="Pass exactly one name per node, in node order.")
register("graph-parent-set", InvalidParameterError, "node {name!r} has an invalid parent set.",
         cause="A parent set lists the node itself or an index outside 0 .. n-1.",
         fix="Give each node parents that are other nodes of the graph, by index from 0 to n-1.")
register("graph-not-dag", CycleError, "the graph is not a DAG: it has the directed cycle {cycle}.",
         cause="The parent sets or edges given form a directed cycle.",
         fix="Remove or reverse an edge on the cycle so that the graph is acyclic.")
register("graph-edge-unknown-node", InvalidParameterError, "edge ({u!r}, {v!r}) names unknown node {node!r}.",
         cause="An edge refers by name to a node that is not among the graph's names.",
         fix="Spell the edge's endpoints exactly as the node names (case-sensitive), or add the node to the names.")
register("graph-node-not-variable", InvalidParameterError, "graph node {node!r} is not a variable.",
         cause="The networkx graph has a node that is not in the list of variable names given.",
         fix="Remove the node from the graph, or include it in the names passed.")

#: How many edits an edge reversal counts as.
REVERSAL_COSTS = {"single": 1, "double": 2}


def partial_topological_order(parents):
    """Kahn's algorithm taking the smallest ready node first.

    Returns every node of an acyclic graph; with a cycle, only the nodes
    not on or below a cycle (so ``len(order) < len(parents)`` tells).

    Parameters
    ----------
    parents : sequence of iterables of int
        ``parents[v]`` holds the indices of node ``v``'s parents (nodes ``0 .. len(parents) - 1``).

    Returns
    -------
    list of int
        Node indices, each after all its parents, the smallest ready node first; the nodes on or below a
        cycle are left out.
    """
    import heapq

    n = len(parents)
    children = [[] for _ in range(n)]
    indeg = [0] * n
    for v, pa in enumerate(parents):
        for p in pa:
            children[p].append(v)
            indeg[v] += 1
    ready = [v for v in range(n) if indeg[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for c in children[v]:
            indeg[c] -= 1
            if indeg[c] == 0:
                heapq.heappush(ready, c)
    return order


def topological_order(parents):
    """A topological order of the graph given as parent sets (smallest first).

    Parameters
    ----------
    parents : sequence of iterables of int
        ``parents[v]`` holds the indices of node ``v``'s parents (nodes ``0 .. len(parents) - 1``).

    Returns
    -------
    list of int
        Every node index once, each after all its parents; among the nodes ready at a step, the smallest first.

    Raises
    ------
    CycleError
        If the graph has a directed cycle.
    """
    order = partial_topological_order(parents)
    if len(order) != len(parents):
        raise error("graph-cycle-node", cycle=cycle_text(find_cycle(parents, order)))
    return order


def find_cycle(parents, order=None):
    """The nodes of one directed cycle ``[a, b, ..., a]`` (each a parent of the next), or [] for a DAG.

    ``order``: :func:`partial_topological_order` of ``parents`` if already
    computed. Every node it leaves out has a parent it also leaves out, so
    walking up from the smallest such node must close a cycle.

    >>> find_cycle([{2}, {0}, {1}])
    [0, 1, 2, 0]
    """
    left = set(range(len(parents))) - set(partial_topological_order(parents) if order is None else order)
    if not left:
        return []
    path, seen = [min(left)], {}
    while path[-1] not in seen:
        seen[path[-1]] = len(path) - 1
        path.append(min(p for p in parents[path[-1]] if p in left))
    return path[seen[path[-1]]:][::-1]


def cycle_text(cycle, names=None):
    """``a -> b -> a`` with node names (indices without ``names``)."""
    return " -> ".join(str(v) if names is None else str(names[v]) for v in cycle)


class DAG:
    """An immutable directed acyclic graph over nodes ``0..n-1``.

    Parameters
    ----------
    parents : sequence of iterables of int
        ``parents[v]`` is the set of parents of node ``v``.
    names : sequence of str, optional
        Node names (default ``"0", "1", ...``).

    Raises
    ------
    CycleError
        If the graph has a directed cycle.

    Examples
    --------
    Rain makes the sprinkler less likely to run, and both wet the grass:
    node 2 (``wet``) has the parents 0 and 1.

    >>> g = DAG([[], [0], [0, 1]], names=["rain", "sprinkler", "wet"])
    >>> g
    DAG(n_nodes=3, n_edges=3)
    >>> g.edges()
    [('rain', 'sprinkler'), ('rain', 'wet'), ('sprinkler', 'wet')]
    >>> g.edges(names=False), g.has_edge(0, 2), g.has_edge(2, 0)
    ([(0, 1), (0, 2), (1, 2)], True, False)

    The same graph from ``(parent, child)`` names; DAGs compare by parents
    and names:

    >>> DAG.from_edges(["rain", "sprinkler", "wet"],
    ...                [("rain", "sprinkler"), ("rain", "wet"), ("sprinkler", "wet")]) == g
    True
    >>> g.adjacency().astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """

    __slots__ = ("_parents", "_names")

    def __init__(self, parents, names=None):
        self._parents = tuple(frozenset(int(p) for p in pa) for pa in parents)
        n = len(self._parents)
        self._names = tuple(str(x) for x in names) if names is not None else tuple(str(i) for i in range(n))
        if len(self._names) != n:
            raise error("graph-names-count", n_names=len(self._names), n=n)
        for v, pa in enumerate(self._parents):
            if v in pa or any(p < 0 or p >= n for p in pa):
                raise error("graph-parent-set", name=self._names[v])
        try:
            topological_order(self._parents)
        except CycleError:
            raise error("graph-not-dag", cycle=cycle_text(find_cycle(self._parents), self._names)) from None

    # construction -------------------------------------------------------
    @classmethod
    def from_edges(cls, names, edges):
        """A DAG over ``names`` from ``(parent, child)`` pairs of names or indices."""
        names = tuple(str(x) for x in names)
        index = {n: i for i, n in enumerate(names)}
        parents = [set() for _ in names]
        for u, v in edges:
            try:
                ui = index[u] if isinstance(u, str) else int(u)
                vi = index[v] if isinstance(v, str) else int(v)
            except KeyError as exc:
                raise error("graph-edge-unknown-node", u=u, v=v, node=exc.args[0]) from None
            parents[vi].add(ui)
        return cls(parents, names)

    @classmethod
    def from_networkx(cls, graph, names=None):
        """A DAG from a ``networkx.DiGraph``; ``names`` fixes the node order."""
        names = tuple(str(x) for x in (names if names is not None else graph.nodes))
        extra = set(str(x) for x in graph.nodes) - set(names)
        if extra:
            raise error("graph-node-not-variable", node=sorted(extra)[0])
        return cls.from_edges(names, [(str(u), str(v)) for u, v in graph.edges])

    @classmethod
    def empty(cls, names):
        names = tuple(names)
        return cls([()] * len(names), names)

    # access -------------------------------------------------------------
    @property
    def parents(self):
        """Tuple of frozensets of parent indices."""
        return self._parents

    @property
    def names(self):
        return self._names

    @property
    def n_nodes(self):
        return len(self._parents)

    @property
    def n_edges(self):
        return sum(len(p) for p in self._parents)

    def edges(self, names=True):
        """Sorted list of ``(parent, child)`` edges (names or indices).

        Parameters
        ----------
        names : bool, default True
            Give the edges by node name; False gives them by node index.

        Returns
        -------
        list of tuple
            The ``(parent, child)`` pairs, as ``str`` names or ``int`` indices, sorted by the indices
            (parent first, then child).
        """
        out = sorted((p, v) for v, pa in enumerate(self._parents) for p in pa)
        if names:
            return [(self._names[p], self._names[v]) for p, v in out]
        return out

    def has_edge(self, u, v):
        return u in self._parents[v]

    def adjacency(self):
        """Boolean matrix ``A[u, v]`` = edge u -> v.

        Returns
        -------
        ndarray of bool, shape (n_nodes, n_nodes)
            ``A[u, v]`` is True when ``u`` is a parent of ``v`` (node indices).
        """
        a = np.zeros((self.n_nodes, self.n_nodes), dtype=bool)
        for v, pa in enumerate(self._parents):
            a[list(pa), v] = True
        return a

    def to_networkx(self):
        """A ``networkx.DiGraph`` with every node (by name) and edge.

        Returns
        -------
        networkx.DiGraph
            A new graph whose nodes are the node names, in node order, and whose edges are the
            ``(parent, child)`` name pairs.
        """
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(self._names)
        g.add_edges_from(self.edges(names=True))
        return g

    def to_dot(self, name="G"):
        """The graph in Graphviz DOT (a ``digraph``; every node, then every edge, names quoted).

        Parameters
        ----------
        name : str, default "G"
            The name written after ``digraph`` (quoted and escaped like the node names).

        Returns
        -------
        str
            The DOT text, one statement a line, without a final newline.

        Examples
        --------
        >>> print(DAG.from_edges(["a", "b c"], [("a", "b c")]).to_dot())
        digraph "G" {
          "a";
          "b c";
          "a" -> "b c";
        }
        """
        def q(text):
            return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'

        lines = [f"digraph {q(name)} {{"]
        lines += [f"  {q(v)};" for v in self._names]
        lines += [f"  {q(u)} -> {q(v)};" for u, v in self.edges(names=True)]
        return "\n".join(lines + ["}"])

    def write(self, path):
        """Write the graph to ``path`` in the format its extension names.

        ``.dot`` / ``.gv`` (Graphviz), ``.gml`` (networkx's GML writer),
        ``.json`` (networkx's node-link form: ``{"nodes": [{"id": ...}], "edges":
        [{"source": ..., "target": ...}]}``; ``networkx.node_link_graph(data, edges="edges")`` reads it),
        ``.graphml`` (networkx), ``.csv`` (``source,target`` rows).

        Parameters
        ----------
        path : str or path-like
            The file to write (replaced if it exists); its extension, case-insensitive, picks the format from
            :data:`GRAPH_FORMATS`. Another extension raises :class:`mtbn.exceptions.InvalidParameterError`.
        """
        import json

        import networkx as nx

        ext = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else ""
        if ext in ("dot", "gv"):
            text = self.to_dot()
        elif ext == "gml":
            text = "\n".join(nx.generate_gml(self.to_networkx()))
        elif ext == "json":
            data = {"directed": True, "multigraph": False, "graph": {},
                    "nodes": [{"id": v} for v in self._names],
                    "edges": [{"source": u, "target": v} for u, v in self.edges(names=True)]}
            text = json.dumps(data, indent=1)
        elif ext == "graphml":
            nx.write_graphml(self.to_networkx(), path)
            return
        elif ext == "csv":
            import csv
            import io

            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["source", "target"])
            w.writerows(self.edges(names=True))
            text = buf.getvalue().rstrip("\n")
        else:
            raise error("graph-format", path=str(path), formats=", ".join(GRAPH_FORMATS))
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")

    def __eq__(self, other):
        return isinstance(other, DAG) and self._parents == other._parents and self._names == other._names

    def __hash__(self):
        return hash((self._parents, self._names))

    def __repr__(self):
        return f"DAG(n_nodes={self.n_nodes}, n_edges={self.n_edges})"


def nodes_and_edges(graph):
    """``(nodes, edges)`` by name of any structure: a DAG, a networkx or pgmpy graph, a network, or edge pairs.

    Nodes in the structure's own order (for edge pairs: order of first
    appearance); edges as ``(parent, child)`` strings.

    Parameters
    ----------
    graph : DAG, networkx or pgmpy graph, network, or iterable of (parent, child)
        The structure: a :class:`DAG`, anything with callable ``nodes()`` and ``edges()`` (networkx, pgmpy),
        anything with ``names`` and ``parents[v]`` parent indices (an mtbn network), or the edges themselves.

    Returns
    -------
    nodes : list of str
        The node names. For edge pairs, only the nodes that appear in an edge.
    edges : list of tuple of str
        The ``(parent, child)`` edges by name, in the order the structure lists them (a DAG's sorted).

    Examples
    --------
    >>> nodes_and_edges([("a", "b"), ("c", "b")])
    (['a', 'b', 'c'], [('a', 'b'), ('c', 'b')])
    """
    if isinstance(graph, DAG):
        return list(graph.names), graph.edges(names=True)
    if hasattr(graph, "nodes") and hasattr(graph, "edges") and callable(graph.nodes):
        return [str(v) for v in graph.nodes()], [(str(u), str(v)) for u, v in graph.edges()]
    if hasattr(graph, "names") and hasattr(graph, "parents"):
        names = list(graph.names)
        return names, [(names[p], names[v]) for v, ps in enumerate(graph.parents) for p in ps]
    edges = [(str(u), str(v)) for u, v in graph]
    return list(dict.fromkeys(x for e in edges for x in e)), edges


def _as_name_adjacency(graph):
    """(set of names, set of edges by name) of any structure (see :func:`nodes_and_edges`)."""
    nodes, edges = nodes_and_edges(graph)
    return set(nodes), set(edges)


def edge_states(graph, pairs):
    """Edge state of each unordered pair: 0 none, 1 ``i -> j``, 2 ``j -> i``.

    Parameters
    ----------
    graph : DAG, networkx.DiGraph or iterable of (parent, child)
        The structure to read (any form :func:`nodes_and_edges` takes); its edges are matched by node name.
    pairs : iterable of (str, str)
        The node pairs ``(i, j)``, by name; a name the graph lacks gives state 0.

    Returns
    -------
    list of int
        One state per pair, in the order of ``pairs``.
    """
    _, edges = _as_name_adjacency(graph)
    return [1 if (i, j) in edges else 2 if (j, i) in edges else 0 for i, j in pairs]


def edit_distance(g1, g2, *, reversal="single"):
    """Edge additions + deletions + reversals that turn ``g1`` into ``g2``.

    The paper's structural distance (footnote 6; the SHD of Tsamardinos et
    al. on DAGs): every unordered node pair whose edge differs costs one
    edit, except a reversed edge, which costs ``REVERSAL_COSTS[reversal]``
    (1 by default, 2 with ``reversal="double"``).

    Parameters
    ----------
    g1, g2 : DAG, networkx.DiGraph or iterable of (parent, child)
        Graphs are matched by node name.
    reversal : {"single", "double"}, default "single"
        Whether a reversed edge counts as one edit or as two (a deletion and an addition).

    Returns
    -------
    int
        The number of edits (reversals weighted by ``reversal``).

    Examples
    --------
    >>> edit_distance([("a", "b"), ("b", "c")], [("b", "a"), ("a", "c")])
    3
    """
    check_option("reversal", reversal, REVERSAL_COSTS)
    cost = REVERSAL_COSTS[reversal]
    _, e1 = _as_name_adjacency(g1)
    _, e2 = _as_name_adjacency(g2)
    pairs = {frozenset(e) for e in e1 | e2}
    total = 0
    for pair in pairs:
        a, b = sorted(pair)
        s1 = 1 if (a, b) in e1 else 2 if (b, a) in e1 else 0
        s2 = 1 if (a, b) in e2 else 2 if (b, a) in e2 else 0
        if s1 != s2:
            total += cost if (s1 and s2) else 1
    return total


def essential_graph(graph):
    """The CPDAG (essential graph) of a DAG: its compelled edges and its reversible ones.

    Two DAGs are Markov equivalent (the data cannot tell them apart) exactly
    when they have the same CPDAG. An edge is compelled when every DAG of the
    class orients it the same way; it is found by orienting the v-structures
    ``a -> c <- b`` (``a``, ``b`` not adjacent) and closing under Meek's
    rules 1-3 (Meek 1995; rule 4 cannot fire from a DAG's v-structures).

    Parameters
    ----------
    graph : DAG, networkx.DiGraph or iterable of (parent, child)
        The DAG (any form :func:`nodes_and_edges` takes); it is assumed acyclic, and edges are read by node name.

    Returns
    -------
    directed : set of (parent, child)
        Compelled edges, by node name.
    undirected : set of frozenset
        Reversible edges (node-name pairs).
    """
    _, edges = _as_name_adjacency(graph)
    adj = {}
    for u, v in edges:
        adj.setdefault(u, set()).add(v)
        adj.setdefault(v, set()).add(u)
    parents = {}
    for u, v in edges:
        parents.setdefault(v, set()).add(u)
    directed = set()
    for c, pa in parents.items():
        for a in pa:
            for b in pa:
                if a < b and b not in adj[a]:
                    directed |= {(a, c), (b, c)}
    undirected = {frozenset(e) for e in edges if e not in directed}

    def is_undirected(a, b):
        return frozenset((a, b)) in undirected

    changed = True
    while changed:
        changed = False
        for pair in sorted(undirected, key=sorted):
            x, y = sorted(pair)
            for a, b in ((x, y), (y, x)):
                # Rule 1: c -> a - b, c and b not adjacent  =>  a -> b.
                r1 = any((c, a) in directed and b not in adj[c] for c in adj[a] if c != b)
                # Rule 2: a -> c -> b and a - b  =>  a -> b.
                r2 = any((a, c) in directed and (c, b) in directed for c in adj[a] & adj[b])
                # Rule 3: a - c -> b, a - d -> b, c and d not adjacent, a - b  =>  a -> b.
                cs = [c for c in adj[a] & adj[b] if is_undirected(a, c) and (c, b) in directed]
                r3 = any(d not in adj[c] for i, c in enumerate(cs) for d in cs[i + 1:])
                if r1 or r2 or r3:
                    undirected.discard(pair)
                    directed.add((a, b))
                    changed = True
                    break
    return directed, undirected


def cpdag_distance(g1, g2):
    """Structural Hamming distance between the CPDAGs of two DAGs.

    Every unordered node pair whose mark differs between the two essential
    graphs (none, ``a -> b``, ``b -> a``, or ``a - b``) costs one. Unlike
    :func:`edit_distance`, a reversal inside a Markov equivalence class,
    which no amount of data can decide, costs nothing. Graphs are matched by
    node name.

    Parameters
    ----------
    g1, g2 : DAG, networkx.DiGraph or iterable of (parent, child)
        The two DAGs (any form :func:`nodes_and_edges` takes), matched by node name.

    Returns
    -------
    int
        The number of unordered node pairs whose CPDAG marks differ.

    Examples
    --------
    >>> cpdag_distance([("a", "b")], [("b", "a")])
    0
    >>> cpdag_distance([("a", "c"), ("b", "c")], [("c", "a"), ("b", "c")])
    2
    """
    marks = []
    for g in (g1, g2):
        directed, undirected = essential_graph(g)
        m = {frozenset(e): e for e in directed}
        m.update({e: "-" for e in undirected})
        marks.append(m)
    return sum(marks[0].get(p) != marks[1].get(p) for p in set(marks[0]) | set(marks[1]))


class SearchGraph:
    """Mutable DAG state for search: adjacency plus a maintained ancestor matrix.

    ``adj[u, v]`` is the edge u -> v; ``anc[v, u]`` is True when ``u`` is a
    proper ancestor of ``v``. Adding ``u -> v`` is acyclic iff
    ``not anc[u, v]``; reversing ``u -> v`` is acyclic iff no other parent
    of ``v`` has ``u`` as an ancestor. The moves assume they are legal.

    Parameters
    ----------
    parents : sequence of iterables of int
        ``parents[v]`` holds the indices of node ``v``'s parents; the graph must be acyclic (else
        :class:`mtbn.exceptions.CycleError`). The sets are copied.
    """

    __slots__ = ("n", "adj", "anc", "parents")

    def __init__(self, parents):
        self.n = len(parents)
        self.parents = [set(pa) for pa in parents]
        self.adj = np.zeros((self.n, self.n), dtype=bool)
        for v, pa in enumerate(self.parents):
            self.adj[list(pa), v] = True
        self.anc = np.zeros((self.n, self.n), dtype=bool)
        self._recompute_ancestors()

    def copy(self):
        new = SearchGraph.__new__(SearchGraph)
        new.n = self.n
        new.parents = [set(p) for p in self.parents]
        new.adj = self.adj.copy()
        new.anc = self.anc.copy()
        return new

    def _recompute_ancestors(self):
        anc = self.anc
        anc[:] = False
        for v in topological_order(self.parents):
            for p in self.parents[v]:
                anc[v] |= anc[p]
                anc[v, p] = True

    def can_add(self, u, v):
        return u != v and not self.adj[u, v] and not self.anc[u, v]

    def can_reverse(self, u, v):
        """Whether the existing edge ``u -> v`` can be reversed.

        Parameters
        ----------
        u : int
            The edge's parent (index); the edge ``u -> v`` is assumed to exist.
        v : int
            The edge's child (index).

        Returns
        -------
        bool
            True when reversing the edge keeps the graph acyclic: no other parent of ``v`` has ``u`` as an
            ancestor.
        """
        anc_u = self.anc[:, u]
        return not any(anc_u[p] for p in self.parents[v] if p != u)

    def add(self, u, v):
        self.adj[u, v] = True
        self.parents[v].add(u)
        rows = self.anc[:, v].copy()
        rows[v] = True
        gain = self.anc[u].copy()
        gain[u] = True
        self.anc[rows] |= gain

    def remove(self, u, v):
        self.adj[u, v] = False
        self.parents[v].discard(u)
        # Only v and its descendants can lose ancestors; the descendants are
        # the same after the removal. Their rows are rebuilt from their
        # parents' rows in an order where ancestors come first: by the
        # number of ancestors before the removal (an ancestor has fewer,
        # and no ancestry is created by removing an edge).
        below = np.flatnonzero(self.anc[:, v])
        order = below[np.argsort(self.anc[below].sum(axis=1), kind="stable")]
        anc = self.anc
        for w in (v, *order.tolist()):
            row = np.zeros(self.n, dtype=bool)
            for p in self.parents[w]:
                row |= anc[p]
                row[p] = True
            anc[w] = row

    def reverse(self, u, v):
        self.remove(u, v)
        self.add(v, u)

    def to_dag(self, names=None):
        return DAG(self.parents, names)
