"""The pages of the relatedness, selection and clustering results.

Each ``_*_page(result, options)`` returns a
:class:`~mtbn.report.document._Document`. The pages format what the result
objects of :mod:`mtbn.relatedness` say: the chosen N, the chosen number of
clusters, the linkage, the selection rule. They decide nothing again.
``options`` (what the caller ran with, shown as provenance) is read only for
the settings the results do not record: the relatedness penalty, the number
of folds, and whether the multitask penalty was given or chosen.

The page of a multitask fit (``mtbn learn --report``) is in
:mod:`mtbn.report.learn_page`.
"""

import numpy as np

from mtbn.metrics import shared_edges
from mtbn._validation import format_penalty
from mtbn.report.document import _code, _Document, _strong
from mtbn.report.figures import plot_sorted_distances
from mtbn.report.formatting import _curve_points, _edge_text, _isnan, _sorted_items, format_number
from mtbn.report.sections import (_curve_section, _dendrogram_section, _matrices_and_tree, _matrix_sections,
                                  _measure_paragraphs)
from mtbn.report.structure_figures import plot_cluster_structures, plot_network_comparison
from mtbn.report.structures import _cluster_members, compare_structures

__all__ = []


def _labelled(label, value):
    """A summary-box item "**label:** value"."""
    return (_strong(f"{label}:"), f" {value}")


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


def _n_choice_text(result):
    """How N was chosen, in words, from ``result.how``, ``result.rule`` and ``result.n_within_noise``."""
    if result.how == "given":
        return "N was given by the user."
    if result.how == "gap":
        return "N is the number of tasks before the largest gap in the sorted distances (\"gap hunting\", paper " \
               "Figure 2.12)."
    if result.how != "validation":
        return str(result.how)
    rule = ("the smallest N whose validation log-likelihood per row is within one paired standard error of the best "
            "(toward less transfer)" if result.rule == "one-se" else
            "the N with the highest validation log-likelihood per row (the smallest on ties)")
    floor = (f"; N was at least {result.n_within_noise}, the tasks within noise of the principal (distance no larger "
             "than the noise floor, the distance tasks that differ only by chance stay within)"
             if result.n_within_noise else "")
    return ("N was chosen on a validation split of the principal's rows, held out of every learned structure and "
            f"separate from the split that picks the penalty: {rule}{floor}.")


def _gap_bounds(result):
    """The distances on either side of the largest gap (NaN when there is none)."""
    if 0 < result.gap < len(result.order):
        return result.distances[result.order[result.gap - 1]], result.distances[result.order[result.gap]]
    return float("nan"), float("nan")


def _gap_note(result):
    """What gap hunting gives, and where the gap lies."""
    k, gap = len(result.order), result.gap
    lo, hi = _gap_bounds(result)
    note = ""
    if k == 1:
        note = f"With a single other task there is no gap to hunt; gap hunting gives N = {gap}."
    elif _isnan(lo) or _isnan(hi):
        note = f"Gap hunting gives N = {gap}." if k else ""
    elif not hi > lo:
        note = f"The sorted distances have no gap (they do not increase); gap hunting gives N = {gap}."
    else:
        note = (f"The largest gap in the sorted distances lies between {result.order[gap - 1]} ({format_number(lo)}) "
                f"and {result.order[gap]} ({format_number(hi)}), a jump of {format_number(hi - lo)}: gap hunting "
                f"would choose N = {gap}.")
    missing = [t for t in result.order if _isnan(result.distances[t])]
    if missing:
        note += (f" No distance could be computed for {', '.join(missing)} (n/a: a structure and a task do not share "
                 "all variables).")
    return note


def _penalty_text(result, options):
    """The multitask penalty of the final run; whether it was given or chosen comes from ``options``
    (:class:`~mtbn.relatedness.SelectionResult` does not record it)."""
    if _isnan(result.penalty):
        return "none (N = 0: single-task learning)"
    given = options.get("penalty")
    origin = ("given" if isinstance(given, (int, float)) else
              "chosen on a validation split of the tasks' rows" if given == "auto" else "")
    return (f"delta = {format_penalty(result.penalty)}" + (f" ({origin})" if origin else "")
            + "; delta = 0 learns the tasks independently, delta = 1 forces identical structures")


