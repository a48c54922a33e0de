"""Figures of distances and validation curves, each returned as PNG bytes.

The sorted distances from a principal task with the largest gap marked
("gap hunting", paper Figure 2.12), a heatmap of a task distance matrix, an
average-link dendrogram (Figure 2.16) and a validation curve. The structure
figures are in :mod:`mtbn.report.structure_figures`.

matplotlib (and scipy for the dendrogram) is imported inside the functions
only: importing this module loads neither. Figures are drawn on a
:class:`matplotlib.figure.Figure` with the Agg backend, never through pyplot's
global state.
"""

import io

import warnings

import numpy as np

from mtbn.exceptions import MtbnError
from mtbn.messages import error, register
from mtbn.report.formatting import _curve_points, _curve_ses, _isnan, _sorted_items, format_number

__all__ = ["PNG_SIGNATURE", "plot_sorted_distances", "plot_distance_heatmap", "plot_dendrogram",
           "plot_validation_curve"]

#: The first bytes of every PNG file.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Edge and mark colours of every figure.
_GREY, _GREEN, _RED, _ORANGE, _BLUE = "#8c8c8c", "#1a9850", "#d73027", "#f28e2b", "#4e79a7"
_PALE_BLUE = "#b7c7d9"

register("matplotlib-missing", MtbnError, "{what} draws plots, and matplotlib is not installed: pip install matplotlib",
         cause="matplotlib is a dependency of mtbn; an environment without it cannot draw the figures of the reports.",
         fix="Install it (pip install matplotlib); bench runs without it when given --no-plots.")


def check_matplotlib(what="the report"):
    """Raise the ``matplotlib-missing`` error when matplotlib cannot be imported (before any work)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise error("matplotlib-missing", what=what) from None


# ---------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------


def _figure(figsize):
    """A new matplotlib Figure (no pyplot state, Agg backend)."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the environment
        raise error("matplotlib-missing", what="the report") from None
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _png(fig, dpi=100):
    """The figure as PNG bytes (no software tag, so that equal figures give equal bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def _wrapped(text, width=60):
    """A title broken into lines of at most ``width`` characters, so that it is never clipped."""
    import textwrap

    return "\n".join(textwrap.wrap(_tex(text), width)) or _tex(text)


def _tex(text):
    """Text safe for matplotlib labels (no accidental mathtext)."""
    return str(text).replace("$", r"\$")


def _empty(fig, ax, text):
    """A figure that only says ``text`` (nothing to draw), as PNG bytes."""
    ax.text(0.5, 0.5, _tex(text), ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    return _png(fig)


# ---------------------------------------------------------------------------
# Sorted distances (gap hunting)
# ---------------------------------------------------------------------------


def _mark_gap(ax, values, gap):
    """A dashed line and a double arrow between bar ``gap - 1`` and bar ``gap`` when the distance rises there."""
    n = len(values)
    if not (0 < gap < n and np.isfinite(values[gap - 1:gap + 1]).all() and values[gap] > values[gap - 1]):
        return
    xg = gap - 0.5
    lo, hi = values[gap - 1], values[gap]
    ax.axvline(xg, color=_RED, linestyle="--", linewidth=1.2)
    ax.annotate("", xy=(xg, hi), xytext=(xg, lo), arrowprops=dict(arrowstyle="<->", color=_RED, linewidth=1.2))
    # Left of the line, above the shorter bars (the distances increase to the right).
    ax.text(xg - 0.08, (lo + hi) / 2, f"largest gap\n+{format_number(hi - lo, 3)}", color=_RED, fontsize=8,
            va="center", ha="right")


def _label_bars(ax, x, values):
    """Each bar's value above it; returns the span of the finite values (for the axis limits)."""
    finite = values[np.isfinite(values)]
    span = float(finite.max() - min(0.0, finite.min())) if len(finite) else 1.0
    span = span or 1.0
    for xi, v in zip(x, values):
        label = "n/a" if np.isnan(v) else format_number(v, 3)
        ax.text(xi, (0 if np.isnan(v) else max(v, 0)) + 0.01 * span, label, ha="center", va="bottom", fontsize=8)
    if len(finite):  # no negative axis for distances that are all >= 0
        low = finite.min()
        ax.set_ylim(low - 0.05 * span if low < 0 else 0.0, max(0.0, finite.max()) + 0.15 * span)


