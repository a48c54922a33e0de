"""Export of learned structures and networks read through pgmpy (issue 14).

Truths: networkx's own GML / GraphML / node-link readers and pandas' CSV
reader read back what mtbn writes; pgmpy's own writers produce the XMLBIF,
NET and UAI files that mtbn reads.
"""

import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from mtbn.cli import main
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.networks import load_network, read_network, sample, to_pgmpy

from helpers import write_task_csvs

NAMES = ["a", "b, c", 'd "q"', "e"]
EDGES = [("a", "b, c"), ('d "q"', "b, c"), ("b, c", "e")]


@pytest.fixture
def dag():
    return DAG.from_edges(NAMES, EDGES)


@pytest.mark.parametrize("ext,read", [
    ("gml", lambda p: nx.read_gml(p)),
    ("graphml", lambda p: nx.read_graphml(p)),
    ("json", lambda p: nx.node_link_graph(json.load(open(p)), edges="edges")),
])
def test_networkx_reads_back_what_mtbn_writes(dag, tmp_path, ext, read):
    path = tmp_path / f"g.{ext}"
    dag.write(path)
    g = read(path)
    assert g.is_directed() and set(g.nodes) == set(NAMES) and set(g.edges) == set(EDGES)


def test_csv_and_dot(dag, tmp_path):
    dag.write(tmp_path / "g.csv")
    df = pd.read_csv(tmp_path / "g.csv", dtype=str)
    assert set(map(tuple, df[["source", "target"]].values)) == set(EDGES)
    dag.write(tmp_path / "g.dot")
    text = (tmp_path / "g.dot").read_text()
    assert text.startswith('digraph "G" {') and '"d \\"q\\"" -> "b, c";' in text
    assert text.count("->") == len(EDGES) and text.rstrip().endswith("}")
    with pytest.raises(InvalidParameterError, match="cannot tell the graph format of"):
        dag.write(tmp_path / "g.png")


@pytest.mark.parametrize("writer,ext", [("XMLBIFWriter", "xml"), ("NETWriter", "net"), ("UAIWriter", "uai")])
def test_read_network_reads_pgmpy_formats(tmp_path, writer, ext):
    from pgmpy import readwrite

    net = load_network("asia")
    path = tmp_path / f"asia.{ext}"
    getattr(readwrite, writer)(to_pgmpy(net)).write(str(path))
    back = read_network(path)
    # UAI keeps no names: its variables are var_0, var_1, ... in the order pgmpy writes them (sorted names)
    rename = {f"var_{i}": n for i, n in enumerate(sorted(net.names))} if ext == "uai" else {}
    names = [rename.get(n, n) for n in back.names]
    assert set(names) == set(net.names)
    for v, name in enumerate(net.names):
        w = names.index(name)
        assert {names[p] for p in back.parents[w]} == {net.names[p] for p in net.parents[v]}
        if ext != "uai":
            assert back.states[w] == net.states[v]
    # the same distribution: equal log-likelihoods of the same rows
    from mtbn.networks import log_likelihood

    rows = sample(net, 200, random_state=0)
    if ext != "uai":  # UAI keeps no state names, only indices
        df = rows.to_dataframe()[list(back.names)]
        from mtbn.data import from_dataframe

        states = dict(zip(back.names, back.states))
        assert log_likelihood(back, from_dataframe(df, states=states)) == pytest.approx(log_likelihood(net, rows))
    with pytest.raises(InvalidParameterError, match="cannot tell the network format"):
        read_network(tmp_path / "asia.txt")


def test_cli_export_writes_each_format(tmp_path, capsys):
    paths = write_task_csvs(tmp_path, rows=(150, 150))
    out = tmp_path / "out"
    assert main(["learn", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "0", "--export", "dot,gml,json",
                 "--out", str(out), *paths]) == 0
    edges = set(map(tuple, pd.read_csv(out / "t0.edges.csv", dtype=str)[["source", "target"]].values))
    assert set(nx.read_gml(out / "t0.gml").edges) == edges
    assert (out / "t1.dot").read_text().count("->") == len(pd.read_csv(out / "t1.edges.csv"))
    with pytest.raises(SystemExit) as exc:  # an option error: argparse's exit
        main(["learn", "--export", "png", "--out", str(tmp_path / "x"), *paths])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown format 'png'" in err and len(err.strip().splitlines()) == 1
    assert np.all([not (tmp_path / "x").exists()])