def _selection_summary(doc, result, options, diff):
    k = len(result.order)
    gap_note = _gap_note(result)
    doc.box([
        _labelled("Principal task", result.principal),
        _labelled("Selected tasks", f"{', '.join(result.selected) or 'none'} (N = {result.n_selected} of {k})"),
        _labelled("How N was chosen", f"{result.how}: {_n_choice_text(result)}"),
        _labelled("Gap hunting", gap_note or "n/a"),
        _labelled("Multitask penalty of the final run", _penalty_text(result, options)),
        _labelled("Learned structure", f"{result.graph.n_edges} edges; vs single-task "
                  f"({result.single_task_graph.n_edges} edges): {len(diff['added'])} added, "
                  f"{len(diff['removed'])} removed, {len(diff['reversed'])} reversed, "
                  f"{len(diff['unchanged'])} unchanged"),
    ])


def _sorted_distances_section(doc, result):
    doc.heading("Distances from the principal, sorted")
    if not result.order:
        doc.para("There is no other task: the principal was learned alone (single-task learning).")
        return
    lo, hi = _gap_bounds(result)
    rows, classes, prev = [], {}, None
    for i, name in enumerate(result.order):
        d = result.distances[name]
        step = "" if prev is None or _isnan(d) or _isnan(prev) else format_number(float(d) - float(prev))
        at_gap = i + 1 == result.gap and hi > lo
        rows.append([str(i + 1), name, format_number(d), step, "yes" if name in result.selected else "",
                     "largest gap below" if at_gap else ""])
        prev = d
        if at_gap:
            classes[i] = "gap"
    doc.table(["rank", "task", "distance", "increase from previous", "selected", "gap"], rows, numeric=(0, 2, 3),
              row_classes=classes)
    doc.figure(lambda: plot_sorted_distances(result.distances, result.principal, result.gap,
                                             selected=result.selected, measure=result.relatedness.measure),
               "bar chart of the sorted distances from the principal task",
               "Distances from the principal, most related first; selected tasks dark blue. The dashed red line "
               "marks the largest gap between consecutive distances (gap hunting, paper Figure 2.12).")


def _choice_of_n_section(doc, result):
    doc.heading("Choice of N")
    gap_note = _gap_note(result)
    doc.para(_n_choice_text(result) + (" " + gap_note if gap_note else ""))
    if not result.validation_curve:
        doc.para("No validation curve: N was not chosen by validation.")
        return
    _curve_section(doc, result.validation_curve, result.n_selected,
                   ["N", "tasks learned with", "validation log-likelihood per row", ""],
                   describe=lambda n: ", ".join(result.order[:n]) if n else "none (single-task)",
                   xlabel="N (number of closest tasks learned with)",
                   title=f"Validation log-likelihood of {result.principal} against N",
                   alt="validation log-likelihood against the number of selected tasks",
                   caption="Validation log-likelihood per row of the principal's held-out rows against N, with "
                           "each point's paired standard error against the best; the dashed line marks the chosen N.")


def _structure_change_section(doc, result, diff):
    doc.heading("Learned structure vs single-task structure")
    doc.para("The principal's single-task structure was learned from the same rows with the same settings, without "
             f"any other task. Multitask learning with the selected task(s) added {len(diff['added'])}, removed "
             f"{len(diff['removed'])} and reversed {len(diff['reversed'])} edge(s); {len(diff['unchanged'])} "
             "edge(s) are unchanged.")
    rows = ([["added", _edge_text(e)] for e in diff["added"]]
            + [["removed", _edge_text(e)] for e in diff["removed"]]
            + [["reversed", f"{_edge_text(e[::-1])} became {_edge_text(e)}"] for e in diff["reversed"]])
    if rows:
        doc.table(["change", "edge (parent -> child)"], rows)
    else:
        doc.para("The learned structure is identical to the single-task structure.")
    sel = ", ".join(result.selected) or "none"
    doc.figure(lambda: plot_network_comparison(result.graph, result.single_task_graph,
                                               title=f"{result.principal}: single-task vs learned with {sel}"),
               "the principal's single-task and learned structures side by side",
               "Same layout in both panels. Left: single-task structure; edges that multitask learning removed are "
               "dashed red. Right: learned structure; added edges green. Reversed edges orange, unchanged grey.")
    if diff["unchanged"]:
        doc.details(f"{len(diff['unchanged'])} unchanged edge(s)", [_edge_text(e) for e in diff["unchanged"]])


