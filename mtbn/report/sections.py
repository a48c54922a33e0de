"""Sections that several pages share: how a relatedness measure works, the task matrices, the dendrogram.

Each function appends blocks to a :class:`~mtbn.report.document._Document`
and formats what a :class:`~mtbn.relatedness.RelatednessResult` holds.
"""

import numpy as np

from mtbn.relatedness import average_link_clusters
from mtbn._validation import format_penalty
from mtbn.report.document import _code, _em, _strong
from mtbn.report.figures import plot_dendrogram, plot_distance_heatmap, plot_validation_curve
from mtbn.report.formatting import _curve_points, _curve_ses, format_number

__all__ = []


# ---------------------------------------------------------------------------
# The measure
# ---------------------------------------------------------------------------


def _measure_paragraphs(doc, rel, delta=0.9, folds=10):
    """The plain-language description of the measure and of how to read its matrices.

    ``delta`` and ``folds`` are the settings the relatedness was computed
    with; :class:`~mtbn.relatedness.RelatednessResult` does not record them.
    """
    if rel.measure == "direct":
        if not isinstance(delta, (int, float)) or isinstance(delta, bool):
            delta = 0.9
        doc.para(_strong("Direct measure"), " (paper Section 2.4.1): the structures of all tasks were learned "
                 "together with multitask structure learning at a mild penalty (delta = "
                 f"{format_penalty(delta)}), which reduces the variance of the greedy search without making the "
                 "structures artificially alike. The distance between two tasks is the ", _em("edit distance"),
                 " between their learned structures: the number of edge additions, deletions and reversals that "
                 "turn one into the other. It is symmetric, zero on the diagonal and a proper metric. "
                 "Smaller = more related.")
        return
    s, e = _em("s"), _em("e")
    doc.para(_strong("Indirect measure"), " (paper Section 2.4.2): each task's structure was learned from its own "
             "data only. Then, for every pair (structure source ", s, ", evaluated task ", e, "), the parameters of ",
             s, "'s structure were fitted on ", e, "'s data and scored on held-out rows of ", e,
             f" ({folds}-fold cross-validation; mean log-likelihood per row, higher = better).")
    doc.para("How to read the two matrices: the ", _strong("raw log-likelihood matrix"), " has ",
             _strong("row = structure source"), ", ", _strong("column = evaluated task"), ". The ",
             _strong("distance matrix"), " has ", _strong("row = the task being explained"), " (e.g. the principal) "
             "and ", _strong("column = the structure source"), ": ",
             _code("distance[e, s] = loglik[e, e] - loglik[s, e]"), ", how much worse task ", e, "'s own held-out "
             "data is explained by ", s, "'s structure than by its own. Values in one row are comparable (same "
             "data); the matrix is not symmetric, and a negative value means another task's structure explained "
             "the row task's data better than its own structure did.")


# ---------------------------------------------------------------------------
# The matrices
# ---------------------------------------------------------------------------


def _matrix_rows(df, digits=6):
    return [[str(idx)] + [format_number(v, digits) for v in df.loc[idx]] for idx in df.index]


def _distance_section(doc, rel, heatmap_order=None):
    """The distance heatmap and table."""
    names = [str(n) for n in rel.names]
    indirect = rel.measure == "indirect"
    x, y = ("structure source (column)", "task being explained (row)") if indirect else ("task", "task")
    title = f"{rel.measure.capitalize()} task distance (smaller = more related)"
    doc.figure(lambda: plot_distance_heatmap(rel.distance, title, xlabel=x, ylabel=y, colorbar_label="distance",
                                             cmap="viridis", order=heatmap_order),
               "heatmap of the task distance matrix",
               f"{rel.measure.capitalize()} distance between every pair of tasks"
               + (" (row = task being explained, column = structure source)." if indirect else " (symmetric).")
               + (" Tasks in dendrogram order." if heatmap_order is not None else ""))
    doc.heading("Distance matrix")
    doc.para("Row = task being explained, column = structure source. Smaller = more related." if indirect else
             "Edit distances between the learned structures (symmetric). Smaller = more related.")
    doc.table(["task"] + names, _matrix_rows(rel.distance), numeric=range(1, len(names) + 1))
    if getattr(rel, "interval", None) is not None:
        low, high = rel.interval
        doc.para(f"95% bootstrap intervals of the distances ({rel.n_boot} replicates: the rows of every task "
                 "resampled, all tasks relearned jointly at the same penalty). An interval says how much a distance moves "
                 "when the data are resampled (replicates have fewer distinct rows, so their structures are "
                 "noisier and the interval usually lies above the distance itself); the noise floor (below, when "
                 "computed) says whether a distance is above chance.")
        doc.table(["task"] + names,
                  [[str(a)] + ["" if a == b else f"{format_number(low.loc[a, b])} - {format_number(high.loc[a, b])}"
                               for b in rel.distance.columns] for a in rel.distance.index])


def _noise_section(doc, rel):
    """The noise floor and the pairs within it (direct measure with a floor only)."""
    within = rel.within_noise()
    if within is None:
        return
    names = [str(n) for n in rel.names]
    doc.heading("Noise floor")
    doc.para(f"Distances no larger than {format_number(rel.floor)} are within noise. The floor comes from a "
             "permutation null: the rows of all tasks are pooled and dealt at random into pseudo-tasks of the same "
             "sizes (so they differ only by chance), learned jointly as above, and the largest distance among them "
             "is recorded; the floor is the 95th percentile (an observed value) of that largest distance over "
             f"{len(rel.null_max)} replicates. A distance within it is no evidence that two tasks differ.")
    pairs = [f"{a} - {b}" for i, a in enumerate(names) for b in names[i + 1:] if within.loc[a, b]]
    doc.para("Pairs within noise: " + (", ".join(pairs) if pairs else "none") + ".")


