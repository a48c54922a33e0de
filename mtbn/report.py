"""Readable reports of task relatedness, task selection and task clustering.

Turns the results of :mod:`mtbn.relatedness` (paper Section 2.4) into

* figures, each returned as PNG bytes: the sorted distances from a principal
  task with the largest gap marked ("gap hunting", Figure 2.12), a heatmap of
  a task distance matrix, an average-link dendrogram (Figure 2.16), a
  validation curve, the principal's learned structure against its
  single-task structure, and the learned structures of clustered tasks;
* one self-contained HTML page per result (inline CSS, every image embedded
  as a ``data:`` URI, nothing fetched from anywhere) and a Markdown page
  with the same numbers as tables;
* ``write_*_report`` functions that write those pages together with the
  numbers as CSV / JSON files.

How the matrices are read:

* ``distance`` (both measures): smaller = more related. For the indirect
  measure the matrix is not symmetric: row = the task being explained,
  column = the task whose structure explains it.
* ``log_likelihood`` (indirect measure only): row = structure source,
  column = evaluated task (mean held-out log-likelihood per row).

matplotlib is needed for the figures and is imported only when a figure is
drawn.
"""

import base64
import datetime
import html
import io
import json
import math
import os
import sys

import numpy as np

from mtbn.exceptions import InvalidParameterError, MtbnError
from mtbn.messages import error, register
from mtbn.graph import nodes_and_edges
from mtbn.relatedness import ClusteringResult, RelatednessResult, SelectionResult

__all__ = [
    "compare_structures",
    "plot_sorted_distances",
    "plot_distance_heatmap",
    "plot_dendrogram",
    "plot_validation_curve",
    "plot_network_comparison",
    "plot_cluster_structures",
    "plot_tasks",
    "selection_report_html",
    "selection_report_markdown",
    "relatedness_report_html",
    "relatedness_report_markdown",
    "clustering_report_html",
    "clustering_report_markdown",
    "write_selection_report",
    "write_relatedness_report",
    "write_clustering_report",
    "write_learn_report",
]

#: The first bytes of every PNG file.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Edge colours of the structure figures.
_GREY, _GREEN, _RED, _ORANGE, _BLUE = "#8c8c8c", "#1a9850", "#d73027", "#f28e2b", "#4e79a7"


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


register("matplotlib-missing", MtbnError, "the reports need matplotlib; install it with: pip install 'mtbn[plots]'.",
         cause="Plots and reports were asked for without matplotlib installed.",
         fix="Install it (pip install 'mtbn[plots]'); bench runs without it when given --no-plots.")