def _selection_page(result, options=None):
    """The page of a :class:`~mtbn.relatedness.SelectionResult`."""
    options = dict(options or {})
    rel = result.relatedness
    diff = compare_structures(result.graph, result.single_task_graph)
    doc = _Document(f"Task selection for principal task {result.principal!r}")
    doc.para(f"mtbn ordered the {len(result.order)} other task(s) by their ", _strong(rel.measure),
             " distance from the principal task ", _strong(result.principal), " (smaller = more related), then "
             "learned the principal's Bayesian network with multitask structure learning together with the ",
             _strong(f"N = {result.n_selected}"), " closest task(s) (paper Section 2.4). Only the principal's network "
             "is reported; the other tasks only help it.", lead=True)
    _measure_paragraphs(doc, rel, delta=options.get("relatedness_penalty", 0.9))
    _selection_summary(doc, result, options, diff)
    _sorted_distances_section(doc, result)
    _choice_of_n_section(doc, result)
    _structure_change_section(doc, result, diff)
    _matrices_and_tree(doc, rel, "All task distances", context=True)
    return doc


# ---------------------------------------------------------------------------
# Relatedness
# ---------------------------------------------------------------------------


def _nearest_rows(result, names):
    """Per task: its nearest task, that distance, all others most related first, its edges."""
    rows = []
    for name in names:
        others = _sorted_items(result.from_task(name).to_dict()) if len(names) > 1 else []
        nearest = others[0] if others else ("n/a", float("nan"))
        rows.append([name, nearest[0], format_number(nearest[1]),
                     ", ".join(f"{k} ({format_number(v, 4)})" for k, v in others),
                     str(result.graphs[name].n_edges) if name in result.graphs else ""])
    return rows


def _relatedness_page(result, options=None):
    """The page of a :class:`~mtbn.relatedness.RelatednessResult`."""
    options = dict(options or {})
    names = [str(n) for n in result.names]
    doc = _Document(f"Task relatedness ({result.measure} measure)")
    doc.para(f"mtbn measured how related {len(names)} tasks are with the ", _strong(result.measure),
             " measure of paper Section 2.4. A smaller distance means more related tasks; the distances can be used "
             "to choose the tasks to learn a principal task with (", _code("mtbn select"), ") or to cluster the "
             "tasks (", _code("mtbn cluster"), ").", lead=True)
    _measure_paragraphs(doc, result, delta=options.get("penalty", 0.9), folds=options.get("folds", 10))
    doc.heading("Nearest tasks")
    doc.para("For each task (a row of the distance matrix), the other tasks from most to least related."
             + (" For the indirect measure this is how well each other task's structure explains this task's data."
                if result.measure == "indirect" else ""))
    doc.table(["task", "nearest task", "distance", "all others, most related first", "edges in its structure"],
              _nearest_rows(result, names), numeric=(2, 4))
    _matrices_and_tree(doc, result, "Figures and matrices", context=False)
    return doc


# ---------------------------------------------------------------------------
# Clustering
# ---------------------------------------------------------------------------


def _cluster_choice_text(result):
    """How the number of clusters was chosen, in words, from ``result.validation_curve`` and ``result.rule``."""
    if not result.validation_curve:
        return "The number of clusters was given by the user."
    rule = ("the largest number whose mean validation log-likelihood per row over the tasks is within one paired "
            "standard error of the best (toward less transfer)" if result.rule == "one-se" else
            "the number with the highest mean validation log-likelihood per row over the tasks")
    floor = ("; cuts that would separate two tasks whose distance is within the noise floor (the distance tasks that "
             "differ only by chance stay within) are not tried" if result.relatedness.within_noise() is not None
             else "")
    return ("The number of clusters was chosen on a small validation split of every task (held out of the "
            f"structures): {rule}. Cuts that give the same partition as a smaller number are not repeated{floor}.")