def _loglik_section(doc, rel):
    """The raw log-likelihood heatmap and table (indirect measure only)."""
    if rel.log_likelihood is None:
        return
    names = [str(n) for n in rel.names]
    doc.figure(lambda: plot_distance_heatmap(rel.log_likelihood, "Held-out log-likelihood per row (higher = better)",
                                             xlabel="evaluated task (column)", ylabel="structure source (row)",
                                             colorbar_label="mean log-likelihood per row", cmap="magma"),
               "heatmap of the raw cross-validated log-likelihood matrix",
               "Raw log-likelihood matrix: row = structure source, column = evaluated task. Compare values within "
               "a column (same evaluated data).")
    doc.heading("Raw log-likelihood matrix")
    doc.para("Row = structure source, column = evaluated task; mean held-out log-likelihood per row.")
    doc.table(["structure source \\ evaluated task"] + names, _matrix_rows(rel.log_likelihood),
              numeric=range(1, len(names) + 1))


def _matrix_sections(doc, rel, heatmap_order=None):
    """Distance (and log-likelihood) matrices as tables and heatmaps, with the noise floor."""
    _distance_section(doc, rel, heatmap_order)
    _noise_section(doc, rel)
    _loglik_section(doc, rel)


# ---------------------------------------------------------------------------
# The dendrogram and the validation curve
# ---------------------------------------------------------------------------


def _context_linkage(rel):
    """The average-link linkage of a relatedness matrix, for a figure (None if it cannot be computed).

    :class:`~mtbn.relatedness.RelatednessResult` carries no linkage, so the
    library's own :func:`~mtbn.relatedness.average_link_clusters` draws it.
    """
    D = rel.distance.to_numpy(dtype=float)
    if len(D) < 2 or not np.all(np.isfinite(D)):
        return None
    return average_link_clusters(D, 1)[1]


def _merge_rows(Z, names):
    """One table row per merge of a linkage: step, the two groups joined, their average distance."""
    clusters = {i: [n] for i, n in enumerate(names)}
    rows = []
    for step, (a, b, h, _) in enumerate(np.asarray(Z, dtype=float)):
        a, b = int(a), int(b)
        clusters[len(names) + step] = clusters[a] + clusters[b]
        rows.append([str(step + 1), ", ".join(clusters[a]), ", ".join(clusters[b]), format_number(h)])
    return rows


def _dendrogram_section(doc, Z, names, measure, *, title=None, n_clusters=None, caption, merges=True,
                        alt="dendrogram of the tasks"):
    """A dendrogram figure and, with ``merges``, the table of its merge steps."""
    doc.figure(lambda: plot_dendrogram(Z, names, n_clusters=n_clusters, title=title,
                                       ylabel=f"average-link {measure} distance"),
               alt, caption)
    if merges:
        doc.heading("Merge steps of the dendrogram")
        doc.table(["step", "joined", "with", "average distance"], _merge_rows(Z, names), numeric=(0, 3))


def _symmetrised(measure):
    """How an indirect (asymmetric) distance enters the average link."""
    return " (symmetrised as (D + D^T) / 2)" if measure == "indirect" else ""


def _curve_section(doc, curve, chosen, headers, *, describe=None, xlabel, title, alt, caption):
    """A validation curve as a table (the chosen row highlighted, each point's SE vs the best) and a figure
    (error bars, the chosen point marked).

    ``curve`` is the result's ``validation_curve``; ``chosen`` what the
    result says was chosen; ``describe(x)``, when given, fills a column
    between x and the log-likelihood.
    """
    points = _curve_points(curve)
    ses = _curve_ses(curve)
    rows, classes = [], {}
    for i, (x, ll) in enumerate(points):
        se = "" if ses is None or np.isnan(ses[i]) else format_number(ses[i], 2)
        rows.append([str(x)] + ([describe(x)] if describe else []) + [format_number(ll), se,
                                                                     "chosen" if x == chosen else ""])
        if x == chosen:
            classes[i] = "chosen"
    headers = headers[:-1] + ["SE vs best"] + headers[-1:]
    doc.table(headers, rows, numeric=(0, len(headers) - 3, len(headers) - 2), row_classes=classes)
    doc.figure(lambda: plot_validation_curve(curve, xlabel, chosen=chosen, title=title), alt, caption)


def _matrices_and_tree(doc, rel, heading, *, context):
    """A section with the matrices and the average-link dendrogram of all tasks.

    With ``context`` (the selection page) the dendrogram is background to the
    page's subject and its merge steps are left out.
    """
    doc.heading(heading)
    _matrix_sections(doc, rel)
    Z = _context_linkage(rel)
    if Z is None:
        return
    tail = (", for context: tasks that join low in the tree are closely related." if context else
            ": tasks that join low in the tree are closely related (paper Figure 2.16).")
    _dendrogram_section(doc, Z, [str(n) for n in rel.names], rel.measure, merges=not context,
                        title="Average-link clustering of all tasks (context)" if context else None,
                        alt="dendrogram of all tasks" if context else "dendrogram of the tasks",
                        caption=("Average-link clustering of all tasks on the distance matrix" if context else
                                 "Average-link clustering on the distance matrix") + _symmetrised(rel.measure) + tail)
