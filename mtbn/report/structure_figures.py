"""Figures of learned structures on one shared layout.

The principal's learned structure against its single-task structure, the
structures of clustered tasks, and every task of a multitask fit coloured by
how many tasks share each edge. Node positions come from one layered layout
over the union of the edges (sources on top, as Graphviz's dot draws a DAG),
scaled so that labels never overlap, so that panels can be compared by eye.

matplotlib and networkx are imported inside the functions only.
"""

import math
from dataclasses import dataclass

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.graph import nodes_and_edges
from mtbn.messages import error, register
from mtbn.metrics import shared_edges
from mtbn.report.figures import _BLUE, _GREEN, _GREY, _ORANGE, _RED, _figure, _png, _tex, _wrapped
from mtbn.report.structures import _cluster_members, _tasks_with_edge, compare_structures

register("strength-type", InvalidParameterError,
         "strength of task {task!r} must map (from, to) pairs to numbers, or be a table with columns from, to "
         "and strength (BootstrapResult.strength); got {kind}.",
         cause="plot_tasks(strength=...) was given something it cannot read edge strengths from.",
         fix="Pass the BootstrapResult itself, {task: result.strength(task)}, or {task: {(u, v): value}}.")
register("strength-range", InvalidParameterError,
         "strength of edge {edge} in task {task!r} must be in [0, 1]; got {value!r}.",
         cause="An edge strength is a frequency: a number from 0 to 1.",
         fix="Pass bootstrap frequencies (BootstrapResult.strength) or other values scaled to [0, 1].")

#: Line widths of :func:`plot_tasks` with ``strength``: 0.4 at strength 0 to 3.4 at strength 1.
_WIDTH_AT_0, _WIDTH_SPAN = 0.4, 3.0

__all__ = ["plot_network_comparison", "plot_cluster_structures", "plot_tasks", "plot_mechanisms"]

_CLUSTER_PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#edc948", "#ff9da7",
                    "#9c755f")


# ---------------------------------------------------------------------------
# Layout and drawing
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """Node positions in inches on a panel, and the label size that keeps every label apart.

    ``width`` and ``height`` are the extent of the positions (inches),
    ``font`` the label size in points; each node is drawn as its label in a
    rounded box, edges end at the boxes.
    """

    pos: dict
    width: float
    height: float
    font: float
    step: float  # inches between neighbouring nodes of a layer (the widest label's box and a gap)

    def panel(self, extra=0.5):
        """The inches ``(width, height)`` of one panel at this layout (``extra``: the title)."""
        return (max(self.width + self.step + 0.2, 2.5), self.height + 0.8 + extra)


#: The widest panel drawn (inches): a wider layout gets a smaller font, down to 5 points.
_MAX_PANEL = 16.0
#: The widest row of panels (inches).
_MAX_FIGURE = 22.0
#: Labels longer than this many characters count as this long when spacing the nodes (they may then touch).
_LONGEST_LABEL_CAP = 16