def _cluster_tables(doc, result, names, members):
    shared = {c: shared_edges([result.graphs[t] for t in ts]) for c, ts in members.items()}
    doc.heading("Clusters")
    doc.table(["cluster", "tasks", "number of tasks", "edges shared by every task of the cluster"],
              [[str(c), ", ".join(ts), str(len(ts)), str(len(shared[c])) if len(ts) > 1 else "n/a"]
               for c, ts in sorted(members.items())], numeric=(0, 2, 3))
    doc.heading("Learned structures")
    rows = []
    for t in names:
        c, g = result.labels[t], result.graphs[t]
        own = [_edge_text(e) for e in g.edges(names=True) if e not in shared[c]]
        rows.append([t, str(c), str(g.n_edges),
                     (", ".join(own) or "none") if len(members[c]) > 1 else "n/a (alone in its cluster)"])
    doc.table(["task", "cluster", "edges", "edges not shared by every other task of its cluster"], rows,
              numeric=(1, 2))


def _clustering_page(result, options=None):
    """The page of a :class:`~mtbn.relatedness.ClusteringResult`."""
    options = dict(options or {})
    rel = result.relatedness
    names = [str(n) for n in rel.names]
    members = _cluster_members({t: result.labels[t] for t in names})
    how = _cluster_choice_text(result)
    doc = _Document(f"Task clustering ({result.n_clusters} cluster{'s' if result.n_clusters != 1 else ''})")
    doc.para(f"mtbn clustered {len(names)} tasks by hierarchical agglomerative clustering with ",
             _strong("average link"), " (at each step the two clusters with the smallest average distance between "
             "their members are joined) on the ", _strong("direct"), " task distance, cut the tree into ",
             _strong(result.n_clusters), " cluster(s), and learned the tasks of each cluster together with "
             "multitask structure learning (a cluster of one task is learned alone) (paper Section 2.4.3, "
             "Figure 2.16).", lead=True)
    _measure_paragraphs(doc, rel, delta=options.get("relatedness_penalty", 0.9))
    doc.box([_labelled("Clusters", result.n_clusters), _labelled("How chosen", how)])
    _cluster_tables(doc, result, names, members)
    Z = np.asarray(result.linkage, dtype=float)
    tree = len(names) > 1 and Z.shape[0] > 0
    if tree:
        _dendrogram_section(doc, Z, names, "direct", n_clusters=result.n_clusters,
                            alt="dendrogram of the tasks with the chosen cut",
                            title="Average-link clustering on the direct distance",
                            caption="Average-link dendrogram on the direct distance (paper Figure 2.16); the dashed "
                                    f"line cuts it into the {result.n_clusters} chosen cluster(s), coloured below "
                                    "the cut.")
    doc.heading("Choice of the number of clusters")
    doc.para(how)
    if result.validation_curve:
        _curve_section(doc, result.validation_curve, result.n_clusters,
                       ["number of clusters", "mean validation log-likelihood per row", ""],
                       xlabel="number of clusters",
                       title="Mean validation log-likelihood against the number of clusters",
                       alt="validation log-likelihood against the number of clusters",
                       caption="Mean validation log-likelihood per row over the tasks, with each point's paired "
                               "standard error against the best; the dashed line marks the chosen number of clusters.")
    if result.graphs:
        doc.figure(lambda: plot_cluster_structures(result.graphs, result.labels),
                   "learned structures of the tasks, grouped by cluster",
                   "Each task's learned structure on one shared layout, grouped by cluster: grey edges are shared by "
                   "every task of the cluster, coloured edges are not (at most 16 tasks drawn).")
    doc.heading("All task distances")
    _matrix_sections(doc, rel, heatmap_order=_leaf_order(Z, names) if tree else None)
    return doc


def _leaf_order(Z, names):
    """The tasks in the left-to-right order of the dendrogram's leaves."""
    from scipy.cluster.hierarchy import leaves_list

    return [names[i] for i in leaves_list(Z)]