def plot_sorted_distances(distances, principal, gap, *, selected=None, measure=None):
    """Bar chart of the distances from the principal task, in increasing order (Figure 2.12).

    Parameters
    ----------
    distances : dict of task name -> float
        Distance of each other task from the principal.
    principal : str
        Name of the principal task, shown in the title.
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
        return _empty(fig, ax, "no other task")
    x = np.arange(n)
    ax.bar(x, np.nan_to_num(values), color=[_BLUE if name in chosen else _PALE_BLUE for name in names],
           edgecolor="#333333", linewidth=0.6)
    ax.axhline(0, color="#333333", linewidth=0.6)
    ax.set_xticks(x)
    ax.set_xticklabels([_tex(s) for s in names], rotation=45 if n > 6 else 0, ha="right" if n > 6 else "center")
    _label_bars(ax, x, values)
    _mark_gap(ax, values, gap)
    what = f"{measure} distance" if measure else "distance"
    ax.set_ylabel(f"{what} (smaller = more related)")
    ax.set_xlabel("other tasks, most related first")
    ax.set_title(_wrapped(f"Distance from the principal task {principal!r}"))
    if chosen:
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(color=_BLUE, label="selected"), Patch(color=_PALE_BLUE, label="not selected")],
                  loc="upper left", fontsize=8, frameon=False)
    return _png(fig)


# ---------------------------------------------------------------------------
# Heatmap of a task matrix
# ---------------------------------------------------------------------------


def _annotate_cells(ax, values, k):
    """Each cell's value, white on dark cells and black on light ones (up to 12 tasks)."""
    if k > 12 or not values.size:
        return
    finite = values[np.isfinite(values)]
    mid = (finite.min() + finite.max()) / 2 if len(finite) else 0.0
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            color = "white" if np.isfinite(v) and v < mid else "black"
            ax.text(j, i, format_number(v, 3), ha="center", va="center", fontsize=7 if k > 8 else 8, color=color)


