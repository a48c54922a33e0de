"""Tests of the relatedness / selection / clustering reports (mtbn.report) and their CLI commands.

Small tasks: the shipped ASIA network sampled with different seeds (4 tasks
x 300 rows), written as CSV files; every command runs with ``--restarts 0``
and small settings so that each call takes a few seconds. Truths used: the
numbers in the JSON / CSV outputs against the library's own result objects,
the PNG signature of every embedded image, and the absence of any reference
to anything outside the HTML file. The HTML is also rendered with headless
Chromium when it is installed (skipped otherwise).
"""

import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mtbn.cli import main
from mtbn.graph import DAG
from mtbn.networks import load_network, sample
from mtbn.relatedness import cluster_tasks, select_tasks
from mtbn.report import (
    PNG_SIGNATURE,
    compare_structures,
    format_number,
    plot_dendrogram,
    plot_distance_heatmap,
    plot_network_comparison,
    plot_sorted_distances,
    plot_validation_curve,
    selection_report_html,
    selection_report_markdown,
    write_selection_report,
)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TASKS = ("t0", "t1", "t2", "t3")
DATA_URI = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"')

#: Fixtures that run whole commands: the tests using them are marked slow (tests/conftest.py).
SLOW_FIXTURES = {"select_dir", "cluster_dir", "auto_selection"}


# ---------------------------------------------------------------------------
# Fixtures: task CSVs and one run of each command
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def csvs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tasks")
    net = load_network("asia")
    paths = []
    for seed, name in enumerate(TASKS):
        path = folder / f"{name}.csv"
        sample(net, 300, random_state=seed).to_dataframe().to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _run(args):
    code = main(args)
    assert code == 0
    return code


@pytest.fixture(scope="module")
def select_dir(csvs, tmp_path_factory):
    out = tmp_path_factory.mktemp("select")
    _run(["select", "--principal", "t0", "--n", "1", "--restarts", "0", "--out", str(out), *csvs])
    return out


@pytest.fixture(scope="module")
def cluster_dir(csvs, tmp_path_factory):
    out = tmp_path_factory.mktemp("cluster")
    _run(["cluster", "--n", "auto", "--restarts", "0", "--out", str(out), *csvs])
    return out


@pytest.fixture(scope="module")
def relatedness_dir(csvs, tmp_path_factory):
    out = tmp_path_factory.mktemp("relatedness")
    _run(["relatedness", "--measure", "indirect", "--folds", "5", "--restarts", "0", "--out", str(out), *csvs])
    return out


def _html(folder):
    return (folder / "report.html").read_text(encoding="utf-8")


def _check_self_contained(page):
    """No reference to anything outside the file, and every image a decodable PNG data: URI."""
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page.lower() and "<link" not in page.lower()
    assert "@import" not in page and "url(" not in page and "@font-face" not in page
    for attr in re.findall(r'\b(?:src|href|srcset|data|poster|action)\s*=\s*"([^"]*)"', page):
        assert attr.startswith("data:image/png;base64,"), attr[:60]
    images = DATA_URI.findall(page)
    for payload in images:
        assert base64.b64decode(payload, validate=True).startswith(PNG_SIGNATURE)
    return images


def _square_with_names(path, names):
    df = pd.read_csv(path, index_col=0)
    assert df.shape == (len(names), len(names))
    assert list(df.index) == list(names) and list(df.columns) == list(names)
    return df


def _md_cells(line):
    """The cells of one Markdown table row, unescaped."""
    cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
    return [c.strip().replace("\\|", "|").replace("\\<", "<").replace("\\\\", "\\") for c in cells]


def _md_tables(md):
    """Every table of a Markdown page above its provenance, each a list of rows (header first)."""
    tables, current = [], None
    for line in md.split("## Provenance")[0].splitlines():
        if not line.startswith("|"):
            current = None
            continue
        cells = _md_cells(line)
        if all(re.fullmatch(r"-+:?", c) for c in cells):
            continue  # the alignment row
        if current is None:
            current = []
            tables.append(current)
        current.append(cells)
    return tables


