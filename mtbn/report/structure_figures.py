"""Figures of learned structures on one shared layout.

The principal's learned structure against its single-task structure, the
structures of clustered tasks, and every task of a multitask fit coloured by
how many tasks share each edge. Node positions come from one layout over the
union of the edges, so that panels can be compared by eye.

matplotlib and networkx are imported inside the functions only.
"""

import math

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.graph import nodes_and_edges
from mtbn.messages import error, register
from mtbn.metrics import shared_edges
from mtbn.report.figures import _BLUE, _GREEN, _GREY, _ORANGE, _RED, _figure, _png, _tex
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

__all__ = ["plot_network_comparison", "plot_cluster_structures", "plot_tasks"]

_CLUSTER_PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#edc948", "#ff9da7",
                    "#9c755f")


# ---------------------------------------------------------------------------
# Layout and drawing
# ---------------------------------------------------------------------------


def _layout(nodes, edges):
    """A fixed layout over ``nodes``: Kamada-Kawai per connected component of the undirected union of
    ``edges``, components side by side (largest first), isolated nodes in rows underneath."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    order = {v: i for i, v in enumerate(nodes)}
    comps = sorted((sorted(c, key=order.get) for c in nx.connected_components(g)),
                   key=lambda c: (-len(c), order[c[0]]))
    pos, x0, bottom = {}, 0.0, 0.0
    for comp in (c for c in comps if len(c) > 1):
        sub = g.subgraph(comp)
        p = nx.kamada_kawai_layout(sub) if len(comp) > 2 else nx.circular_layout(sub)
        p = nx.rescale_layout_dict(p, scale=max(1.0, math.sqrt(len(comp)) * 0.75))
        xs = [xy[0] for xy in p.values()]
        ys = [xy[1] for xy in p.values()]
        for v, (x, y) in p.items():
            pos[v] = np.array([x - min(xs) + x0, y])
        x0 += max(xs) - min(xs) + 1.0
        bottom = min(bottom, min(ys))
    singles = [c[0] for c in comps if len(c) == 1]
    if singles:
        width = max(x0 - 1.0, math.sqrt(len(singles)) * 1.5, 1.0)
        per_row = max(1, int(width) + 1)
        for i, v in enumerate(singles):
            pos[v] = np.array([(i % per_row) * (width / max(per_row - 1, 1)) if per_row > 1 else 0.0,
                               bottom - 1.0 - (i // per_row)])
    return pos


def _draw_structure(ax, nodes, pos, groups, title):
    """Draw nodes and groups of edges ``(edges, color, style, width)`` on ``ax``."""
    import networkx as nx

    n = len(nodes)
    node_size = 900 if n <= 12 else 500 if n <= 25 else 300
    font = 9 if n <= 12 else 7 if n <= 25 else 6
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    for edges, _, _, _ in groups:
        g.add_edges_from(edges)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=node_size, node_color="white", edgecolors="#333333",
                           linewidths=0.8)
    for edges, color, style, width in groups:
        if edges:
            nx.draw_networkx_edges(g, pos, edgelist=list(edges), ax=ax, edge_color=color, style=style, width=width,
                                   arrows=True, arrowstyle="-|>", arrowsize=12, node_size=node_size)
    nx.draw_networkx_labels(g, pos, labels={v: _tex(v) for v in nodes}, ax=ax, font_size=font,
                            bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))
    ax.set_title(_tex(title), fontsize=10)
    ax.set_axis_off()
    ax.set_aspect("equal", adjustable="datalim")
    ax.margins(0.08)


def _panels(n_panels, ncols, cell, extra_height):
    """A new figure with ``n_panels`` axes, ``ncols`` per row; returns (figure, list of axes)."""
    cols = max(1, min(ncols, n_panels))
    rows = max(1, math.ceil(n_panels / cols))
    fig = _figure((cols * cell, rows * cell + extra_height))
    return fig, list(np.atleast_1d(fig.subplots(rows, cols)).ravel())


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_network_comparison(graph, single_task_graph, title=None):
    """The principal's single-task structure and its learned structure, side by side.

    Both panels use the same fixed layout (Kamada-Kawai over the union of the
    two edge sets). Left: the single-task structure, with the edges that
    multitask learning removed dashed red. Right: the learned structure,
    with the edges it added in green. Reversed edges are orange in both
    panels (each in its own direction); unchanged edges grey.

    Returns
    -------
    bytes
        A PNG image.
    """
    from matplotlib.lines import Line2D

    diff = compare_structures(graph, single_task_graph)
    nodes = list(dict.fromkeys(list(single_task_graph.names) + list(graph.names)))
    pos = _layout(nodes, graph.edges(names=True) + single_task_graph.edges(names=True))
    n = len(nodes)
    side = 5.5 if n <= 12 else 7.0 if n <= 25 else 8.5
    fig = _figure((2 * side, side + 0.6))
    left, right = fig.subplots(1, 2)
    _draw_structure(left, nodes, pos, [
        (diff["unchanged"], _GREY, "solid", 1.4),
        ([(v, u) for u, v in diff["reversed"]], _ORANGE, "solid", 2.2),
        (diff["removed"], _RED, "dashed", 2.2),
    ], f"single-task structure ({single_task_graph.n_edges} edges)")
    _draw_structure(right, nodes, pos, [
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
        fig.suptitle(_tex(title))
    return _png(fig)


def plot_cluster_structures(graphs, labels, *, max_tasks=16):
    """Each task's learned structure on one shared layout, grouped by cluster.

    An edge shared by every task of the task's cluster is grey; an edge that
    only some tasks of the cluster have is drawn in the cluster's colour.
    At most ``max_tasks`` tasks are drawn.

    Returns
    -------
    bytes
        A PNG image.
    """
    names = sorted(graphs, key=lambda t: (labels.get(t, 0), list(graphs).index(t)))[:max_tasks]
    nodes = list(dict.fromkeys(v for t in names for v in graphs[t].names))
    pos = _layout(nodes, [e for t in names for e in graphs[t].edges(names=True)])
    shared = {c: shared_edges([graphs[t] for t in ts]) for c, ts in _cluster_members(labels).items()}
    fig, axes = _panels(len(names), 4, 3.6 if len(nodes) <= 12 else 4.6, 0.3)
    for ax, t in zip(axes, names):
        c = labels.get(t, 0)
        edges = graphs[t].edges(names=True)
        common = [e for e in edges if e in shared.get(c, set())]
        own = [e for e in edges if e not in shared.get(c, set())]
        _draw_structure(ax, nodes, pos, [(common, _GREY, "solid", 1.2),
                                         (own, _CLUSTER_PALETTE[(c - 1) % len(_CLUSTER_PALETTE)], "solid", 2.0)],
                        f"{t} (cluster {c}, {len(edges)} edges)")
    for ax in axes[len(names):]:
        ax.set_axis_off()
    fig.suptitle("Learned structures; grey = shared by every task of the cluster, colour = not shared by all",
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
    title : str, optional
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
    pos = _layout(nodes, list(count))
    palette = {c: _RED if c == 1 else _GREY if c == k else (_BLUE, "#76b7b2", "#edc948", _ORANGE)[(c - 2) % 4]
               for c in range(1, k + 1)}
    if axes is None:
        fig, axes = _panels(k, ncols, 3.6 if len(nodes) <= 12 else 5.5 if len(nodes) <= 25 else 7.5, 0.6)
    else:
        axes = list(axes)
        fig = axes[0].figure
    strengths = task_strengths(strength, names)
    for ax, t in zip(axes, names):
        groups = _sharing_groups(parts[t][1], count, palette, k, None if strengths is None else strengths[t])
        _draw_structure(ax, nodes, pos, groups, f"{t} ({len(parts[t][1])} edges)")
    for ax in axes[k:]:
        ax.set_axis_off()
    handles = [Line2D([], [], color=palette[c], linewidth=2, label=f"in {c} of {k} task(s)")
               for c in sorted(set(count.values()))]
    if strengths is not None:
        handles += [Line2D([], [], color=_GREY, linewidth=_width(v), label=f"strength {v:g}") for v in (0, 0.5, 1)]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5), fontsize=9, frameon=False)
    if title:
        fig.suptitle(_tex(title))
    return fig