def _acyclic(nodes, edges):
    """A DAG over ``nodes`` from ``edges`` (tasks may disagree on directions): each edge in the order given,
    left out when it would close a cycle with those already in."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    for u, v in edges:
        if u != v and not g.has_edge(u, v) and not (v in g and nx.has_path(g, v, u)):
            g.add_edge(u, v)
    return g


def _layers(g, order):
    """Layers of a DAG: the longest path from the sources, then every source moved down to just above its
    highest child (so that roots do not crowd the top row), each layer ordered by barycentre sweeps to cut
    crossings (the first steps of Sugiyama's method, as Graphviz's dot draws a DAG)."""
    import networkx as nx

    layer = {}
    for v in nx.topological_sort(g):
        layer[v] = max((layer[u] + 1 for u in g.predecessors(v)), default=0)
    for v in g:
        if g.in_degree(v) == 0 and g.out_degree(v) > 0:
            layer[v] = min(layer[c] for c in g.successors(v)) - 1
    rows = [[] for _ in range(max(layer.values(), default=-1) + 1)]
    for v in sorted(layer, key=order.get):
        rows[layer[v]].append(v)
    place = {v: i for row in rows for i, v in enumerate(row)}
    for sweep in range(8):  # down (parents fix the order), then up (children), alternately
        down = sweep % 2 == 0
        for row in (rows[1:] if down else rows[-2::-1]):
            def centre(v, down=down):
                near = list(g.predecessors(v) if down else g.successors(v))
                return sum(place[u] for u in near) / len(near) if near else place[v]
            row.sort(key=lambda v: (centre(v), place[v]))
            place.update((v, i) for i, v in enumerate(row))
    return rows


def _layout(nodes, edges):
    """One layered layout over ``nodes`` (the union of every panel's ``edges``): each edge pointing down
    where the tasks' directions allow, the nodes of a layer spread evenly and centred, nodes without any edge
    in rows underneath. The spacing follows the longest label, so labels never overlap; a network too wide
    for :data:`_MAX_PANEL` inches gets a smaller font."""
    order = {v: i for i, v in enumerate(nodes)}
    g = _acyclic(nodes, edges)
    linked = [v for v in nodes if g.degree(v) > 0]
    rows = _layers(g.subgraph(linked), order) if linked else []
    singles = [v for v in nodes if g.degree(v) == 0]
    widest = max([len(r) for r in rows] + [1])
    if singles:
        per_row = max(widest, math.ceil(math.sqrt(len(singles))))
        rows += [singles[i:i + per_row] for i in range(0, len(singles), per_row)]
    widest = max(len(r) for r in rows) if rows else 1
    longest = min(max((len(str(v)) for v in nodes), default=1), _LONGEST_LABEL_CAP)
    for font in (9.0, 8.0, 7.0, 6.0, 5.0):
        dx = (0.6 * font * longest + 0.8 * font) / 72 + 0.2  # a label's box and a gap, in inches
        if dx * widest <= _MAX_PANEL:
            break
    dy = 3.2 * font / 72 + 0.25
    pos = {}
    for y, row in enumerate(rows):
        for i, v in enumerate(row):
            pos[v] = np.array([(i - (len(row) - 1) / 2) * dx, -y * dy])
    return _Layout(pos, (widest - 1) * dx, max(len(rows) - 1, 0) * dy, font, dx)


def _draw_structure(ax, nodes, layout, groups, title, fills=None):
    """Draw each node as its label in a rounded box (filled with ``fills[node]`` where given) and the groups of
    edges ``(edges, color, style, width)`` as arrows from box to box, on ``ax`` at ``layout``'s positions
    (inches, equal aspect)."""
    boxes = {}
    for v in nodes:
        x, y = layout.pos[v]
        boxes[v] = ax.text(x, y, _tex(v), ha="center", va="center", fontsize=layout.font, zorder=3,
                           bbox=dict(boxstyle="round,pad=0.3", fc=(fills or {}).get(v, "white"), ec="#333333",
                                     lw=0.8))
    from matplotlib.patches import FancyArrowPatch

    for edges, color, style, width in groups:
        for u, v in edges:
            ax.add_patch(FancyArrowPatch(layout.pos[u], layout.pos[v], arrowstyle="-|>", color=color, lw=width,
                                         linestyle=style, shrinkA=1, shrinkB=1, mutation_scale=10, zorder=2,
                                         patchA=boxes[u].get_bbox_patch(), patchB=boxes[v].get_bbox_patch()))
    ax.set_title(_tex(title), fontsize=10)
    ax.set_axis_off()
    half = layout.panel()[0] / 2
    ax.set_xlim(-half, half)
    ax.set_ylim(-layout.height - 0.4, 0.4)
    ax.set_aspect("equal", adjustable="box")


def _panels(n_panels, ncols, layout, extra_height):
    """A new figure with ``n_panels`` axes at ``layout``'s scale, at most ``ncols`` per row and no wider than
    :data:`_MAX_FIGURE` inches (but one panel); returns (figure, list of axes)."""
    w, h = layout.panel()
    cols = max(1, min(ncols, n_panels, int(_MAX_FIGURE // w) or 1))
    rows = max(1, math.ceil(n_panels / cols))
    fig = _figure((cols * w, rows * h + extra_height))
    return fig, list(np.atleast_1d(fig.subplots(rows, cols)).ravel())


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_network_comparison(graph, single_task_graph, title=None):
    """The principal's single-task structure and its learned structure, side by side.

    Both panels use the same layered layout (over the union of the two edge
    sets: edges pointing down where they can, the spacing set by the longest
    label). Left: the single-task structure, with the edges that
    multitask learning removed dashed red. Right: the learned structure,
    with the edges it added in green. Reversed edges are orange in both
    panels (each in its own direction); unchanged edges grey.

    Parameters
    ----------
    graph : DAG
        The principal's learned structure (right panel).
    single_task_graph : DAG
        The principal's single-task structure (left panel), compared by node name.
    title : str, optional
        Figure title above both panels (None: none).

    Returns
    -------
    bytes
        A PNG image.
    """
    from matplotlib.lines import Line2D

    diff = compare_structures(graph, single_task_graph)
    nodes = list(dict.fromkeys(list(single_task_graph.names) + list(graph.names)))
    layout = _layout(nodes, graph.edges(names=True) + single_task_graph.edges(names=True))
    w, h = layout.panel()
    fig = _figure((2 * w, h + 0.6))
    left, right = fig.subplots(1, 2)
    _draw_structure(left, nodes, layout, [
        (diff["unchanged"], _GREY, "solid", 1.4),
        ([(v, u) for u, v in diff["reversed"]], _ORANGE, "solid", 2.2),
        (diff["removed"], _RED, "dashed", 2.2),
    ], f"single-task structure ({single_task_graph.n_edges} edges)")
    _draw_structure(right, nodes, layout, [
        (diff["unchanged"], _GREY, "solid", 1.4),
        (diff["reversed"], _ORANGE, "solid", 2.2),
        (diff["added"], _GREEN, "solid", 2.2),
    ], f"learned with the selected tasks ({graph.n_edges} edges)")
    handles = [
        Line2D([], [], color=_GREY, linewidth=1.4, label=f"unchanged ({len(diff['unchanged'])})"),
        Line2D([], [], color=_GREEN, linewidth=2.2, label=f"added by multitask learning ({len(diff['added'])})"),
        Line2D([], [], color=_RED, linewidth=2.2, linestyle="--",
               label=f"removed by multitask learning ({len(diff['removed'])})"),
        Line2D([], [], color=_ORANGE, linewidth=2.2, label=f"reversed ({len(diff['reversed'])})"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=9, frameon=False)
    if title:
        fig.suptitle(_wrapped(title, int(fig.get_figwidth() * 11)))
    return _png(fig)


def plot_cluster_structures(graphs, labels, *, max_tasks=16):
    """Each task's learned structure on one shared layout, grouped by cluster.

    An edge shared by every task of the task's cluster is grey; an edge that
    only some tasks of the cluster have is drawn in the cluster's colour.
    At most ``max_tasks`` tasks are drawn.

    Parameters
    ----------
    graphs : dict of name -> DAG
        Each task's learned structure.
    labels : dict of name -> int
        Each task's cluster, numbered from 1 (as ``ClusteringResult.labels``); a task missing from it counts as
        cluster 0.
    max_tasks : int, default 16
        Number of panels drawn: the first tasks in cluster order, then in the order of ``graphs``.

    Returns
    -------
    bytes
        A PNG image.
    """
    names = sorted(graphs, key=lambda t: (labels.get(t, 0), list(graphs).index(t)))[:max_tasks]
    nodes = list(dict.fromkeys(v for t in names for v in graphs[t].names))
    layout = _layout(nodes, [e for t in names for e in graphs[t].edges(names=True)])
    shared = {c: shared_edges([graphs[t] for t in ts]) for c, ts in _cluster_members(labels).items()}
    fig, axes = _panels(len(names), 4, layout, 0.3)
    for ax, t in zip(axes, names):
        c = labels.get(t, 0)
        edges = graphs[t].edges(names=True)
        common = [e for e in edges if e in shared.get(c, set())]
        own = [e for e in edges if e not in shared.get(c, set())]
        _draw_structure(ax, nodes, layout, [(common, _GREY, "solid", 1.2),
                                         (own, _CLUSTER_PALETTE[(c - 1) % len(_CLUSTER_PALETTE)], "solid", 2.0)],
                        f"{t} (cluster {c}, {len(edges)} edges)")
    for ax in axes[len(names):]:
        ax.set_axis_off()
    fig.suptitle(_wrapped("Learned structures; grey = shared by every task of the cluster, colour = not shared by all",
                          int(fig.get_figwidth() * 11)),
                 fontsize=10)
    return _png(fig)


def _sharing_groups(edges, count, palette, k, strength):
    """Edge groups ``(edges, colour, style, width)`` of one task of :func:`plot_tasks`."""
    if strength is None:
        return [([e for e in edges if count[e] == c], palette[c], "solid", 2.0 if c < k else 1.2)
                for c in range(1, k + 1)]
    width = {e: _width(strength.get(e, 0.0)) for e in edges}
    return [([e for e in edges if count[e] == c and width[e] == w], palette[c], "solid", w)
            for c in range(1, k + 1) for w in sorted(set(width.values()))]


def _width(value):
    return round(_WIDTH_AT_0 + _WIDTH_SPAN * value, 1)


def _edge_strengths(value, task):
    """``{(from, to): strength}`` of one task from a mapping or a ``from, to, strength`` table."""
    if hasattr(value, "columns"):
        if not {"from", "to", "strength"} <= set(value.columns):
            raise error("strength-type", task=task, kind="a table without columns from, to and strength")
        pairs = zip(zip(value["from"], value["to"]), value["strength"])
    elif hasattr(value, "items"):
        pairs = value.items()
    else:
        raise error("strength-type", task=task, kind=type(value).__name__)
    out = {}
    for edge, v in pairs:
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise error("strength-type", task=task, kind=f"{v!r} for edge {edge!r}") from None
        if not 0.0 <= v <= 1.0:
            raise error("strength-range", task=task, edge=f"{edge[0]} -> {edge[1]}", value=v)
        out[tuple(edge)] = v
    return out


def task_strengths(strength, names):
    """Per task of ``names``, its ``{(from, to): strength}``: from a BootstrapResult or a per-task mapping."""
    if strength is None:
        return None
    if callable(getattr(strength, "strength", None)):  # a BootstrapResult: every task's table
        return {t: _edge_strengths(strength.strength(t), t) for t in names}
    return {t: _edge_strengths(strength.get(t, {}), t) for t in names}


def plot_tasks(graphs, *, axes=None, ncols=4, title=None, strength=None):
    """Every task's structure on one shared layout, each edge coloured by how many tasks have it.

    Parameters
    ----------
    graphs : dict of name -> DAG, networkx.DiGraph or BayesianNetwork
        One structure per task (e.g. ``learner.graphs_``).
    axes : sequence of matplotlib Axes, optional
        One per task, to draw into an existing figure; by default a new
        figure with ``ncols`` panels per row.
    ncols : int, default 4
        Panels per row of the new figure (fewer when the row would be wider than 22 inches); ignored with ``axes``.
    title : str, optional
        Figure title (None: none).
    strength : BootstrapResult or dict of name -> mapping or table, optional
        A confidence in [0, 1] for each edge: a
        :class:`~mtbn.bootstrap.BootstrapResult` (its adjacency frequencies),
        or per task ``{(u, v): value}`` or the table of
        :meth:`mtbn.bootstrap.BootstrapResult.strength` (columns ``from``,
        ``to``, ``strength``). The line width grows with it (0.4 at 0 to 3.4
        at 1; an edge the task's strengths do not list counts as 0), and the
        legend shows the widths of 0, 0.5 and 1.

    Returns
    -------
    matplotlib.figure.Figure
        Dark grey: an edge every task has; from blue to red: edges fewer tasks
        have (red: one task only). Node positions are the same in every panel.
    """
    from matplotlib.lines import Line2D

    names = list(graphs)
    parts = {t: nodes_and_edges(graphs[t]) for t in names}
    nodes = list(dict.fromkeys(v for t in names for v in parts[t][0]))
    count = {e: len(ts) for e, ts in _tasks_with_edge({t: parts[t][1] for t in names}).items()}
    k = len(names)
    # Edges most tasks share decide the layers first (where tasks disagree on a direction).
    layout = _layout(nodes, sorted(count, key=lambda e: -count[e]))
    palette = {c: _RED if c == 1 else _GREY if c == k else (_BLUE, "#76b7b2", "#edc948", _ORANGE)[(c - 2) % 4]
               for c in range(1, k + 1)}
    if axes is None:
        fig, axes = _panels(k, ncols, layout, 0.6)
    else:
        axes = list(axes)
        fig = axes[0].figure
    strengths = task_strengths(strength, names)
    for ax, t in zip(axes, names):
        groups = _sharing_groups(parts[t][1], count, palette, k, None if strengths is None else strengths[t])
        _draw_structure(ax, nodes, layout, groups, f"{t} ({len(parts[t][1])} edges)")
    for ax in axes[k:]:
        ax.set_axis_off()
    handles = [Line2D([], [], color=palette[c], linewidth=2, label=f"in {c} of {k} task(s)")
               for c in sorted(set(count.values()))]
    if strengths is not None:
        handles += [Line2D([], [], color=_GREY, linewidth=_width(v), label=f"strength {v:g}") for v in (0, 0.5, 1)]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5), fontsize=9, frameon=False)
    if title:
        fig.suptitle(_wrapped(title, int(fig.get_figwidth() * 11)))
    return fig


#: Fills of :func:`plot_mechanisms`: a mechanism changed as a given target, and one the search found.
_GIVEN_FILL, _LEARNED_FILL, _ACTIVITY_FILL = "#f6c48b", "#a9c4e4", "#c9e4b4"


def plot_mechanisms(causal_graph, changed, *, ncols=4, title=None):
    """The causal DAG once per task, each task's changed mechanisms filled (interventional conditions).

    Parameters
    ----------
    causal_graph : DAG, networkx.DiGraph or BayesianNetwork
        The DAG the tasks share (``result.interventions.causal_graph``).
    changed : dict
        Per task, ``{variable: "given" | "learned" | "activity"}``
        (``result.interventions.changed``): orange, a given target; blue, a
        mechanism the search found changed; green, a child of a target
        (activity interventions).
    ncols : int, default 4
        Panels per row (fewer when the row would be wider than 22 inches).
    title : str, optional
        Figure title (None: none).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per task of ``changed``, on one shared layout.

    Examples
    --------
    >>> from mtbn.graph import DAG
    >>> g = DAG.from_edges(["pkc", "raf", "mek"], [("pkc", "raf"), ("raf", "mek")])
    >>> fig = plot_mechanisms(g, {"control": {}, "pma": {"pkc": "given", "mek": "learned"}})
    >>> [ax.get_title() for ax in fig.axes]
    ['control (no change)', 'pma (2 changed)']
    """
    from matplotlib.patches import Patch

    nodes, edges = nodes_and_edges(causal_graph)
    layout = _layout(nodes, edges)
    names = list(changed)
    fig, axes = _panels(len(names), ncols, layout, 0.6)
    fill = {"given": _GIVEN_FILL, "learned": _LEARNED_FILL, "activity": _ACTIVITY_FILL}
    for ax, task in zip(axes, names):
        per = changed[task]
        _draw_structure(ax, nodes, layout, [(edges, _GREY, "solid", 1.2)],
                        f"{task} ({len(per)} changed)" if per else f"{task} (no change)",
                        fills={v: fill[how] for v, how in per.items()})
    for ax in axes[len(names):]:
        ax.set_axis_off()
    labels = [(_GIVEN_FILL, "changed: a given target"), (_LEARNED_FILL, "changed: found by the search")]
    if any(how == "activity" for per in changed.values() for how in per.values()):
        labels.append((_ACTIVITY_FILL, "changed: a child of a target (activity)"))
    fig.legend(handles=[Patch(facecolor=f, edgecolor="#333333", label=label) for f, label in labels],
               loc="outside lower center", ncols=len(labels), fontsize=9, frameon=False)
    if title:
        fig.suptitle(_wrapped(title, int(fig.get_figwidth() * 11)))
    return fig
