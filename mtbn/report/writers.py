"""Pages as text and report folders on disk.

``*_report_html`` / ``*_report_markdown`` return one page as a string;
``write_*_report`` write a folder: ``report.html``, ``report.md`` (the same
document rendered twice), the matrices as CSV and the result as JSON.
Folders are created when missing; existing files are overwritten.
"""

import json
import os

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.relatedness import ClusteringResult, RelatednessResult, SelectionResult
from mtbn.report.document import _render_html, _render_markdown
from mtbn.report.formatting import _json_safe, _provenance
from mtbn.report.learn_page import _learn_page
from mtbn.report.pages import _clustering_page, _relatedness_page, _selection_page
from mtbn.report.structures import _cluster_members, compare_structures

__all__ = [
    "selection_report_html", "selection_report_markdown", "relatedness_report_html", "relatedness_report_markdown",
    "clustering_report_html", "clustering_report_markdown", "write_selection_report", "write_relatedness_report",
    "write_clustering_report", "write_learn_report",
]

register("report-result-type", InvalidParameterError, "{where} needs a {expected}; got {got}.",
         cause="A report writer was given the result of another function.",
         fix="Pass the result of the matching function (e.g. select_tasks for write_selection_report).")

# result type -> the page that formats it
_PAGES = {SelectionResult: _selection_page, RelatednessResult: _relatedness_page, ClusteringResult: _clustering_page}


def _page(result, cls, where, options):
    """The document of ``result``, which must be a ``cls``."""
    if not isinstance(result, cls):
        raise error("report-result-type", where=where, expected=cls.__name__, got=type(result).__name__)
    return _PAGES[cls](result, options)


# ---------------------------------------------------------------------------
# Pages as strings
# ---------------------------------------------------------------------------


def selection_report_html(result, options=None):
    """One self-contained HTML page describing a :class:`~mtbn.relatedness.SelectionResult`.

    Parameters
    ----------
    result : SelectionResult
        What :func:`mtbn.relatedness.select_tasks` returned; another type raises
        ``InvalidParameterError``.
    options : dict, optional
        The settings the caller ran with (e.g. the command line's), listed in the page's provenance footer. Two
        are also read, as the result does not record them: ``"relatedness_penalty"`` (the delta of the direct
        measure, described as 0.9 when absent) and ``"penalty"`` (a number: the final penalty was given;
        ``"auto"``: chosen).

    Returns
    -------
    str
        The page as HTML, figures embedded as PNG.
    """
    return _render_html(_page(result, SelectionResult, "selection_report_html", options), _provenance(options))


def selection_report_markdown(result, options=None):
    """The content of :func:`selection_report_html` as Markdown (figures as captions).

    Parameters
    ----------
    result : SelectionResult
        What :func:`mtbn.relatedness.select_tasks` returned; another type raises
        ``InvalidParameterError``.
    options : dict, optional
        The settings the caller ran with (e.g. the command line's), listed in the page's provenance footer. Two
        are also read, as the result does not record them: ``"relatedness_penalty"`` (the delta of the direct
        measure, described as 0.9 when absent) and ``"penalty"`` (a number: the final penalty was given;
        ``"auto"``: chosen).

    Returns
    -------
    str
        The page as Markdown.
    """
    return _render_markdown(_page(result, SelectionResult, "selection_report_markdown", options),
                            _provenance(options))


def relatedness_report_html(result, options=None):
    """One self-contained HTML page describing a :class:`~mtbn.relatedness.RelatednessResult`.

    Parameters
    ----------
    result : RelatednessResult
        What :func:`mtbn.relatedness.relatedness` returned; another type raises
        ``InvalidParameterError``.
    options : dict, optional
        The settings the caller ran with (e.g. the command line's), listed in the page's provenance footer. Two
        are also read, as the result does not record them: ``"penalty"`` (the delta of the direct measure, 0.9
        when absent) and ``"folds"`` (the folds of the indirect measure, 10 when absent).

    Returns
    -------
    str
        The page as HTML, figures embedded as PNG.
    """
    return _render_html(_page(result, RelatednessResult, "relatedness_report_html", options), _provenance(options))


def relatedness_report_markdown(result, options=None):
    """The content of :func:`relatedness_report_html` as Markdown (figures as captions).

    Parameters
    ----------
    result : RelatednessResult
        What :func:`mtbn.relatedness.relatedness` returned; another type raises
        ``InvalidParameterError``.
    options : dict, optional
        The settings the caller ran with (e.g. the command line's), listed in the page's provenance footer. Two
        are also read, as the result does not record them: ``"penalty"`` (the delta of the direct measure, 0.9
        when absent) and ``"folds"`` (the folds of the indirect measure, 10 when absent).

    Returns
    -------
    str
        The page as Markdown.
    """
    return _render_markdown(_page(result, RelatednessResult, "relatedness_report_markdown", options),
                            _provenance(options))


