"""Readable reports of task relatedness, task selection, task clustering and multitask fits.

Turns the results of :mod:`mtbn.relatedness` (paper Section 2.4) and
:mod:`mtbn.learn` into

* figures, each returned as PNG bytes (:mod:`~mtbn.report.figures`,
  :mod:`~mtbn.report.structure_figures`): the sorted distances from a
  principal task with the largest gap marked ("gap hunting", Figure 2.12), a
  heatmap of a task distance matrix, an average-link dendrogram (Figure
  2.16), a validation curve, the principal's learned structure against its
  single-task structure, and the learned structures of clustered tasks;
* one document per result (:mod:`~mtbn.report.pages`,
  :mod:`~mtbn.report.learn_page`), written once and rendered
  (:mod:`~mtbn.report.document`) as a self-contained HTML page (inline CSS,
  every image embedded as a ``data:`` URI, nothing fetched from anywhere)
  and as a Markdown page with the same text and tables;
* ``write_*_report`` functions (:mod:`~mtbn.report.writers`) that write
  those pages together with the numbers as CSV / JSON files.

The pages format what the result objects say (what was chosen and how);
they do not choose again.

How the matrices are read:

* ``distance`` (both measures): smaller = more related. For the indirect
  measure the matrix is not symmetric: row = the task being explained,
  column = the task whose structure explains it.
* ``log_likelihood`` (indirect measure only): row = structure source,
  column = evaluated task (mean held-out log-likelihood per row).

matplotlib is needed for the figures and is imported only when a figure is
drawn.
"""

from mtbn.report.figures import (
    PNG_SIGNATURE,
    plot_dendrogram,
    plot_distance_heatmap,
    plot_sorted_distances,
    plot_validation_curve,
)
from mtbn.report.formatting import format_number
from mtbn.report.structure_figures import plot_cluster_structures, plot_mechanisms, plot_network_comparison, plot_tasks
from mtbn.report.structures import compare_structures
from mtbn.report.writers import (
    clustering_report_html,
    clustering_report_markdown,
    relatedness_report_html,
    relatedness_report_markdown,
    selection_report_html,
    selection_report_markdown,
    write_clustering_report,
    write_learn_report,
    write_relatedness_report,
    write_selection_report,
)

__all__ = [
    "compare_structures",
    "format_number",
    "plot_sorted_distances",
    "plot_distance_heatmap",
    "plot_dendrogram",
    "plot_validation_curve",
    "plot_network_comparison",
    "plot_cluster_structures",
    "plot_tasks",
    "plot_mechanisms",
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