def _figure(figsize):
    """A new matplotlib Figure (no pyplot state, Agg backend)."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the environment
        raise error("matplotlib-missing") from None
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _png(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def _tex(text):
    """Text safe for matplotlib labels (no accidental mathtext)."""
    return str(text).replace("$", r"\$")


def _isnan(value):
    try:
        return value is None or math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def format_number(value, digits=6):
    """A number for a table: integers as integers, others to ``digits`` significant figures."""
    if _isnan(value):
        return "n/a"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


def _curve_points(curve):
    """``[(x, y), ...]`` from a validation curve given as tuples or as to_dict() records."""
    points = []
    for item in curve or ():
        if isinstance(item, dict):
            x = item.get("n", item.get("n_clusters"))
            y = item.get("validation_log_likelihood")
        else:
            x, y = item[:2]
        points.append((int(x), float(y)))
    return points


def _curve_ses(curve):
    """The paired standard errors (vs the best point) of a curve, or None when it has none."""
    ses = []
    for item in curve or ():
        se = item.get("se_vs_best") if isinstance(item, dict) else (item[2] if len(item) > 2 else None)
        ses.append(np.nan if se is None else float(se))
    return ses if ses and not np.all(np.isnan(ses)) else None


def _best_point(points):
    """The first point with the highest value (how mtbn.relatedness picks it)."""
    best = None
    for x, y in points:
        if best is None or y > best[1] + 1e-12:
            best = (x, y)
    return best


def _sorted_items(distances):
    """(name, distance) pairs by increasing distance; ties keep the given order, NaN last."""
    items = list(distances.items())
    return sorted(items, key=lambda kv: (_isnan(kv[1]), 0.0 if _isnan(kv[1]) else float(kv[1])))


def _provenance(options):
    import mtbn

    return {
        "mtbn version": mtbn.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "python": sys.version.split()[0],
        "options": dict(options or {}),
    }


def _option_text(value):
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def compare_structures(graph, reference):
    """Edges of ``graph`` compared with those of ``reference`` (matched by node name).

    Returns a dict with ``added`` (in ``graph`` only), ``removed`` (in
    ``reference`` only), ``reversed`` (present in both with opposite
    directions; given in ``graph``'s direction) and ``unchanged`` edges, each
    a sorted list of ``(parent, child)`` names.

    Examples
    --------
    >>> compare_structures([("a", "b"), ("c", "b")], [("b", "a"), ("a", "c")])["reversed"]
    [('a', 'b')]
    """
    from mtbn.graph import DAG

    def edge_set(g):
        if isinstance(g, DAG):
            return set(g.edges(names=True))
        return {(str(u), str(v)) for u, v in g}

    new, old = edge_set(graph), edge_set(reference)
    return {
        "added": sorted(e for e in new if e not in old and e[::-1] not in old),
        "removed": sorted(e for e in old if e not in new and e[::-1] not in new),
        "reversed": sorted(e for e in new if e not in old and e[::-1] in old),
        "unchanged": sorted(new & old),
    }


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_sorted_distances(distances, principal, gap, *, selected=None, measure=None):
    """Bar chart of the distances from the principal task, in increasing order (Figure 2.12).

    Parameters
    ----------
    distances : dict of task name -> float
        Distance of each other task from the principal.
    principal : str
    gap : int
        Number of tasks before the largest gap; a dashed line and a
        double arrow mark the gap between bar ``gap - 1`` and bar ``gap``.
    selected : list of str, optional
        Tasks drawn in a highlight colour (the tasks learned with).
    measure : str, optional
        Shown in the axis label.

    Returns
    -------
    bytes
        A PNG image.
    """
    items = _sorted_items(distances)
    names = [k for k, _ in items]
    values = np.array([np.nan if _isnan(v) else float(v) for _, v in items], dtype=float)
    chosen = set(selected or ())
    n = len(names)
    fig = _figure((max(5.0, 1.0 + 0.55 * n), 4.0))
    ax = fig.add_subplot()
    if n == 0:
        ax.text(0.5, 0.5, "no other task", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _png(fig)
    colors = [_BLUE if name in chosen else "#b7c7d9" for name in names]
    x = np.arange(n)
    ax.bar(x, np.nan_to_num(values), color=colors, edgecolor="#333333", linewidth=0.6)
    ax.axhline(0, color="#333333", linewidth=0.6)
    ax.set_xticks(x)
    ax.set_xticklabels([_tex(s) for s in names], rotation=45 if n > 6 else 0, ha="right" if n > 6 else "center")
    finite = values[np.isfinite(values)]
    span = float(finite.max() - min(0.0, finite.min())) if len(finite) else 1.0
    span = span or 1.0
    for xi, v in zip(x, values):
        label = "n/a" if np.isnan(v) else format_number(v, 3)
        ax.text(xi, (0 if np.isnan(v) else max(v, 0)) + 0.01 * span, label, ha="center", va="bottom", fontsize=8)
    if 0 < gap < n and np.isfinite(values[gap - 1:gap + 1]).all() and values[gap] > values[gap - 1]:
        xg = gap - 0.5
        ax.axvline(xg, color=_RED, linestyle="--", linewidth=1.2)
        lo, hi = values[gap - 1], values[gap]
        ax.annotate("", xy=(xg, hi), xytext=(xg, lo),
                    arrowprops=dict(arrowstyle="<->", color=_RED, linewidth=1.2))
        ax.text(xg + 0.06, (lo + hi) / 2, f" largest gap\n +{format_number(hi - lo, 3)}", color=_RED, fontsize=8,
                va="center", ha="left")
    if len(finite):
        ax.set_ylim(min(0.0, finite.min()) - 0.05 * span, max(0.0, finite.max()) + 0.15 * span)
    what = f"{measure} distance" if measure else "distance"
    ax.set_ylabel(f"{what} (smaller = more related)")
    ax.set_xlabel("other tasks, most related first")
    ax.set_title(_tex(f"Distance from the principal task {principal!r}"))
    if chosen:
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(color=_BLUE, label="selected"), Patch(color="#b7c7d9", label="not selected")],
                  loc="upper left", fontsize=8, frameon=False)
    return _png(fig)


def plot_distance_heatmap(distance_df, title, *, xlabel=None, ylabel=None, colorbar_label=None, cmap="viridis",
                          order=None):
    """Heatmap of a square task matrix, task names on both axes, with a colorbar.

    Parameters
    ----------
    distance_df : pandas.DataFrame
        Square; index = rows, columns = columns.
    title : str
    xlabel, ylabel, colorbar_label : str, optional
    order : list of str, optional
        Task order for both axes (default: the frame's order).

    Returns
    -------
    bytes
        A PNG image.
    """
    df = distance_df
    if order is not None:
        df = df.loc[list(order), list(order)]
    values = df.to_numpy(dtype=float)
    rows, cols = [str(r) for r in df.index], [str(c) for c in df.columns]
    k = max(len(rows), len(cols), 1)
    side = min(12.0, 2.5 + 0.55 * k)
    fig = _figure((side + 1.4, side))
    ax = fig.add_subplot()
    masked = np.ma.masked_invalid(values)
    # The colour scale spans the off-diagonal cells: a task's zero distance to
    # itself would otherwise squeeze every real distance into one end.
    self_cells = np.array([[r == c for c in cols] for r in rows], dtype=bool).reshape(values.shape)
    scale = values[~self_cells & np.isfinite(values)]
    limits = dict(vmin=float(scale.min()), vmax=float(scale.max())) if scale.size else {}
    im = ax.imshow(masked, cmap=cmap, aspect="equal", **limits)
    ax.set_xticks(np.arange(len(cols)))
    ax.set_xticklabels([_tex(c) for c in cols], rotation=45, ha="right")
    ax.set_yticks(np.arange(len(rows)))
    ax.set_yticklabels([_tex(r) for r in rows])
    if xlabel:
        ax.set_xlabel(_tex(xlabel))
    if ylabel:
        ax.set_ylabel(_tex(ylabel))
    ax.set_title(_tex(title))
    if k <= 12 and values.size:
        finite = values[np.isfinite(values)]
        mid = (finite.min() + finite.max()) / 2 if len(finite) else 0.0
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                v = values[i, j]
                color = "white" if np.isfinite(v) and v < mid else "black"
                ax.text(j, i, format_number(v, 3), ha="center", va="center", fontsize=7 if k > 8 else 8, color=color)
    cbar = fig.colorbar(im, ax=ax, shrink=0.8)
    if colorbar_label:
        cbar.set_label(_tex(colorbar_label))
    return _png(fig)


def _cut_height(Z, n_clusters):
    """A height that cuts the linkage ``Z`` into ``n_clusters`` clusters (None if undefined)."""
    m = len(Z)  # number of merges = n_tasks - 1
    if not n_clusters or n_clusters < 1 or n_clusters > m + 1 or m == 0:
        return None
    heights = np.asarray(Z, dtype=float)[:, 2]
    if n_clusters == 1:
        return float(heights[-1]) * 1.05 + 1e-9
    done = m - n_clusters  # index of the last merge made
    lower = float(heights[done]) if done >= 0 else 0.0
    upper = float(heights[done + 1])
    return (lower + upper) / 2 if done >= 0 else upper / 2


def plot_dendrogram(linkage, names, *, n_clusters=None, title=None, ylabel="average-link distance"):
    """Dendrogram of an average-link clustering of the tasks (Figure 2.16).

    Parameters
    ----------
    linkage : ndarray of shape (n_tasks - 1, 4)
        A scipy linkage matrix.
    names : list of str
        Leaf labels, in the order of the distance matrix.
    n_clusters : int, optional
        Draw the cut that gives this many clusters (dashed line) and colour
        the clusters below it.

    Returns
    -------
    bytes
        A PNG image.
    """
    from scipy.cluster.hierarchy import dendrogram

    names = [str(n) for n in names]
    Z = np.asarray(linkage, dtype=float)
    fig = _figure((max(5.0, 1.5 + 0.5 * len(names)), 4.0))
    ax = fig.add_subplot()
    if len(names) < 2 or Z.shape[0] == 0:
        ax.text(0.5, 0.5, _tex(f"a single task ({names[0] if names else 'none'}): nothing to cluster"),
                ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _png(fig)
    cut = _cut_height(Z, n_clusters)
    dendrogram(Z, labels=[_tex(n) for n in names], ax=ax, color_threshold=cut if cut is not None else 0.0,
               above_threshold_color=_GREY, leaf_rotation=45 if len(names) > 6 else 0)
    top = float(Z[:, 2].max()) or 1.0
    ax.set_ylim(-0.03 * top, 1.08 * top)  # merges at distance 0 stay visible
    if cut is not None and n_clusters and n_clusters > 1:
        ax.axhline(cut, color=_RED, linestyle="--", linewidth=1.2)
        ax.text(ax.get_xlim()[0], cut, f" cut: {n_clusters} clusters", color=_RED, fontsize=8, va="bottom",
                ha="left")
    ax.set_ylabel(ylabel)
    ax.set_title(_tex(title or "Average-link clustering of the tasks"))
    return _png(fig)


def plot_validation_curve(curve, xlabel, *, chosen=None, title=None, ylabel="validation log-likelihood per row"):
    """Validation log-likelihood against N (or the number of clusters), the chosen point marked.

    Parameters
    ----------
    curve : list of (int, float) or list of dict
        As in ``SelectionResult.validation_curve`` (or its ``to_dict()`` form).
    xlabel : str
    chosen : int, optional
        The chosen x (default: the first x with the highest value).

    Returns
    -------
    bytes
        A PNG image.
    """
    points = _curve_points(curve)
    fig = _figure((6.0, 4.0))
    ax = fig.add_subplot()
    if not points:
        ax.text(0.5, 0.5, "no validation curve", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _png(fig)
    xs, ys = zip(*points)
    ses = _curve_ses(curve)
    if ses is not None:
        ax.errorbar(xs, ys, yerr=ses, marker="o", color=_BLUE, linewidth=1.5, capsize=3,
                    label="error bars: paired SE vs the best point")
    else:
        ax.plot(xs, ys, marker="o", color=_BLUE, linewidth=1.5)
    if chosen is None:
        chosen = _best_point(points)[0]
    hit = [(x, y) for x, y in points if x == chosen]
    if hit:
        ax.plot([hit[0][0]], [hit[0][1]], marker="*", markersize=16, color=_RED, linestyle="none",
                label=f"chosen: {chosen}")
        ax.legend(loc="best", fontsize=8, frameon=False)
    ax.set_xticks(list(xs))
    ax.set_xlabel(_tex(xlabel))
    ax.set_ylabel(ylabel)
    ax.set_title(_tex(title or "Validation log-likelihood (higher is better)"))
    ax.grid(True, alpha=0.3)
    return _png(fig)


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
    reversed_in_single = [(v, u) for u, v in diff["reversed"]]
    _draw_structure(left, nodes, pos, [
        (diff["unchanged"], _GREY, "solid", 1.4),
        (reversed_in_single, _ORANGE, "solid", 2.2),
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
    all_edges = [e for t in names for e in graphs[t].edges(names=True)]
    pos = _layout(nodes, all_edges)
    members = {}
    for t, c in labels.items():
        members.setdefault(c, []).append(t)
    shared = {c: set.intersection(*(set(graphs[t].edges(names=True)) for t in ts)) for c, ts in members.items()}
    palette = ["#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#edc948", "#ff9da7", "#9c755f"]
    cols = min(4, len(names)) or 1
    rows = max(1, math.ceil(len(names) / cols))
    cell = 3.6 if len(nodes) <= 12 else 4.6
    fig = _figure((cols * cell, rows * cell + 0.3))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    for ax, t in zip(axes, names):
        c = labels.get(t, 0)
        edges = graphs[t].edges(names=True)
        common = [e for e in edges if e in shared.get(c, set())]
        own = [e for e in edges if e not in shared.get(c, set())]
        _draw_structure(ax, nodes, pos, [(common, _GREY, "solid", 1.2),
                                         (own, palette[(c - 1) % len(palette)], "solid", 2.0)],
                        f"{t} (cluster {c}, {len(edges)} edges)")
    for ax in axes[len(names):]:
        ax.set_axis_off()
    fig.suptitle("Learned structures; grey = shared by every task of the cluster, colour = not shared by all",
                 fontsize=10)
    return _png(fig)


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
    strength : dict of name -> {(u, v): float}, optional
        Per task, a confidence in [0, 1] for each edge (e.g. bootstrap
        frequencies, :meth:`mtbn.bootstrap.BootstrapResult.strength`): the
        line width grows with it (0.4 at 0 to 3.4 at 1).

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
    count = {}
    for t in names:
        for e in set(parts[t][1]):
            count[e] = count.get(e, 0) + 1
    k = len(names)
    pos = _layout(nodes, list(count))
    palette = {c: _RED if c == 1 else _GREY if c == k else ("#4e79a7", "#76b7b2", "#edc948", "#f28e2b")[(c - 2) % 4]
               for c in range(1, k + 1)}
    if axes is None:
        cols = max(1, min(ncols, k))
        rows = max(1, math.ceil(k / cols))
        cell = 3.6 if len(nodes) <= 12 else 5.5 if len(nodes) <= 25 else 7.5
        fig = _figure((cols * cell, rows * cell + 0.6))
        axes = list(np.atleast_1d(fig.subplots(rows, cols)).ravel())
    else:
        axes = list(axes)
        fig = axes[0].figure
    for ax, t in zip(axes, names):
        edges = parts[t][1]
        if strength is None:
            groups = [([e for e in edges if count[e] == c], palette[c], "solid", 2.0 if c < k else 1.2)
                      for c in range(1, k + 1)]
        else:
            conf = strength.get(t, {})
            width = {e: round(0.4 + 3.0 * float(conf.get(e, 1.0)), 1) for e in edges}
            groups = [([e for e in edges if count[e] == c and width[e] == w], palette[c], "solid", w)
                      for c in range(1, k + 1) for w in sorted(set(width.values()))]
        _draw_structure(ax, nodes, pos, groups, f"{t} ({len(edges)} edges)")
    for ax in axes[k:]:
        ax.set_axis_off()
    handles = [Line2D([], [], color=palette[c], linewidth=2, label=f"in {c} of {k} task(s)")
               for c in sorted({count[e] for e in count})]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5), fontsize=9, frameon=False)
    if title:
        fig.suptitle(_tex(title))
    return fig


# ---------------------------------------------------------------------------
# Page building blocks (HTML and Markdown)
# ---------------------------------------------------------------------------

_CSS = """
body { font-family: "Helvetica Neue", Helvetica, Arial, sans-serif; color: #222; background: #fff;
       max-width: 1100px; margin: 2em auto; padding: 0 1.5em; line-height: 1.45; }
h1 { font-size: 1.6em; border-bottom: 2px solid #4e79a7; padding-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 1.8em; color: #2b4a6f; }
p.lead { font-size: 1.03em; }
.summary { background: #f3f6fa; border-left: 4px solid #4e79a7; padding: .6em 1em; margin: 1em 0; }
table { border-collapse: collapse; margin: .6em 0 1.2em 0; font-size: .92em; }
th, td { border: 1px solid #ccd3db; padding: .25em .6em; text-align: left; }
th { background: #eef2f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: Menlo, Consolas, monospace; }
tr.chosen td { background: #fff3cd; font-weight: bold; }
tr.gap td { border-bottom: 3px dashed #d73027; }
figure { margin: 1em 0 1.6em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e2e6ea; }
figcaption { font-size: .9em; color: #555; margin-top: .3em; }
code { background: #f4f4f4; padding: 0 .2em; }
footer { margin-top: 3em; border-top: 1px solid #ccd3db; padding-top: .6em; font-size: .85em; color: #555; }
footer table { font-size: .95em; }
.added { color: #1a9850; font-weight: bold; } .removed { color: #d73027; font-weight: bold; }
.reversed { color: #d9730d; font-weight: bold; }
"""

# No network access of any kind from the page: only inline styles and data: images.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


class _Page:
    """Collects the same content as HTML and as Markdown."""

    def __init__(self, title, draw=True):
        self.title = title
        self.draw = draw
        self.html = []
        self.md = [f"# {_md(title)}", ""]

    def heading(self, text):
        self.html.append(f"<h2>{html.escape(text)}</h2>")
        self.md += [f"## {_md(text)}", ""]

    def para(self, html_text, md_text=None, cls=None):
        attr = f' class="{cls}"' if cls else ""
        self.html.append(f"<p{attr}>{html_text}</p>")
        self.md += [md_text if md_text is not None else _strip_tags(html_text), ""]

    def box(self, html_items, md_items):
        self.html.append('<div class="summary"><ul>' + "".join(f"<li>{x}</li>" for x in html_items) + "</ul></div>")
        self.md += [f"- {x}" for x in md_items] + [""]

    def table(self, headers, rows, *, numeric=(), row_classes=None, caption=None):
        """``rows`` of plain-text cells (escaped here); ``numeric`` column indices are right-aligned."""
        numeric = set(numeric)
        out = ["<table>"]
        if caption:
            out.append(f"<caption>{html.escape(caption)}</caption>")
        out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers) + "</tr></thead>")
        out.append("<tbody>")
        for r, row in enumerate(rows):
            cls = (row_classes or {}).get(r)
            attr = f' class="{cls}"' if cls else ""
            cells = "".join(
                f'<td class="num">{html.escape(str(c))}</td>' if j in numeric else f"<td>{html.escape(str(c))}</td>"
                for j, c in enumerate(row)
            )
            out.append(f"<tr{attr}>{cells}</tr>")
        out.append("</tbody></table>")
        self.html.append("\n".join(out))
        self.md += [
            "| " + " | ".join(_md(h) for h in headers) + " |",
            "| " + " | ".join("---:" if j in numeric else "---" for j in range(len(headers))) + " |",
        ]
        self.md += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
        self.md.append("")

    def figure(self, make_png, alt, caption):
        """``make_png()`` draws the figure; it is called only when the page draws figures."""
        self.md += [f"*Figure (in report.html): {_md(caption)}*", ""]
        if not self.draw:
            return
        data = base64.b64encode(make_png()).decode("ascii")
        self.html.append(
            f'<figure><img alt="{html.escape(alt, quote=True)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )

    def details(self, summary, html_body, md_text):
        self.html.append(f"<details><summary>{html.escape(summary)}</summary>{html_body}</details>")
        self.md += [md_text, ""]

    def render_html(self, provenance):
        foot_rows = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
            for k, v in provenance.items() if k != "options"
        )
        opts = provenance.get("options") or {}
        opt_rows = "".join(
            f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_option_text(v))}</td></tr>" for k, v in opts.items()
        )
        footer = (
            "<footer><strong>Provenance</strong>"
            f"<table>{foot_rows}</table>"
            + (f"<strong>Options</strong><table>{opt_rows}</table>" if opt_rows else "")
            + "</footer>"
        )
        return (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_CSP}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{html.escape(self.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<h1>{html.escape(self.title)}</h1>\n" + "\n".join(self.html) + "\n" + footer + "\n</body>\n</html>\n"
        )

    def render_markdown(self, provenance):
        lines = list(self.md) + ["## Provenance", "", "| | |", "| --- | --- |"]
        lines += [f"| {_md(k)} | {_md(v)} |" for k, v in provenance.items() if k != "options"]
        opts = provenance.get("options") or {}
        if opts:
            lines += ["", "| option | value |", "| --- | --- |"]
            lines += [f"| {_md(k)} | {_md(_option_text(v))} |" for k, v in opts.items()]
        return "\n".join(lines) + "\n"


def _md(text):
    """Text for a Markdown table cell or heading."""
    return (str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\n", " "))


def _strip_tags(text):
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", text))


def _e(text):
    return html.escape(str(text))


def _matrix_rows(df, digits=6):
    return [[str(idx)] + [format_number(v, digits) for v in df.loc[idx]] for idx in df.index]


def _measure_paragraphs(page, rel, delta=0.9, folds=10):
    """The plain-language description of the measure and of how to read its matrices."""
    if rel.measure == "direct":
        if not isinstance(delta, (int, float)) or isinstance(delta, bool):
            delta = 0.9
        page.para(
            "<strong>Direct measure</strong> (paper Section 2.4.1): the structures of all tasks were learned "
            f"together with multitask structure learning at a mild penalty (&delta; = {_e(format_number(delta))}), which "
            "reduces the variance of the greedy search without making the structures artificially alike. The "
            "distance between two tasks is the <em>edit distance</em> between their learned structures: the "
            "number of edge additions, deletions and reversals that turn one into the other. It is symmetric, "
            "zero on the diagonal and a proper metric. Smaller = more related.",
            "**Direct measure** (paper Section 2.4.1): the structures of all tasks were learned together with "
            f"multitask structure learning at a mild penalty (delta = {format_number(delta)}). The distance between two "
            "tasks is the edit distance between their learned structures (edge additions, deletions and "
            "reversals). It is symmetric, zero on the diagonal and a metric. Smaller = more related.",
        )
    else:
        page.para(
            "<strong>Indirect measure</strong> (paper Section 2.4.2): each task's structure was learned from its "
            "own data only. Then, for every pair (structure source <em>s</em>, evaluated task <em>e</em>), the "
            f"parameters of <em>s</em>'s structure were fitted on <em>e</em>'s data and scored on held-out rows of "
            f"<em>e</em> ({_e(folds)}-fold cross-validation; mean log-likelihood per row, higher = better).",
            "**Indirect measure** (paper Section 2.4.2): each task's structure was learned from its own data. "
            "For every pair (structure source s, evaluated task e), s's structure was fitted on e's training "
            f"folds and scored on e's held-out fold ({folds}-fold cross-validation; mean log-likelihood per row).",
        )
        page.para(
            "How to read the two matrices: the <strong>raw log-likelihood matrix</strong> has "
            "<strong>row = structure source</strong>, <strong>column = evaluated task</strong>. The "
            "<strong>distance matrix</strong> has <strong>row = the task being explained</strong> (e.g. the "
            "principal) and <strong>column = the structure source</strong>: "
            "<code>distance[e, s] = loglik[e, e] &minus; loglik[s, e]</code>, how much worse task <em>e</em>'s "
            "own held-out data is explained by <em>s</em>'s structure than by its own. Values in one row are "
            "comparable (same data); the matrix is not symmetric, and a negative value means another task's "
            "structure explained the row task's data better than its own structure did.",
            "How to read the two matrices: the raw log-likelihood matrix has **row = structure source, column = "
            "evaluated task**. The distance matrix has **row = the task being explained, column = the structure "
            "source**: distance[e, s] = loglik[e, e] - loglik[s, e]. It is not symmetric; a negative value means "
            "another task's structure explained the row task's data better than its own.",
        )


def _matrix_sections(page, rel, heatmap_order=None):
    """Distance (and log-likelihood) matrices as tables and heatmaps."""
    names = [str(n) for n in rel.names]
    if rel.measure == "indirect":
        dist_x, dist_y = "structure source (column)", "task being explained (row)"
    else:
        dist_x = dist_y = "task"
    heat_title = f"{rel.measure.capitalize()} task distance (smaller = more related)"
    page.figure(
        lambda: plot_distance_heatmap(rel.distance, heat_title, xlabel=dist_x, ylabel=dist_y,
                                      colorbar_label="distance", cmap="viridis", order=heatmap_order),
        "heatmap of the task distance matrix",
        f"{rel.measure.capitalize()} distance between every pair of tasks"
        + (" (row = task being explained, column = structure source)." if rel.measure == "indirect" else
           " (symmetric).")
        + (" Tasks in dendrogram order." if heatmap_order is not None else ""),
    )
    page.heading("Distance matrix")
    if rel.measure == "indirect":
        page.para("Row = task being explained, column = structure source. Smaller = more related.")
    else:
        page.para("Edit distances between the learned structures (symmetric). Smaller = more related.")
    page.table(["task"] + names, _matrix_rows(rel.distance), numeric=range(1, len(names) + 1))
    within = rel.within_noise() if hasattr(rel, "within_noise") else None
    if within is not None:
        page.heading("Noise floor")
        page.para(f"Distances no larger than {format_number(rel.floor)} are within noise. The floor comes from a "
                  "permutation null: the rows of all tasks are pooled and dealt at random into pseudo-tasks of "
                  "the same sizes (so they differ only by chance), learned jointly as above, and the largest "
                  "distance among them is recorded; the floor is the 95th percentile (an observed value) of that "
                  f"largest distance over {len(rel.null_max)} replicates. A distance within it is no evidence that two tasks "
                  "differ.")
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:] if within.loc[a, b]]
        page.para("Pairs within noise: " + (", ".join(f"{a} - {b}" for a, b in pairs) if pairs else "none") + ".")
    if rel.log_likelihood is not None:
        page.figure(
            lambda: plot_distance_heatmap(rel.log_likelihood, "Held-out log-likelihood per row (higher = better)",
                                          xlabel="evaluated task (column)", ylabel="structure source (row)",
                                          colorbar_label="mean log-likelihood per row", cmap="magma"),
            "heatmap of the raw cross-validated log-likelihood matrix",
            "Raw log-likelihood matrix: row = structure source, column = evaluated task. Compare values within "
            "a column (same evaluated data).",
        )
        page.heading("Raw log-likelihood matrix")
        page.para("Row = structure source, column = evaluated task; mean held-out log-likelihood per row.")
        page.table(["structure source \\ evaluated task"] + names, _matrix_rows(rel.log_likelihood),
                   numeric=range(1, len(names) + 1))


def _safe_linkage(rel):
    """The average-link linkage of a relatedness matrix (None if it cannot be computed)."""
    from mtbn.relatedness import average_link_clusters

    D = rel.distance.to_numpy(dtype=float)
    if len(D) < 2 or not np.all(np.isfinite(D)):
        return None
    return average_link_clusters(D, 1)[1]


# ---------------------------------------------------------------------------
# Selection report
# ---------------------------------------------------------------------------


def _selection_page(result, options=None, draw=True):
    options = dict(options or {})
    rel = result.relatedness
    # The library's order (most related first), so that the tables match ``selected``.
    order = list(result.order)
    items = [(k, result.distances[k]) for k in order]
    k_other = len(order)
    page = _Page(f"Task selection for principal task {result.principal!r}", draw)
    page.para(
        f"mtbn ordered the {k_other} other task(s) by their <strong>{_e(rel.measure)}</strong> distance from the "
        f"principal task <strong>{_e(result.principal)}</strong> (smaller = more related), then learned the "
        f"principal's Bayesian network with multitask structure learning together with the "
        f"<strong>N = {result.n_selected}</strong> closest task(s) (paper Section 2.4). Only the principal's "
        "network is reported; the other tasks only help it.",
        f"mtbn ordered the {k_other} other task(s) by their **{rel.measure}** distance from the principal task "
        f"**{result.principal}** (smaller = more related), then learned the principal's network with multitask "
        f"structure learning together with the **N = {result.n_selected}** closest task(s) (paper Section 2.4).",
        cls="lead",
    )
    _measure_paragraphs(page, rel, delta=options.get("relatedness_penalty", 0.9))

    # --- summary of the choice ------------------------------------------
    how_text = {
        "given": "N was given by the user.",
        "gap": "N is the number of tasks before the largest gap in the sorted distances (\"gap hunting\", "
               "paper Figure 2.12).",
        "validation": "N was chosen on a validation split of the principal's rows, held out of every learned "
                      "structure and separate from the split that picks the penalty: "
                      + ("the smallest N whose validation log-likelihood per row is within one paired standard "
                         "error of the best (toward less transfer)" if getattr(result, "rule", "max") == "one-se"
                         else "the N with the highest validation log-likelihood per row (the smallest on ties)")
                      + (f"; N was at least {result.n_within_noise}, the tasks within noise of the principal "
                         "(distance no larger than the noise floor, the distance tasks that differ only by chance "
                         "stay within)"
                         if getattr(result, "n_within_noise", 0) else "") + ".",
    }.get(result.how, result.how)
    gap_note = ""
    lo = hi = float("nan")
    if 0 < result.gap < k_other:
        lo, hi = items[result.gap - 1][1], items[result.gap][1]
    if _isnan(lo) or _isnan(hi):
        if k_other:
            gap_note = f"Gap hunting gives N = {result.gap}."
    elif not hi > lo:
        gap_note = f"The sorted distances have no gap (they do not increase); gap hunting gives N = {result.gap}."
    elif 0 < result.gap < k_other:
        gap_note = (f"The largest gap in the sorted distances lies between {order[result.gap - 1]} "
                    f"({format_number(lo)}) and {order[result.gap]} ({format_number(hi)}), a jump of {format_number(hi - lo)}: gap hunting "
                    f"would choose N = {result.gap}.")
    if k_other == 1:
        gap_note = f"With a single other task there is no gap to hunt; gap hunting gives N = {result.gap}."
    nan_tasks = [k for k, v in items if _isnan(v)]
    if nan_tasks:
        gap_note += (f" No distance could be computed for {', '.join(nan_tasks)} (n/a: a structure and a task "
                     "do not share all variables).")
    if _isnan(result.penalty):
        pen = "none (N = 0: single-task learning)"
    else:
        chosen_how = ("given" if isinstance(options.get("penalty"), (int, float)) else
                      "chosen on a validation split of the tasks' rows" if options.get("penalty") == "auto" else "")
        pen = (f"delta = {format_number(result.penalty)}" + (f" ({chosen_how})" if chosen_how else "")
               + "; delta = 0 learns the tasks independently, delta = 1 forces identical structures")
    diff = compare_structures(result.graph, result.single_task_graph)
    sel = ", ".join(result.selected) if result.selected else "none"
    summary = [
        ("Principal task", result.principal),
        ("Selected tasks", f"{sel} (N = {result.n_selected} of {k_other})"),
        ("How N was chosen", f"{result.how}: {how_text}"),
        ("Gap hunting", gap_note or "n/a"),
        ("Multitask penalty of the final run", pen),
        ("Learned structure", f"{result.graph.n_edges} edges; vs single-task ({result.single_task_graph.n_edges} "
                              f"edges): {len(diff['added'])} added, {len(diff['removed'])} removed, "
                              f"{len(diff['reversed'])} reversed, {len(diff['unchanged'])} unchanged"),
    ]
    page.box([f"<strong>{_e(a)}:</strong> {_e(b)}" for a, b in summary],
             [f"**{_md(a)}:** {_md(b)}" for a, b in summary])

    # --- sorted distances -------------------------------------------------
    page.heading("Distances from the principal, sorted")
    if not k_other:
        page.para("There is no other task: the principal was learned alone (single-task learning).")
    rows, classes = [], {}
    prev = None
    for i, (name, d) in enumerate(items):
        step = "" if prev is None or _isnan(d) or _isnan(prev) else format_number(float(d) - float(prev))
        mark = "largest gap below" if (i + 1 == result.gap and 0 < result.gap < k_other and hi > lo) else ""
        rows.append([str(i + 1), name, format_number(d), step, "yes" if name in result.selected else "", mark])
        prev = d
        if mark:
            classes[i] = "gap"
    if k_other:
        page.table(["rank", "task", "distance", "increase from previous", "selected", "gap"], rows,
                   numeric=(0, 2, 3), row_classes=classes)
        page.figure(
            lambda: plot_sorted_distances(result.distances, result.principal, result.gap,
                                          selected=result.selected, measure=rel.measure),
            "bar chart of the sorted distances from the principal task",
            "Distances from the principal, most related first; selected tasks dark blue. The dashed red line "
            "marks the largest gap between consecutive distances (gap hunting, paper Figure 2.12).",
        )

    # --- validation curve -----------------------------------------------
    page.heading("Choice of N")
    page.para(_e(how_text) + (" " + _e(gap_note) if gap_note else ""))
    points = _curve_points(result.validation_curve)
    if points:
        best = result.n_selected
        rows, classes = [], {}
        for i, (n, ll) in enumerate(points):
            rows.append([str(n), ", ".join(order[:n]) if n else "none (single-task)", format_number(ll),
                         "chosen" if n == best else ""])
            if n == best:
                classes[i] = "chosen"
        page.table(["N", "tasks learned with", "validation log-likelihood per row", ""], rows, numeric=(0, 2),
                   row_classes=classes)
        page.figure(
            lambda: plot_validation_curve(points, "N (number of closest tasks learned with)", chosen=best,
                                          title=f"Validation log-likelihood of {result.principal} against N"),
            "validation log-likelihood against the number of selected tasks",
            "Validation log-likelihood per row of the principal's held-out rows against N; the red star is the "
            "chosen N.",
        )
    else:
        page.para("No validation curve: N was not chosen by validation.")

    # --- structure comparison -------------------------------------------
    page.heading("Learned structure vs single-task structure")
    page.para(
        f"The principal's single-task structure was learned from the same rows with the same settings, without "
        f"any other task. Multitask learning with the selected task(s) added {len(diff['added'])}, removed "
        f"{len(diff['removed'])} and reversed {len(diff['reversed'])} edge(s); {len(diff['unchanged'])} edge(s) "
        f"are unchanged."
    )
    rows = ([["added", f"{u} -> {v}"] for u, v in diff["added"]]
            + [["removed", f"{u} -> {v}"] for u, v in diff["removed"]]
            + [["reversed", f"{v} -> {u} became {u} -> {v}"] for u, v in diff["reversed"]])
    if rows:
        page.table(["change", "edge (parent -> child)"], rows)
    else:
        page.para("The learned structure is identical to the single-task structure.")
    page.figure(
        lambda: plot_network_comparison(result.graph, result.single_task_graph,
                                        title=f"{result.principal}: single-task vs learned with {sel}"),
        "the principal's single-task and learned structures side by side",
        "Same layout in both panels. Left: single-task structure; edges that multitask learning removed are "
        "dashed red. Right: learned structure; added edges green. Reversed edges orange, unchanged grey.",
    )
    unchanged = [[f"{u} -> {v}"] for u, v in diff["unchanged"]]
    if unchanged:
        body = "<ul>" + "".join(f"<li>{_e(r[0])}</li>" for r in unchanged) + "</ul>"
        page.details(f"{len(unchanged)} unchanged edge(s)", body,
                     "Unchanged edges: " + ", ".join(_md(r[0]) for r in unchanged))

    # --- all tasks -------------------------------------------------------
    page.heading("All task distances")
    _matrix_sections(page, rel)
    Z = _safe_linkage(rel)
    if Z is not None:
        page.figure(
            lambda: plot_dendrogram(Z, [str(n) for n in rel.names],
                                    title="Average-link clustering of all tasks (context)",
                                    ylabel=f"average-link {rel.measure} distance"),
            "dendrogram of all tasks",
            "Average-link clustering of all tasks on the distance matrix"
            + (" (symmetrised as (D + D^T) / 2)" if rel.measure == "indirect" else "")
            + ", for context: tasks that join low in the tree are closely related.",
        )
    return page


def selection_report_html(result, options=None):
    """One self-contained HTML page describing a :class:`~mtbn.relatedness.SelectionResult`."""
    _check_type(result, SelectionResult, "selection_report_html")
    return _selection_page(result, options).render_html(_provenance(options))


def selection_report_markdown(result, options=None):
    """The numbers of :func:`selection_report_html` as Markdown tables (no images)."""
    _check_type(result, SelectionResult, "selection_report_markdown")
    return _selection_page(result, options, draw=False).render_markdown(_provenance(options))


# ---------------------------------------------------------------------------
# Relatedness report
# ---------------------------------------------------------------------------


def _relatedness_page(result, options=None, draw=True):
    options = dict(options or {})
    names = [str(n) for n in result.names]
    page = _Page(f"Task relatedness ({result.measure} measure)", draw)
    page.para(
        f"mtbn measured how related {len(names)} tasks are with the <strong>{_e(result.measure)}</strong> "
        "measure of paper Section 2.4. A smaller distance means more related tasks; the distances can be used "
        "to choose the tasks to learn a principal task with (<code>mtbn select</code>) or to cluster the tasks "
        "(<code>mtbn cluster</code>).",
        f"mtbn measured how related {len(names)} tasks are with the **{result.measure}** measure of paper "
        "Section 2.4. A smaller distance means more related tasks.",
        cls="lead",
    )
    _measure_paragraphs(page, result, delta=options.get("penalty", 0.9), folds=options.get("folds", 10))
    page.heading("Nearest tasks")
    rows = []
    for name in names:
        others = _sorted_items(result.from_task(name).to_dict()) if len(names) > 1 else []
        nearest = others[0] if others else ("n/a", float("nan"))
        rows.append([name, nearest[0], format_number(nearest[1]), ", ".join(f"{k} ({format_number(v, 4)})" for k, v in others),
                     str(result.graphs[name].n_edges) if name in result.graphs else ""])
    page.para("For each task (a row of the distance matrix), the other tasks from most to least related."
              + (" For the indirect measure this is how well each other task's structure explains this task's "
                 "data." if result.measure == "indirect" else ""))
    page.table(["task", "nearest task", "distance", "all others, most related first", "edges in its structure"],
               rows, numeric=(2, 4))
    page.heading("Figures and matrices")
    _matrix_sections(page, result)
    Z = _safe_linkage(result)
    if Z is not None:
        page.figure(
            lambda: plot_dendrogram(Z, names, ylabel=f"average-link {result.measure} distance"),
            "dendrogram of the tasks",
            "Average-link clustering on the distance matrix"
            + (" (symmetrised as (D + D^T) / 2)" if result.measure == "indirect" else "")
            + ": tasks that join low in the tree are closely related (paper Figure 2.16).",
        )
        page.heading("Merge steps of the dendrogram")
        page.table(["step", "joined", "with", "average distance"], _merge_rows(Z, names), numeric=(0, 3))
    return page


def _merge_rows(Z, names):
    clusters = {i: [n] for i, n in enumerate(names)}
    rows = []
    for step, (a, b, h, _) in enumerate(np.asarray(Z, dtype=float)):
        a, b = int(a), int(b)
        clusters[len(names) + step] = clusters[a] + clusters[b]
        rows.append([str(step + 1), ", ".join(clusters[a]), ", ".join(clusters[b]), format_number(h)])
    return rows


def relatedness_report_html(result, options=None):
    """One self-contained HTML page describing a :class:`~mtbn.relatedness.RelatednessResult`."""
    _check_type(result, RelatednessResult, "relatedness_report_html")
    return _relatedness_page(result, options).render_html(_provenance(options))


def relatedness_report_markdown(result, options=None):
    """The numbers of :func:`relatedness_report_html` as Markdown tables (no images)."""
    _check_type(result, RelatednessResult, "relatedness_report_markdown")
    return _relatedness_page(result, options, draw=False).render_markdown(_provenance(options))


# ---------------------------------------------------------------------------
# Clustering report
# ---------------------------------------------------------------------------


def _clustering_page(result, options=None, draw=True):
    options = dict(options or {})
    rel = result.relatedness
    names = [str(n) for n in rel.names]
    members = {}
    for t in names:
        members.setdefault(result.labels[t], []).append(t)
    auto = bool(result.validation_curve)
    page = _Page(f"Task clustering ({result.n_clusters} cluster{'s' if result.n_clusters != 1 else ''})", draw)
    page.para(
        f"mtbn clustered {len(names)} tasks by hierarchical agglomerative clustering with <strong>average "
        "link</strong> (at each step the two clusters with the smallest average distance between their members "
        "are joined) on the <strong>direct</strong> task distance, cut the tree into "
        f"<strong>{result.n_clusters}</strong> cluster(s), and learned the tasks of each cluster together with "
        "multitask structure learning (a cluster of one task is learned alone) (paper Section 2.4.3, "
        "Figure 2.16).",
        f"mtbn clustered {len(names)} tasks by average-link hierarchical clustering on the **direct** task "
        f"distance, cut the tree into **{result.n_clusters}** cluster(s), and learned the tasks of each cluster "
        "together with multitask structure learning (a cluster of one task is learned alone).",
        cls="lead",
    )
    _measure_paragraphs(page, rel, delta=options.get("relatedness_penalty", 0.9))
    if auto:
        how = ("The number of clusters was chosen on a small validation split of every task (held out of the "
               "structures): "
               + ("the largest number whose mean validation log-likelihood per row over the tasks is within one "
                  "paired standard error of the best (toward less transfer)" if result.rule == "one-se"
                  else "the number with the highest mean validation log-likelihood per row over the tasks")
               + ". Cuts that give the same partition as a smaller number are not repeated"
               + ("; cuts that would separate two tasks whose distance is within the noise floor (the distance "
                  "tasks that differ only by chance stay within) are not tried"
                  if rel.within_noise() is not None else "") + ".")
    else:
        how = "The number of clusters was given by the user."
    page.box([f"<strong>Clusters:</strong> {result.n_clusters}", f"<strong>How chosen:</strong> {_e(how)}"],
             [f"**Clusters:** {result.n_clusters}", f"**How chosen:** {_md(how)}"])

    page.heading("Clusters")
    rows = []
    for c in sorted(members):
        ts = members[c]
        shared = set.intersection(*(set(result.graphs[t].edges(names=True)) for t in ts))
        rows.append([str(c), ", ".join(ts), str(len(ts)), str(len(shared)) if len(ts) > 1 else "n/a"])
    page.table(["cluster", "tasks", "number of tasks", "edges shared by every task of the cluster"], rows,
               numeric=(0, 2, 3))
    page.heading("Learned structures")
    rows = []
    for t in names:
        c = result.labels[t]
        g = result.graphs[t]
        others = [o for o in members[c] if o != t]
        shared = set.intersection(*(set(result.graphs[o].edges(names=True)) for o in members[c]))
        own = [e for e in g.edges(names=True) if e not in shared]
        rows.append([t, str(c), str(g.n_edges),
                     (", ".join(f"{u} -> {v}" for u, v in own) or "none") if others
                     else "n/a (alone in its cluster)"])
    page.table(["task", "cluster", "edges", "edges not shared by every other task of its cluster"], rows,
               numeric=(1, 2))

    Z = np.asarray(result.linkage, dtype=float)
    if len(names) > 1 and Z.shape[0]:
        page.figure(
            lambda: plot_dendrogram(Z, names, n_clusters=result.n_clusters,
                                    title="Average-link clustering on the direct distance",
                                    ylabel="average-link direct distance"),
            "dendrogram of the tasks with the chosen cut",
            f"Average-link dendrogram on the direct distance (paper Figure 2.16); the dashed line cuts it into "
            f"the {result.n_clusters} chosen cluster(s), coloured below the cut.",
        )
        page.heading("Merge steps of the dendrogram")
        page.table(["step", "joined", "with", "average distance"], _merge_rows(Z, names), numeric=(0, 3))

    page.heading("Choice of the number of clusters")
    page.para(_e(how))
    points = _curve_points(result.validation_curve)
    if points:
        rows, classes = [], {}
        for i, (c, ll) in enumerate(points):
            rows.append([str(c), format_number(ll), "chosen" if c == result.n_clusters else ""])
            if c == result.n_clusters:
                classes[i] = "chosen"
        page.table(["number of clusters", "mean validation log-likelihood per row", ""], rows, numeric=(0, 1),
                   row_classes=classes)
        page.figure(
            lambda: plot_validation_curve(points, "number of clusters", chosen=result.n_clusters,
                                          title="Mean validation log-likelihood against the number of clusters"),
            "validation log-likelihood against the number of clusters",
            "Mean validation log-likelihood per row over the tasks; the red star is the chosen number of clusters.",
        )
    if result.graphs:
        page.figure(
            lambda: plot_cluster_structures(result.graphs, result.labels),
            "learned structures of the tasks, grouped by cluster",
            "Each task's learned structure on one shared layout, grouped by cluster: grey edges are shared by "
            "every task of the cluster, coloured edges are not (at most 16 tasks drawn).",
        )
    page.heading("All task distances")
    order = None
    if len(names) > 1 and Z.shape[0]:
        from scipy.cluster.hierarchy import leaves_list

        order = [names[i] for i in leaves_list(Z)]
    _matrix_sections(page, rel, heatmap_order=order)
    return page


def clustering_report_html(result, options=None):
    """One self-contained HTML page describing a :class:`~mtbn.relatedness.ClusteringResult`."""
    _check_type(result, ClusteringResult, "clustering_report_html")
    return _clustering_page(result, options).render_html(_provenance(options))


def clustering_report_markdown(result, options=None):
    """The numbers of :func:`clustering_report_html` as Markdown tables (no images)."""
    _check_type(result, ClusteringResult, "clustering_report_markdown")
    return _clustering_page(result, options, draw=False).render_markdown(_provenance(options))


# ---------------------------------------------------------------------------
# Type checks and writing files
# ---------------------------------------------------------------------------


register("report-result-type", InvalidParameterError, "{where} needs a {expected}; got {got}.",
         cause="A report writer was given the result of another function.",
         fix="Pass the result of the matching function (e.g. select_tasks for write_selection_report).")


def _check_type(result, cls, where):
    if not isinstance(result, cls):
        raise error("report-result-type", where=where, expected=cls.__name__, got=type(result).__name__)


def _write_text(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _write_matrices(rel, out_dir):
    paths = {"distance": os.path.join(out_dir, "distance.csv")}
    rel.distance.to_csv(paths["distance"], float_format="%.17g")
    if rel.log_likelihood is not None:
        paths["loglik"] = os.path.join(out_dir, "loglik.csv")
        rel.log_likelihood.to_csv(paths["loglik"], float_format="%.17g")
    if getattr(rel, "floor", None) is not None and rel.null_max is not None and len(rel.null_max):
        paths["noise_floor"] = os.path.join(out_dir, "noise_floor.csv")
        rel.floor_table().to_csv(paths["noise_floor"], index=False, float_format="%.17g")
    return paths


def _json_safe(value):
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(float(value)) else float(value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)


def _write_pages(page, out_dir, options):
    prov = _provenance(options)
    paths = {"html": os.path.join(out_dir, "report.html"), "markdown": os.path.join(out_dir, "report.md")}
    _write_text(paths["html"], page.render_html(prov))
    _write_text(paths["markdown"], page.render_markdown(prov))
    return paths


def write_selection_report(result, out_dir, options=None):
    """Write ``selected.json``, ``distance.csv`` (and ``loglik.csv`` for the indirect measure),
    ``report.html`` and ``report.md`` to ``out_dir`` (created if missing).

    ``selected.json`` is :meth:`SelectionResult.to_dict` plus the single-task
    edges, the edge changes and the options. Returns a dict of the paths
    written.
    """
    _check_type(result, SelectionResult, "write_selection_report")
    os.makedirs(out_dir, exist_ok=True)
    paths = _write_matrices(result.relatedness, out_dir)
    summary = result.to_dict()
    diff = compare_structures(result.graph, result.single_task_graph)
    summary["single_task_edges"] = [list(e) for e in result.single_task_graph.edges(names=True)]
    summary["structure_changes"] = {k: [list(e) for e in v] for k, v in diff.items() if k != "unchanged"}
    summary["options"] = dict(options or {})
    paths["selected"] = os.path.join(out_dir, "selected.json")
    _write_text(paths["selected"], json.dumps(_json_safe(summary), indent=2) + "\n")
    paths.update(_write_pages(_selection_page(result, options), out_dir, options))
    return paths


def write_relatedness_report(result, out_dir, options=None):
    """Write ``distance.csv`` (and ``loglik.csv`` for the indirect measure), ``report.html`` and
    ``report.md`` to ``out_dir`` (created if missing). Returns a dict of the paths written."""
    _check_type(result, RelatednessResult, "write_relatedness_report")
    os.makedirs(out_dir, exist_ok=True)
    paths = _write_matrices(result, out_dir)
    paths.update(_write_pages(_relatedness_page(result, options), out_dir, options))
    return paths


def write_clustering_report(result, out_dir, options=None):
    """Write ``clusters.json``, ``distance.csv``, ``report.html`` and ``report.md`` to ``out_dir``.

    ``clusters.json`` is :meth:`ClusteringResult.to_dict` plus the members
    of each cluster, each task's edges, the linkage matrix and the options.
    Returns a dict of the paths written.
    """
    _check_type(result, ClusteringResult, "write_clustering_report")
    os.makedirs(out_dir, exist_ok=True)
    paths = _write_matrices(result.relatedness, out_dir)
    summary = result.to_dict()
    clusters = {}
    for t, c in result.labels.items():
        clusters.setdefault(str(c), []).append(t)
    summary["measure"] = result.relatedness.measure
    summary["clusters"] = {c: clusters[c] for c in sorted(clusters, key=int)}
    summary["edges"] = {t: [list(e) for e in g.edges(names=True)] for t, g in result.graphs.items()}
    summary["linkage"] = np.asarray(result.linkage, dtype=float).tolist()
    summary["options"] = dict(options or {})
    paths["clusters"] = os.path.join(out_dir, "clusters.json")
    _write_text(paths["clusters"], json.dumps(_json_safe(summary), indent=2) + "\n")
    paths.update(_write_pages(_clustering_page(result, options), out_dir, options))
    return paths


# ---------------------------------------------------------------------------
# Learning report (mtbn learn --report)
# ---------------------------------------------------------------------------


def _learn_page(result, bootstrap=None, options=None, draw=True):
    names = [str(n) for n in result.task_names]
    graphs = dict(zip(names, result.graphs))
    k = len(names)
    page = _Page("Multitask structure learning", draw)
    page.para(
        f"mtbn learned one Bayesian network for each of {k} task(s) jointly: BDeu per task and a prior that "
        "penalises edges that differ between tasks, with penalty &delta; between 0 (independent learning) and "
        "1 (one shared structure).",
        f"mtbn learned one Bayesian network for each of {k} task(s) jointly (BDeu per task, a prior that "
        "penalises edges that differ between tasks, penalty delta from 0 = independent to 1 = shared).",
        cls="lead",
    )
    tr = result.transfer or {}
    items = [f"Penalty used: {format_number(result.penalty)}" + (" (independent learning)" if result.penalty == 0 else "")]
    if tr.get("message"):
        items.append(tr["message"])
    rel = tr.get("relatedness")
    if rel:
        items.append(f"Relatedness test: mean rank correlation of the tasks' pairwise dependences "
                     f"{format_number(rel['statistic'], 3)} (about 0 for unrelated tasks), p = {format_number(rel['p_value'], 3)} "
                     f"over {rel['permutations']} relabellings")
    page.box([_e(x) for x in items], items)
    per_task = tr.get("tasks") or {}
    page.heading("Tasks")
    rows = []
    for t, name in enumerate(names):
        v = per_task.get(name, {})
        r = v.get("relatedness") or {}
        rows.append([name, str(graphs[name].n_edges), format_number(result.task_log_likelihoods[t], 8),
                     "" if v.get("gain") is None else format_number(v["gain"], 4),
                     "" if v.get("se") is None else format_number(v["se"], 2), v.get("verdict", ""),
                     "" if not r else format_number(r["p_value"], 3)])
    page.para("Per task: its edges, its BDeu score, and on held-out rows (cross-validation) how much the chosen "
              "penalty gained over independent learning (nats per row, with its paired standard error), and the "
              "relabelling test of that task against the others (small p: its dependences are like the others').")
    page.table(["task", "edges", "BDeu", "held-out gain", "SE", "transfer", "relatedness p"], rows,
               numeric=(1, 2, 3, 4, 6))
    if result.penalty_path:
        page.heading("Penalty path")
        best = max(result.penalty_path, key=lambda p: p.validation_log_likelihood)
        prow = [[f"{p.penalty:.15g}", format_number(p.validation_log_likelihood, 6),
                 "" if p.se_vs_best is None else format_number(p.se_vs_best, 2),
                 str(sum(g.n_edges for g in p.graphs))] for p in result.penalty_path]
        chosen = {i: "chosen" for i, p in enumerate(result.penalty_path) if p.penalty == tr.get("selected_penalty")}
        page.para("Each penalty of the grid, learned on the training folds and scored on the held-out rows "
                  f"(the best: {best.penalty:.15g}). The rule takes the weakest coupling within one standard "
                  "error of the best; the guard then compares it with penalty 0.")
        page.table(["penalty", "held-out log-likelihood per row", "SE vs best", "edges (all tasks)"], prow,
                   numeric=(0, 1, 2, 3), row_classes=chosen)
    page.heading("Structures")
    strength = None
    if bootstrap is not None:
        strength = {}
        for name in names:
            tab = bootstrap.strength(name)
            strength[name] = {(a, b): s for a, b, s in zip(tab["from"], tab["to"], tab["strength"])}
    page.figure(lambda: _png(plot_tasks(graphs, strength=strength)), "the tasks' structures",
                "Every task on one layout; an edge's colour says how many tasks have it (grey: all, red: one)"
                + ("; its width, how often the bootstrap replicates have it." if strength else "."))
    count = {}
    for name in names:
        for e in graphs[name].edges(names=True):
            count.setdefault(e, []).append(name)
    differ = sorted((e for e, ts in count.items() if len(ts) < k), key=lambda e: (len(count[e]), e))
    page.heading("Edges that differ between tasks")
    if not differ:
        page.para("Every task has the same edges.")
    else:
        headers = ["edge", "tasks that have it"] + ([f"bootstrap: {n}" for n in names] if strength else [])
        drows = []
        for u, v in differ:
            row = [f"{u} -> {v}", ", ".join(count[(u, v)])]
            if strength:
                row += [format_number(strength[n].get((u, v), 0.0), 3) for n in names]
            drows.append(row)
        page.para(f"{len(differ)} edge(s) are in some tasks but not all"
                  + (" (bootstrap columns: how often each task's replicates have the adjacency)." if strength
                     else "."))
        page.table(headers, drows, numeric=tuple(range(2, 2 + (k if strength else 0))))
    if bootstrap is not None:
        page.heading("Bootstrap")
        table = bootstrap.edge_table()
        page.para(f"{bootstrap.edges.shape[0]} bootstrap replicates (rows resampled within every task). "
                  "Per adjacency: in how many replicates it is in every task, in exactly one task, or in none; the "
                  "adjacencies most often task-specific first. High frequencies are well calibrated; middle "
                  "ones overstate (docs/results.md).")
        top = table.sort_values(["one_task", "all_tasks"], ascending=[False, False]).head(30)
        page.table(["x", "y", "in all tasks", "in one task", "in none"],
                   [[r.x, r.y, format_number(r.all_tasks, 3), format_number(r.one_task, 3), format_number(r.none, 3)]
                    for r in top.itertuples()], numeric=(2, 3, 4))
    return page


def write_learn_report(result, out_dir, *, bootstrap=None, options=None):
    """Write ``report.html`` and ``report.md`` for a :class:`~mtbn.learn.MultitaskResult` to ``out_dir``.

    With ``bootstrap`` (a :class:`~mtbn.bootstrap.BootstrapResult`), edge
    widths show the bootstrap frequencies and a bootstrap section is added.
    Returns a dict of the paths written.
    """
    os.makedirs(out_dir, exist_ok=True)
    return _write_pages(_learn_page(result, bootstrap, options), out_dir, options)