def clustering_report_html(result, options=None):
    """One self-contained HTML page describing a :class:`~mtbn.relatedness.ClusteringResult`.

    Parameters
    ----------
    result : ClusteringResult
        What :func:`mtbn.relatedness.cluster_tasks` returned; another type raises
        ``InvalidParameterError``.
    options : dict, optional
        The settings the caller ran with (e.g. the command line's), listed in the page's provenance footer;
        ``"relatedness_penalty"`` (the delta of the direct measure, 0.9 when absent) is also read, as the result
        does not record it.

    Returns
    -------
    str
        The page as HTML, figures embedded as PNG.
    """
    return _render_html(_page(result, ClusteringResult, "clustering_report_html", options), _provenance(options))


def clustering_report_markdown(result, options=None):
    """The content of :func:`clustering_report_html` as Markdown (figures as captions).

    Parameters
    ----------
    result : ClusteringResult
        What :func:`mtbn.relatedness.cluster_tasks` returned; another type raises
        ``InvalidParameterError``.
    options : dict, optional
        The settings the caller ran with (e.g. the command line's), listed in the page's provenance footer;
        ``"relatedness_penalty"`` (the delta of the direct measure, 0.9 when absent) is also read, as the result
        does not record it.

    Returns
    -------
    str
        The page as Markdown.
    """
    return _render_markdown(_page(result, ClusteringResult, "clustering_report_markdown", options),
                            _provenance(options))


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def _write_text(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _write_json(out_dir, name, value):
    path = os.path.join(out_dir, name)
    _write_text(path, json.dumps(_json_safe(value), indent=2) + "\n")
    return path


def _write_matrices(rel, out_dir):
    """``distance.csv``, ``loglik.csv`` (indirect), ``noise_floor.csv`` (with a floor) and
    ``distance_low.csv`` / ``distance_high.csv`` (the 95% bootstrap interval, with ``n_boot``)."""
    paths = {"distance": os.path.join(out_dir, "distance.csv")}
    rel.distance.to_csv(paths["distance"], float_format="%.17g")
    if rel.log_likelihood is not None:
        paths["loglik"] = os.path.join(out_dir, "loglik.csv")
        rel.log_likelihood.to_csv(paths["loglik"], float_format="%.17g")
    if getattr(rel, "floor", None) is not None and rel.null_max is not None and len(rel.null_max):
        paths["noise_floor"] = os.path.join(out_dir, "noise_floor.csv")
        rel.floor_table().to_csv(paths["noise_floor"], index=False, float_format="%.17g")
    if getattr(rel, "interval", None) is not None:
        for side, frame in zip(("low", "high"), rel.interval):
            paths[f"distance_{side}"] = os.path.join(out_dir, f"distance_{side}.csv")
            frame.to_csv(paths[f"distance_{side}"], float_format="%.17g")
    return paths


def _write_pages(doc, out_dir, options):
    """``report.html`` and ``report.md``: one document, rendered twice."""
    prov = _provenance(options)
    paths = {"html": os.path.join(out_dir, "report.html"), "markdown": os.path.join(out_dir, "report.md")}
    _write_text(paths["html"], _render_html(doc, prov))
    _write_text(paths["markdown"], _render_markdown(doc, prov))
    return paths


def write_selection_report(result, out_dir, options=None):
    """Write ``selected.json``, ``distance.csv`` (and ``loglik.csv`` for the indirect measure),
    ``report.html`` and ``report.md`` to ``out_dir`` (created if missing).

    ``selected.json`` is :meth:`SelectionResult.to_dict` plus the single-task
    edges, the edge changes and the options. Returns a dict of the paths
    written.

    Parameters
    ----------
    result : SelectionResult
        What :func:`mtbn.relatedness.select_tasks` returned; another type raises
        ``InvalidParameterError``.
    out_dir : str or path-like
        The folder written to (created if missing); existing files of the same names are overwritten.
    options : dict, optional
        The settings the caller ran with, kept in ``selected.json`` and the pages' provenance footer; as for
        :func:`selection_report_html`.

    Returns
    -------
    dict of str -> str
        The paths written, by file: ``"distance"``, ``"loglik"`` (indirect measure), ``"noise_floor"`` (with a
        noise floor), ``"distance_low"`` and ``"distance_high"`` (with a bootstrap interval), ``"selected"``,
        ``"html"`` and ``"markdown"``.
    """
    doc = _page(result, SelectionResult, "write_selection_report", options)
    os.makedirs(out_dir, exist_ok=True)
    paths = _write_matrices(result.relatedness, out_dir)
    summary = result.to_dict()
    diff = compare_structures(result.graph, result.single_task_graph)
    summary["single_task_edges"] = [list(e) for e in result.single_task_graph.edges(names=True)]
    summary["structure_changes"] = {k: [list(e) for e in v] for k, v in diff.items() if k != "unchanged"}
    summary["options"] = dict(options or {})
    paths["selected"] = _write_json(out_dir, "selected.json", summary)
    paths.update(_write_pages(doc, out_dir, options))
    return paths


def write_relatedness_report(result, out_dir, options=None):
    """Write ``distance.csv`` (and ``loglik.csv`` for the indirect measure), ``relatedness.json``
    (:meth:`RelatednessResult.to_dict` and the options: what ``select_tasks(relatedness=...)``, ``mtbn select
    --from`` and ``mtbn cluster --from`` read back), ``report.html`` and ``report.md`` to ``out_dir`` (created
    if missing). Returns a dict of the paths written.

    Parameters
    ----------
    result : RelatednessResult
        What :func:`mtbn.relatedness.relatedness` returned; another type raises
        ``InvalidParameterError``.
    out_dir : str or path-like
        The folder written to (created if missing); existing files of the same names are overwritten.
    options : dict, optional
        The settings the caller ran with, kept in ``relatedness.json`` and the pages' provenance footer; as for
        :func:`relatedness_report_html`.

    Returns
    -------
    dict of str -> str
        The paths written, by file: ``"distance"``, ``"loglik"`` (indirect measure), ``"noise_floor"`` (with a
        noise floor), ``"distance_low"`` and ``"distance_high"`` (with a bootstrap interval),
        ``"relatedness"``, ``"html"`` and ``"markdown"``.
    """
    doc = _page(result, RelatednessResult, "write_relatedness_report", options)
    os.makedirs(out_dir, exist_ok=True)
    paths = _write_matrices(result, out_dir)
    paths["relatedness"] = _write_json(out_dir, "relatedness.json",
                                       dict(result.to_dict(), options=dict(options or {})))
    paths.update(_write_pages(doc, out_dir, options))
    return paths


def write_clustering_report(result, out_dir, options=None):
    """Write ``clusters.json``, ``distance.csv``, ``report.html`` and ``report.md`` to ``out_dir``.

    ``clusters.json`` is :meth:`ClusteringResult.to_dict` plus the members
    of each cluster, each task's edges, the linkage matrix and the options.
    Returns a dict of the paths written.

    Parameters
    ----------
    result : ClusteringResult
        What :func:`mtbn.relatedness.cluster_tasks` returned; another type raises
        ``InvalidParameterError``.
    out_dir : str or path-like
        The folder written to (created if missing); existing files of the same names are overwritten.
    options : dict, optional
        The settings the caller ran with, kept in ``clusters.json`` and the pages' provenance footer; as for
        :func:`clustering_report_html`.

    Returns
    -------
    dict of str -> str
        The paths written, by file: ``"distance"``, ``"loglik"`` (indirect measure), ``"noise_floor"`` (with a
        noise floor), ``"distance_low"`` and ``"distance_high"`` (with a bootstrap interval), ``"clusters"``,
        ``"html"`` and ``"markdown"``.
    """
    doc = _page(result, ClusteringResult, "write_clustering_report", options)
    os.makedirs(out_dir, exist_ok=True)
    paths = _write_matrices(result.relatedness, out_dir)
    summary = result.to_dict()
    summary["measure"] = result.relatedness.measure
    summary["clusters"] = {str(c): ts for c, ts in sorted(_cluster_members(result.labels).items())}
    summary["edges"] = {t: [list(e) for e in g.edges(names=True)] for t, g in result.graphs.items()}
    summary["linkage"] = np.asarray(result.linkage, dtype=float).tolist()
    summary["options"] = dict(options or {})
    paths["clusters"] = _write_json(out_dir, "clusters.json", summary)
    paths.update(_write_pages(doc, out_dir, options))
    return paths


def write_learn_report(result, out_dir, *, bootstrap=None, options=None):
    """Write ``report.html`` and ``report.md`` for a :class:`~mtbn.learn.MultitaskResult` (or a
    :class:`~mtbn.learn.gaussian.GaussianResult`) to ``out_dir``.

    With ``bootstrap`` (a :class:`~mtbn.bootstrap.BootstrapResult`), edge
    widths show the bootstrap frequencies and a bootstrap section is added.
    Returns a dict of the paths written.

    Parameters
    ----------
    result : MultitaskResult or GaussianResult
        What :func:`mtbn.learn.learn_structures` (or :func:`mtbn.learn.learn_gaussian_structures`) returned.
    out_dir : str or path-like
        The folder written to (created if missing); existing ``report.html`` and ``report.md`` are overwritten.
    bootstrap : BootstrapResult, optional
        Bootstrap replicates of the same learner on the same tasks (:func:`mtbn.bootstrap.bootstrap_structures`);
        None: no bootstrap section.
    options : dict, optional
        The settings the caller ran with, shown only in the pages' provenance footer.

    Returns
    -------
    dict of str -> str
        The paths written, by file: ``"html"`` and ``"markdown"``.
    """
    os.makedirs(out_dir, exist_ok=True)
    return _write_pages(_learn_page(result, bootstrap, options), out_dir, options)