def plot_distance_heatmap(distance_df, title, *, xlabel=None, ylabel=None, colorbar_label=None, cmap="viridis",
                          order=None):
    """Heatmap of a square task matrix, task names on both axes, with a colorbar.

    Parameters
    ----------
    distance_df : pandas.DataFrame
        Square; index = rows, columns = columns.
    title : str
        Figure title (wrapped at 60 characters).
    xlabel, ylabel, colorbar_label : str, optional
        Labels of the x axis, the y axis and the colorbar; None or empty: no label.
    cmap : str or matplotlib Colormap, default "viridis"
        Colour map of the cells. Its range spans the finite off-diagonal cells (a task against itself is left out).
    order : list of str, optional
        Task order for both axes (default: the frame's order).

    Returns
    -------
    bytes
        A PNG image.
    """
    df = distance_df if order is None else distance_df.loc[list(order), list(order)]
    values = df.to_numpy(dtype=float)
    rows, cols = [str(r) for r in df.index], [str(c) for c in df.columns]
    k = max(len(rows), len(cols), 1)
    side = min(12.0, 2.5 + 0.55 * k)
    fig = _figure((side + 1.4, side))
    ax = fig.add_subplot()
    # The colour scale spans the off-diagonal cells: a task's zero distance to
    # itself would otherwise squeeze every real distance into one end.
    self_cells = np.array([[r == c for c in cols] for r in rows], dtype=bool).reshape(values.shape)
    scale = values[~self_cells & np.isfinite(values)]
    limits = dict(vmin=float(scale.min()), vmax=float(scale.max())) if scale.size else {}
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, aspect="equal", **limits)
    ax.set_xticks(np.arange(len(cols)))
    ax.set_xticklabels([_tex(c) for c in cols], rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(np.arange(len(rows)))
    ax.set_yticklabels([_tex(r) for r in rows])
    if xlabel:
        ax.set_xlabel(_tex(xlabel))
    if ylabel:
        ax.set_ylabel(_tex(ylabel))
    ax.set_title(_wrapped(title))
    _annotate_cells(ax, values, k)
    cbar = fig.colorbar(im, ax=ax, shrink=0.8)
    if colorbar_label:
        cbar.set_label(_tex(colorbar_label))
    return _png(fig)


# ---------------------------------------------------------------------------
# Dendrogram and validation curve
# ---------------------------------------------------------------------------


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
    title : str, optional
        Figure title (None: "Average-link clustering of the tasks").
    ylabel : str, default "average-link distance"
        Label of the y axis (the merge heights).

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
        return _empty(fig, ax, f"a single task ({names[0] if names else 'none'}): nothing to cluster")
    cut = _cut_height(Z, n_clusters)
    with warnings.catch_warnings():  # every merge at distance 0 (identical tasks): scipy's axis is set below
        warnings.filterwarnings("ignore", message="Attempting to set identical low and high ylims")
        dendrogram(Z, labels=[_tex(n) for n in names], ax=ax, color_threshold=cut if cut is not None else 0.0,
                   above_threshold_color=_GREY, leaf_rotation=45 if len(names) > 6 else 0, leaf_font_size=9)
    if len(names) > 6:  # each rotated label ends under its leaf
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
            label.set_rotation_mode("anchor")
    top = float(Z[:, 2].max()) or 1.0
    ax.set_ylim(-0.03 * top, 1.08 * top)  # merges at distance 0 stay visible
    if cut is not None and n_clusters and n_clusters > 1:
        ax.axhline(cut, color=_RED, linestyle="--", linewidth=1.2)
        ax.text(ax.get_xlim()[0], cut, f" cut: {n_clusters} clusters", color=_RED, fontsize=8, va="bottom",
                ha="left")
    ax.set_ylabel(ylabel)
    ax.set_title(_wrapped(title or "Average-link clustering of the tasks"))
    return _png(fig)


def plot_validation_curve(curve, xlabel, *, chosen=None, title=None, ylabel="validation log-likelihood per row"):
    """Validation log-likelihood against N (or the number of clusters), the chosen point marked.

    Parameters
    ----------
    curve : list of (int, float) or list of dict
        As in ``SelectionResult.validation_curve`` (or its ``to_dict()`` form).
    xlabel : str
        Label of the x axis (what the curve's x counts: selected tasks or clusters).
    chosen : int, optional
        The x the library chose (``SelectionResult.n_selected``,
        ``ClusteringResult.n_clusters``), marked by a dashed line and a ring
        around its point. Without it no point is marked: the figure does not
        guess the selection rule. Error bars: each point's paired standard
        error against the best point, when the curve has them.
    title : str, optional
        Figure title (None: "Validation log-likelihood (higher is better)").
    ylabel : str, default "validation log-likelihood per row"
        Label of the y axis.

    Returns
    -------
    bytes
        A PNG image.
    """
    from matplotlib.ticker import ScalarFormatter

    points = _curve_points(curve)
    fig = _figure((6.4, 4.2))
    ax = fig.add_subplot()
    if not points:
        return _empty(fig, ax, "no validation curve")
    xs, ys = zip(*points)
    ses = _curve_ses(curve)
    if ses is not None:
        ax.errorbar(xs, ys, yerr=np.nan_to_num(ses), marker="o", color=_BLUE, linewidth=1.5, capsize=3,
                    label="mean; bars: paired SE vs the best point")
    else:
        ax.plot(xs, ys, marker="o", color=_BLUE, linewidth=1.5, label="mean")
    hit = [(x, y) for x, y in points if x == chosen]
    if hit:  # a line and a ring, not a point of its own
        ax.axvline(hit[0][0], color=_RED, linestyle="--", linewidth=1.0, zorder=0, label=f"chosen: {chosen}")
        ax.plot([hit[0][0]], [hit[0][1]], marker="o", markersize=13, markerfacecolor="none", markeredgecolor=_RED,
                markeredgewidth=1.5, linestyle="none")
    ax.legend(loc="best", fontsize=8, frameon=False)
    ax.set_xticks(list(xs))
    formatter = ScalarFormatter(useOffset=False)  # the values themselves, never "+1.455e1" above the axis
    formatter.set_scientific(False)
    ax.yaxis.set_major_formatter(formatter)
    ax.set_xlabel(_tex(xlabel))
    ax.set_ylabel(ylabel)
    ax.set_title(_wrapped(title or "Validation log-likelihood (higher is better)"), fontsize=11)
    ax.grid(True, alpha=0.3)
    return _png(fig)