def _html_tables(page):
    """Every table of an HTML page above its footer, each a list of rows (header first)."""
    body = page.split("<footer>")[0]
    return [[[html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
             for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
            for table in re.findall(r"<table>(.*?)</table>", body, re.S)]


def _table_after(tables, header_start):
    """The one table whose header begins with ``header_start``."""
    hits = [t for t in tables if t[0][: len(header_start)] == list(header_start)]
    assert len(hits) == 1, header_start
    return hits[0]


def _assert_matrix_table(table, df):
    """A task-by-task table of a report shows the numbers of ``df`` (6 significant figures)."""
    names = [str(n) for n in df.index]
    assert table[0][1:] == [str(c) for c in df.columns]
    assert [row[0] for row in table[1:]] == names
    for row in table[1:]:
        for col, cell in zip(df.columns, row[1:]):
            assert float(cell) == pytest.approx(df.loc[row[0], col], rel=1e-5, abs=1e-9), (row[0], col)


# ---------------------------------------------------------------------------
# mtbn select
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_select_writes_every_file(select_dir):
    for name in ("selected.json", "t0.edges.csv", "t0.bif", "distance.csv", "report.html", "report.md"):
        assert (select_dir / name).is_file(), name
        assert (select_dir / name).stat().st_size > 0, name
    # The pages show the numbers of distance.csv, and both pages carry the same tables.
    dist = pd.read_csv(select_dir / "distance.csv", index_col=0)
    md_tables = _md_tables((select_dir / "report.md").read_text(encoding="utf-8"))
    _assert_matrix_table(_table_after(md_tables, ["task", *TASKS]), dist)
    assert _html_tables(_html(select_dir)) == md_tables
    info = json.loads((select_dir / "selected.json").read_text(encoding="utf-8"))
    bif = (select_dir / "t0.bif").read_text(encoding="utf-8")
    for parent, child in info["edges"]:
        assert re.search(rf"probability \( {child} \|[^)]*\b{parent}\b", bif), (parent, child)


def test_select_json_keys_and_selection(select_dir):
    info = json.loads((select_dir / "selected.json").read_text(encoding="utf-8"))
    for key in ("principal", "order", "distances", "selected", "validation_curve", "measure", "n_selected", "how",
                "gap", "penalty", "edges"):
        assert key in info, key
    assert info["principal"] == "t0"
    assert sorted(info["order"]) == ["t1", "t2", "t3"]
    assert info["n_selected"] == 1 and info["how"] == "given"
    assert info["selected"] == info["order"][: info["n_selected"]]
    d = [info["distances"][t] for t in info["order"]]
    assert d == sorted(d)
    # The learned edges are the ones in <principal>.edges.csv.
    edges = pd.read_csv(select_dir / "t0.edges.csv")
    assert sorted(map(list, edges[["source", "target"]].itertuples(index=False))) == sorted(info["edges"])


def test_select_distance_csv_is_square_and_matches_json(select_dir):
    df = _square_with_names(select_dir / "distance.csv", TASKS)
    info = json.loads((select_dir / "selected.json").read_text(encoding="utf-8"))
    for t, v in info["distances"].items():
        assert df.loc["t0", t] == pytest.approx(v)
    assert np.allclose(np.diag(df.to_numpy()), 0.0)
    assert np.allclose(df.to_numpy(), df.to_numpy().T)  # the direct measure is symmetric


def test_select_html_is_self_contained_with_png_images(select_dir):
    page = _html(select_dir)
    images = _check_self_contained(page)
    assert len(images) >= 4
    assert page.lstrip().startswith("<!DOCTYPE html>")
    assert "<title>" in page and "Provenance" in page and "mtbn version" in page


def test_select_html_explains_and_tabulates(select_dir):
    page = _html(select_dir)
    info = json.loads((select_dir / "selected.json").read_text(encoding="utf-8"))
    assert "Direct measure" in page and "edit distance" in page
    assert "Distances from the principal, sorted" in page
    assert "Learned structure vs single-task structure" in page
    for t in info["order"]:
        assert f"<td>{t}</td>" in page


def test_select_markdown_has_the_distance_table(select_dir):
    md = (select_dir / "report.md").read_text(encoding="utf-8")
    info = json.loads((select_dir / "selected.json").read_text(encoding="utf-8"))
    assert "| rank | task | distance |" in md
    for rank, t in enumerate(info["order"], start=1):
        d = info["distances"][t]
        cell = str(int(d)) if d == int(d) else f"{d:.6g}"
        assert re.search(rf"^\| {rank} \| {t} \| {re.escape(cell)} \|", md, re.M), (t, cell)
    assert "data:image" not in md
    assert "## Provenance" in md


def test_select_unknown_principal_is_a_one_line_error(csvs, tmp_path):
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "mtbn", "select", "--principal", "nope", "--n", "1", "--restarts", "0",
         "--out", str(tmp_path / "out"), *csvs],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mtbn: error:") and "nope" in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("bad", [["--n", "many"], ["--n", "-1"], ["--measure", "both"]])
def test_select_bad_options_exit_2(csvs, tmp_path, bad, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["select", "--principal", "t0", "--out", str(tmp_path), *bad, *csvs])
    assert exc.value.code == 2


@pytest.mark.parametrize("command", ["relatedness", "select", "cluster"])
def test_help_of_each_command(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "--out" in text and "report.html" in text


# ---------------------------------------------------------------------------
# mtbn cluster
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_cluster_writes_every_file(cluster_dir):
    for name in ("clusters.json", "distance.csv", "report.html", "report.md"):
        assert (cluster_dir / name).is_file(), name
    for t in TASKS:
        assert (cluster_dir / f"{t}.edges.csv").is_file() and (cluster_dir / f"{t}.bif").is_file()
    dist = _square_with_names(cluster_dir / "distance.csv", TASKS)
    info = json.loads((cluster_dir / "clusters.json").read_text(encoding="utf-8"))
    for t in TASKS:  # each task's edges file holds the edges of clusters.json
        edges = pd.read_csv(cluster_dir / f"{t}.edges.csv")
        assert sorted(map(list, edges[["source", "target"]].itertuples(index=False))) == sorted(info["edges"][t])
    md = (cluster_dir / "report.md").read_text(encoding="utf-8")
    tables = _md_tables(md)
    assert _html_tables(_html(cluster_dir)) == tables
    _assert_matrix_table(_table_after(tables, ["task", *TASKS]), dist.loc[list(TASKS), list(TASKS)])
    clusters = _table_after(tables, ["cluster", "tasks"])[1:]
    assert {row[0]: row[1].split(", ") for row in clusters} == info["clusters"]
    curve = _table_after(tables, ["number of clusters"])[1:]
    assert [int(row[0]) for row in curve] == [r["n_clusters"] for r in info["validation_curve"]]
    assert [int(row[0]) for row in curve if row[-1] == "chosen"] == [info["n_clusters"]]


def test_cluster_json_is_consistent(cluster_dir):
    info = json.loads((cluster_dir / "clusters.json").read_text(encoding="utf-8"))
    assert set(info["labels"]) == set(TASKS)
    assert info["n_clusters"] == len(set(info["labels"].values()))
    members = sorted(t for ts in info["clusters"].values() for t in ts)
    assert members == sorted(TASKS)
    for c, ts in info["clusters"].items():
        assert all(info["labels"][t] == int(c) for t in ts)
    curve = info["validation_curve"]
    assert curve, "--n auto records its validation curve"
    best = max(curve, key=lambda r: r["validation_log_likelihood"])
    assert best["n_clusters"] == info["n_clusters"]
    assert np.asarray(info["linkage"]).shape == (len(TASKS) - 1, 4)


def test_cluster_html_is_self_contained(cluster_dir):
    page = _html(cluster_dir)
    assert len(_check_self_contained(page)) >= 4
    assert "average link" in page
    md = (cluster_dir / "report.md").read_text(encoding="utf-8")
    assert "| cluster | tasks |" in md and "| number of clusters |" in md


# ---------------------------------------------------------------------------
# mtbn relatedness
# ---------------------------------------------------------------------------


def test_relatedness_indirect_writes_both_matrices(relatedness_dir):
    for name in ("distance.csv", "loglik.csv", "report.html", "report.md"):
        assert (relatedness_dir / name).is_file(), name
    dist = _square_with_names(relatedness_dir / "distance.csv", TASKS)
    ll = _square_with_names(relatedness_dir / "loglik.csv", TASKS)
    # distance[e, s] = loglik[e, e] - loglik[s, e] (row = explained task, column = structure source)
    expected = np.diag(ll.to_numpy())[:, None] - ll.to_numpy().T
    assert np.allclose(dist.to_numpy(), expected)
    # the pages show those numbers, the same rows in both
    tables = _md_tables((relatedness_dir / "report.md").read_text(encoding="utf-8"))
    assert _html_tables(_html(relatedness_dir)) == tables
    _assert_matrix_table(_table_after(tables, ["task", *TASKS]), dist)
    _assert_matrix_table(_table_after(tables, ["structure source \\ evaluated task", *TASKS]), ll)
    nearest = _table_after(tables, ["task", "nearest task"])[1:]
    for task, near, d, *_ in nearest:
        row = dist.loc[task].drop(task)
        assert near == row.idxmin() and float(d) == pytest.approx(row.min(), rel=1e-5)


def test_relatedness_html_explains_reading_direction(relatedness_dir):
    page = _html(relatedness_dir)
    assert len(_check_self_contained(page)) >= 3
    assert "row = structure source" in page and "column = evaluated task" in page
    assert "row = the task being explained" in page and "column = the structure source" in page
    md = (relatedness_dir / "report.md").read_text(encoding="utf-8")
    assert "Raw log-likelihood matrix" in md and "5-fold" in md


@pytest.mark.slow
def test_relatedness_direct_cli(csvs, tmp_path):
    _run(["relatedness", "--measure", "direct", "--penalty", "0.9", "--restarts", "0", "--out", str(tmp_path),
          *csvs[:3]])
    df = _square_with_names(tmp_path / "distance.csv", TASKS[:3])
    assert np.allclose(df.to_numpy(), df.to_numpy().T)
    assert not (tmp_path / "loglik.csv").exists()
    _check_self_contained(_html(tmp_path))


# ---------------------------------------------------------------------------
# Figures and pages from the library objects
# ---------------------------------------------------------------------------


def test_compare_structures_classifies_edges():
    diff = compare_structures([("a", "b"), ("c", "b"), ("d", "e")], [("b", "a"), ("d", "e"), ("a", "c")])
    assert diff == {"added": [("c", "b")], "removed": [("a", "c")], "reversed": [("a", "b")],
                    "unchanged": [("d", "e")]}


def test_plot_functions_return_png():
    names = ["a", "b", "c", "d"]
    D = pd.DataFrame([[0, 1, 4, 5], [1, 0, 4, 5], [4, 4, 0, 2], [5, 5, 2, 0]], index=names, columns=names,
                     dtype=float)
    Z = np.array([[0, 1, 1.0, 2], [2, 3, 2.0, 2], [4, 5, 4.5, 4]])
    g = DAG.from_edges(names, [("a", "b"), ("c", "d")])
    h = DAG.from_edges(names, [("b", "a"), ("c", "a")])
    pngs = [
        plot_sorted_distances({"b": 1.0, "c": 4.0, "d": 5.0}, "a", 1, selected=["b"]),
        plot_sorted_distances({"b": float("nan"), "c": 4.0}, "a", 1),
        plot_sorted_distances({}, "a", 0),
        plot_distance_heatmap(D, "distances"),
        plot_dendrogram(Z, names, n_clusters=2),
        plot_dendrogram(np.zeros((0, 4)), ["a"]),
        plot_validation_curve([(0, -2.0), (1, -1.5), (2, -1.7)], "N"),
        plot_validation_curve([{"n_clusters": 1, "validation_log_likelihood": -3.0}], "clusters"),
        plot_network_comparison(g, h, "a vs b"),
        plot_network_comparison(DAG.empty(names), DAG.empty(names)),
    ]
    for png in pngs:
        assert isinstance(png, bytes) and png.startswith(PNG_SIGNATURE)


def _small_tasks(n_tasks=3, rows=200):
    net = load_network("asia")
    return {f"task {i}|x": sample(net, rows, random_state=10 + i) for i in range(n_tasks)}


@pytest.mark.slow
def test_markdown_escapes_names_and_matches_result():
    # Task names with a space and a pipe must not break the Markdown tables.
    res = select_tasks(_small_tasks(), "task 0|x", n="gap", n_restarts=0)
    md = selection_report_markdown(res, {"n": "gap"})
    assert "task 0\\|x" in md
    header = md.splitlines().index("| rank | task | distance | increase from previous | selected | gap |")
    rows = md.splitlines()[header + 2: header + 2 + len(res.order)]
    assert [r.split(" | ")[1] for r in rows] == [t.replace("|", "\\|") for t in res.order]
    assert res.how == "gap" and res.selected == res.order[: res.gap]


@pytest.fixture(scope="module")
def auto_selection():
    """N and the penalty chosen by validation (N at least the tasks within noise: samples of one network)."""
    return select_tasks(_small_tasks(4), "task 0|x", n="auto", n_restarts=0, noise_floor=3)


@pytest.mark.slow
def test_selection_pages_show_the_result(auto_selection, tmp_path):
    res = auto_selection
    opts = {"n": "auto", "penalty": "auto"}
    paths = write_selection_report(res, tmp_path / "sel", opts)
    md = open(paths["markdown"], encoding="utf-8").read()
    page = open(paths["html"], encoding="utf-8").read()
    md_tables, html_tables = _md_tables(md), _html_tables(page)
    assert html_tables == md_tables  # one document, two renderings: the same rows in both
    # the distance matrix is the computed one
    _assert_matrix_table(_table_after(md_tables, ["task", *res.relatedness.names]), res.relatedness.distance)
    # the sorted distances are the principal's row, in the library's order, the selected ones marked
    ranked = _table_after(md_tables, ["rank", "task", "distance"])[1:]
    assert [row[1] for row in ranked] == res.order
    assert [float(row[2]) for row in ranked] == pytest.approx([res.distances[t] for t in res.order], rel=1e-5)
    assert [row[1] for row in ranked if row[4] == "yes"] == res.selected
    assert res.n_selected > 0 and res.how == "validation"
    # the chosen N is the one the result names, on the curve and in the text of both pages
    curve = _table_after(md_tables, ["N", "tasks learned with"])[1:]
    assert [int(row[0]) for row in curve] == [c[0] for c in res.validation_curve]
    assert [float(row[2]) for row in curve] == pytest.approx([c[1] for c in res.validation_curve], rel=1e-5)
    assert [int(row[0]) for row in curve if row[-1] == "chosen"] == [res.n_selected]
    assert f"**N = {res.n_selected}**" in md and f"<strong>N = {res.n_selected}</strong>" in page
    assert f"(N = {res.n_selected} of {len(res.order)})" in md
    penalty = ("none (N = 0" if res.n_selected == 0 else
               f"delta = {format_number(res.penalty)} (chosen on a validation split")
    assert penalty in md and penalty in page
    rule = "within one paired standard error of the best" if res.rule == "one-se" else "the highest validation"
    assert rule in md and rule in page
    # the edge changes are those of compare_structures
    diff = compare_structures(res.graph, res.single_task_graph)
    expected = ([[k, f"{u} -> {v}"] for k in ("added", "removed") for u, v in diff[k]]
                + [["reversed", f"{v} -> {u} became {u} -> {v}"] for u, v in diff["reversed"]])
    changes = [t[1:] for t in md_tables if t[0] == ["change", "edge (parent -> child)"]]
    assert changes == ([expected] if expected else [])
    assert f"added {len(diff['added'])}, removed {len(diff['removed'])}" in md


def test_markdown_and_html_pages_carry_the_same_text(auto_selection):
    md = selection_report_markdown(auto_selection, {})
    page = selection_report_html(auto_selection, {})
    body = page.split("<body>")[1].split("<footer>")[0].replace("</li><li>", ", ")
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    for line in md.split("## Provenance")[0].splitlines():
        if line and not line.startswith(("|", "*Figure", "#")):
            plain = re.sub(r"[*`]", "", line).lstrip("- ").replace("\\|", "|").replace("\\<", "<")
            words = plain.split(": ", 1)[-1][:60]
            assert words in text, line


def test_single_task_reports_do_not_fail(tmp_path):
    from mtbn.report import write_clustering_report, write_selection_report

    one = {"only": sample(load_network("asia"), 120, random_state=3)}
    sel = select_tasks(one, "only", n=0, n_restarts=0)
    paths = write_selection_report(sel, tmp_path / "sel", {})
    _check_self_contained(open(paths["html"], encoding="utf-8").read())
    md = open(paths["markdown"], encoding="utf-8").read()
    assert "There is no other task" in md and "**N = 0**" in md and "none (N = 0: single-task learning)" in md
    clu = cluster_tasks(one, n_clusters=1, n_restarts=0)
    paths = write_clustering_report(clu, tmp_path / "clu", {})
    _check_self_contained(open(paths["html"], encoding="utf-8").read())
    tables = _md_tables(open(paths["markdown"], encoding="utf-8").read())
    assert _table_after(tables, ["cluster", "tasks"])[1:] == [["1", "only", "1", "n/a"]]
    assert json.load(open(paths["clusters"], encoding="utf-8"))["clusters"] == {"1": ["only"]}


# ---------------------------------------------------------------------------
# Optional: render the page with headless Chromium
# ---------------------------------------------------------------------------


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium is not installed")
def test_html_renders_in_headless_chromium(select_dir, tmp_path):
    shot = tmp_path / "report.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,3000",
           f"--screenshot={shot}", (select_dir / "report.html").as_uri()]
    try:
        subprocess.run(cmd, capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:  # the browser itself, not the page
        pytest.skip(f"headless Chromium did not run: {exc}")
    if not shot.exists():
        pytest.skip("headless Chromium did not write a screenshot")
    data = shot.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    from PIL import Image

    with Image.open(shot) as im:
        pixels = np.asarray(im.convert("L"))
    assert (pixels < 200).mean() > 0.01  # text and figures were drawn, not a blank page


def test_plot_tasks_draws_every_task_on_one_layout_coloured_by_sharing():
    import networkx as nx
    from matplotlib.figure import Figure

    from mtbn.graph import DAG
    from mtbn.report import plot_tasks

    names = ["a", "b", "c", "d"]
    g1 = DAG([set(), {0}, {1}, set()], names)          # a->b, b->c
    g2 = DAG([set(), {0}, set(), {2}], names)          # a->b, c->d
    g3 = nx.DiGraph([("a", "b"), ("b", "c")])
    g3.add_node("d")
    fig = plot_tasks({"t1": g1, "t2": g2, "t3": g3}, ncols=2, title="three tasks")
    assert isinstance(fig, Figure)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["t1 (2 edges)", "t2 (2 edges)", "t3 (2 edges)"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["in 1 of 3 task(s)", "in 2 of 3 task(s)", "in 3 of 3 task(s)"]  # c->d, b->c, a->b
    target = Figure()
    axes = target.subplots(1, 3)
    assert plot_tasks({"t1": g1, "t2": g2, "t3": g3}, axes=axes) is target


def test_heatmap_colour_scale_ignores_the_zero_diagonal(monkeypatch):
    import matplotlib.axes

    seen = {}
    original = matplotlib.axes.Axes.imshow

    def spy(self, X, *args, **kwargs):
        seen.update(kwargs)
        return original(self, X, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "imshow", spy)
    names = ["a", "b", "c"]
    D = pd.DataFrame([[0, 3, 7], [3, 0, 5], [7, 5, 0]], index=names, columns=names, dtype=float)
    plot_distance_heatmap(D, "distances")
    assert (seen["vmin"], seen["vmax"]) == (3.0, 7.0)  # not 0: the diagonal is left out of the scale


def test_plot_tasks_widths_follow_strength():
    from matplotlib.patches import FancyArrowPatch

    from mtbn.report import plot_tasks

    names = ["a", "b", "c"]
    graphs = {"t1": DAG.from_edges(names, [("a", "b"), ("b", "c")]), "t2": DAG.from_edges(names, [("a", "b")])}
    fig = plot_tasks(graphs, strength={"t1": {("a", "b"): 1.0, ("b", "c"): 0.5}, "t2": {("a", "b"): 0.0}})
    widths = [sorted(round(p.get_linewidth(), 2) for p in ax.patches if isinstance(p, FancyArrowPatch))
              for ax in fig.axes[:2]]
    assert widths == [[1.9, 3.4], [0.4]]  # 0.4 + 3 x frequency


def test_learn_report_lists_the_edges_that_differ(tmp_path, capsys):
    import json

    from helpers import write_task_csvs

    from mtbn.cli import main

    paths = write_task_csvs(tmp_path, rows=(150, 250, 350))
    out = tmp_path / "out"
    assert main(["learn", "--report", "--bootstrap", "3", "--penalty", "0.5", "--restarts", "1",
                 "--joint-restarts", "0", "--out", str(out), *paths]) == 0
    capsys.readouterr()
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "data:image/png;base64," in html
    edges = {f"t{t}": set(map(tuple, pd.read_csv(out / f"t{t}.edges.csv")[["source", "target"]].values))
             for t in range(3)}
    differ = set.union(*edges.values()) - set.intersection(*edges.values())
    assert "&gt;" not in md and "&lt;" not in md  # plain "->" in Markdown (issue 45)
    listed = {tuple(line.split(" | ")[0].lstrip("| ").split(" -> ")) for line in md.splitlines()
              if " -> " in line}
    assert differ and listed == differ
    summary = json.loads((out / "summary.json").read_text())
    assert summary["penalty"] == 0.5
    # the bootstrap columns are the strengths of the bootstrap files
    for line in md.splitlines():
        if " -> " in line:
            cells = [c.strip() for c in line.strip("|").split("|")]
            u, v = cells[0].split(" -> ")
            for t in range(3):
                s = pd.read_csv(out / "bootstrap" / f"t{t}.strength.csv")
                hit = s[(s["from"] == u) & (s["to"] == v)]["strength"]
                assert float(cells[2 + t]) == pytest.approx(float(hit.iloc[0]) if len(hit) else 0.0, abs=5e-4)


def test_learn_report_shows_the_penalty_the_result_chose(tmp_path):
    from mtbn.learn import learn_structures
    from mtbn.report import write_learn_report

    res = learn_structures(_small_tasks(2, rows=200), n_restarts=0, validation=0.25)
    paths = write_learn_report(res, tmp_path)
    md = open(paths["markdown"], encoding="utf-8").read()
    tables = _md_tables(md)
    assert _html_tables(open(paths["html"], encoding="utf-8").read()) == tables
    path = _table_after(tables, ["penalty", "held-out log-likelihood per row"])[1:]
    assert [float(row[0]) for row in path] == [p.penalty for p in res.penalty_path]
    assert [float(row[1]) for row in path] == pytest.approx([p.validation_log_likelihood for p in res.penalty_path],
                                                            rel=1e-5)
    assert [float(row[0]) for row in path if row[-1] == "chosen"] == [res.transfer["selected_penalty"]]
    assert f"Penalty used: {format_number(res.penalty)}" in md and res.transfer["message"] in md
    tasks = _table_after(tables, ["task", "edges", "BDeu"])[1:]
    assert [(row[0], int(row[1])) for row in tasks] == [(n, g.n_edges) for n, g in zip(res.task_names, res.graphs)]


def test_plot_tasks_reads_a_bootstrap_result_and_its_tables():
    # issue 34: plot_tasks(graphs, strength=...) drew every edge at full width for BootstrapResult.strength()
    from matplotlib.patches import FancyArrowPatch

    from mtbn.bootstrap import bootstrap_structures
    from mtbn.exceptions import InvalidParameterError
    from mtbn.learn import learn_structures
    from mtbn.report import plot_tasks

    net = load_network("asia")
    tasks = {f"t{i}": sample(net, 150, random_state=i).to_dataframe() for i in range(2)}
    kw = dict(penalty=0.5, n_restarts=0, n_joint_restarts=0)
    graphs = dict(zip(tasks, learn_structures(tasks, **kw).graphs))
    boot = bootstrap_structures(tasks, n_boot=4, random_state=0, **kw)

    def expected(t):  # by hand: the fraction of replicates with u -> v or v -> u, as a width
        e = boot.edges[:, t]
        i = {v: j for j, v in enumerate(boot.variables)}
        return sorted(round(0.4 + 3.0 * float((e[:, i[u], i[v]] | e[:, i[v], i[u]]).mean()), 1)
                      for u, v in graphs[f"t{t}"].edges(names=True))

    def widths(fig):
        return [sorted(round(p.get_linewidth(), 1) for p in ax.patches if isinstance(p, FancyArrowPatch))
                for ax in fig.axes[:2]]

    by_result = plot_tasks(graphs, strength=boot)
    by_table = plot_tasks(graphs, strength={t: boot.strength(t) for t in graphs})
    assert widths(by_result) == widths(by_table) == [expected(0), expected(1)]
    assert len({w for ws in widths(by_result) for w in ws}) > 1  # not all drawn at one width
    labels = [t.get_text() for leg in by_result.legends for t in leg.get_texts()]
    assert {"strength 0", "strength 0.5", "strength 1"} <= set(labels)
    with pytest.raises(InvalidParameterError, match="strength of task 't0' must map"):
        plot_tasks(graphs, strength={"t0": [0.5]})
    with pytest.raises(InvalidParameterError, match=r"strength of edge .* in task 't0' must be in \[0, 1\]"):
        plot_tasks(graphs, strength={"t0": {("asia", "tub"): 2.0}})
