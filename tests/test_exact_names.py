"""XMLBIF output keeps the user's variable names, state labels and state order exactly (issue 29, case 8)."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from mtbn.data import from_dataframe
from mtbn.exceptions import InvalidParameterError
from mtbn.networks import BayesianNetwork, fit_parameters, read_network, write_bif, write_xmlbif

# Names and labels that BIF identifiers cannot hold; the truth every reader must give back.
NAMES = ("canopy cover (%)", "my var", "x,y", "a&b", "Zürich")
STATES = (("<5", "5-7", ">7"), ("1", "2", "10"), ('say "hi"', "it's", "50%"), ("<b>", "a&b"),
          ("Genève", " lead", "trail ", " ", "tab\there", "two\nlines", "cr\r\nlf"))
PARENTS = ((), (0,), (1, 0), (), (2, 3))
EDGES = sorted([("canopy cover (%)", "my var"), ("my var", "x,y"), ("canopy cover (%)", "x,y"),
                ("x,y", "Zürich"), ("a&b", "Zürich")])


def _cpt(shape, seed):
    """A positive table of ``shape`` whose rows (last axis) sum to one, with values that need 17 digits."""
    values = np.random.default_rng(seed).random(shape) + 0.1
    return values / values.sum(axis=-1, keepdims=True)


def hand_network():
    cpts = [_cpt(tuple(len(STATES[p]) for p in ps) + (len(STATES[v]),), v) for v, ps in enumerate(PARENTS)]
    return BayesianNetwork(NAMES, STATES, PARENTS, cpts), cpts


def fitted_network():
    df = pd.DataFrame({
        "canopy cover (%)": ["<5", "5-7", ">7", "<5", ">7", "5-7"],
        "my var": [10, 2, 1, 2, 10, 1],
        "x,y": ["p,q", "p,q", "r s", "r s", "100%", "p,q"],
        "a&b": ["&", "<", ">", "'", '"', "&"],
        "Zürich": ["é", "ü", "é", "ß", "ü", "é"],
    })
    graph = nx.DiGraph(EDGES)
    return df, fit_parameters(graph, from_dataframe(df), names=list(df.columns))


def pgmpy_model(path):
    from pgmpy.readwrite import XMLBIFReader

    return XMLBIFReader(str(path)).get_model()


def assert_pgmpy_reads(model, names, states, cpts, parents, edges):
    """pgmpy's model has exactly these names, ordered states, edges and CPT entries (looked up by label)."""
    assert list(model.nodes()) == list(names)
    assert sorted(model.edges()) == sorted(edges)
    for v, name in enumerate(names):
        cpd = model.get_cpds(name)
        assert cpd.state_names[name] == list(states[v])
        given = [names[p] for p in parents[v]]
        for config in itertools.product(*(range(len(states[p])) for p in parents[v])):
            for k, label in enumerate(states[v]):
                assignment = {g: states[p][c] for g, p, c in zip(given, parents[v], config)}
                got = cpd.get_value(**{name: label}, **assignment)
                assert abs(got - cpts[v][config + (k,)]) <= 1e-12


def test_pgmpy_reads_hand_built_names_states_order_and_cpts_exactly(tmp_path):
    net, cpts = hand_network()
    write_xmlbif(net, tmp_path / "net.xml")
    model = pgmpy_model(tmp_path / "net.xml")
    assert_pgmpy_reads(model, NAMES, STATES, cpts, PARENTS, EDGES)


def test_pgmpy_reads_network_fitted_from_a_dataframe_exactly(tmp_path):
    df, net = fitted_network()
    write_xmlbif(net, tmp_path / "net.xmlbif")
    model = pgmpy_model(tmp_path / "net.xmlbif")
    assert list(model.nodes()) == list(df.columns)
    for column in df.columns:
        read = model.get_cpds(column).state_names[column]
        assert sorted(read) == sorted({str(x) for x in df[column]})
    # The integer column keeps the model's numeric order, not text order ("1" < "10" < "2").
    assert model.get_cpds("my var").state_names["my var"] == ["1", "2", "10"] == list(net.states[1])
    assert_pgmpy_reads(model, net.names, net.states, net.cpts, net.parents, EDGES)


def test_probabilities_are_written_with_full_precision(tmp_path):
    net, cpts = hand_network()
    write_xmlbif(net, tmp_path / "net.xml")
    model = pgmpy_model(tmp_path / "net.xml")
    # Root: pgmpy's values are the written table itself, bit for bit.
    assert np.array_equal(model.get_cpds(NAMES[0]).values, cpts[0])


def test_mtbn_reads_its_own_xmlbif_back_exactly(tmp_path):
    net, cpts = hand_network()
    write_xmlbif(net, tmp_path / "net.xml")
    back = read_network(tmp_path / "net.xml")
    assert back.names == NAMES
    assert back.states == STATES
    assert back.parents == PARENTS
    for got, written in zip(back.cpts, cpts):
        assert np.array_equal(got, written)


def test_bif_encodes_what_xmlbif_keeps(tmp_path):
    from pgmpy.readwrite import BIFReader

    net, _ = hand_network()
    write_bif(net, tmp_path / "net.bif")
    assert "canopy%20cover%20%28%25%29" in BIFReader(str(tmp_path / "net.bif")).get_model().nodes()


@pytest.mark.parametrize("name, states, shown", [
    ("bad\x00name", ("a", "b"), r"variable 'bad\x00name': name 'bad\x00name' cannot be written as XMLBIF: "
                                r"XML cannot hold the character U+0000."),
    ("bell", ("a", "\x07"), r"variable 'bell': state '\x07' cannot be written as XMLBIF: "
                            r"XML cannot hold the character U+0007."),
    ("blank", ("a", ""), "variable 'blank': state '' cannot be written as XMLBIF: it is empty."),
])
def test_text_xml_cannot_hold_gives_a_one_line_error(tmp_path, name, states, shown):
    net = BayesianNetwork((name,), (states,), ((),), (np.array([0.5, 0.5]),))
    with pytest.raises(InvalidParameterError) as info:
        write_xmlbif(net, tmp_path / "net.xml")
    assert str(info.value) == shown
    assert "\n" not in str(info.value)
    assert not (tmp_path / "net.xml").exists()


def test_pyagrum_reads_the_names_exactly(tmp_path):
    import pyagrum as gum  # in the test extra: these tests run, never skip
    net, cpts = hand_network()
    write_xmlbif(net, tmp_path / "net.bifxml")
    bn = gum.loadBN(str(tmp_path / "net.bifxml"))
    assert set(bn.names()) == set(NAMES)
    for name, states in zip(NAMES, STATES):
        # Leading and trailing spaces, tabs and line breaks are kept (character references); pyAgrum 3.3.1
        # reads a label of spaces only as "", whatever the encoding: the one label it cannot give back.
        assert tuple(bn.variable(name).labels()) == tuple("" if not s.strip(" ") else s for s in states)
    assert np.allclose(bn.cpt(NAMES[0]).toarray(), cpts[0], rtol=0, atol=1e-12)


def test_the_cli_orders_integer_states_by_value_as_the_api_does(tmp_path, capsys):
    # issue 34: a CSV column 1..11 was written to BIF as { 1, 10, 11, 2, ... }
    from pgmpy.readwrite import BIFReader, XMLBIFReader

    from mtbn.cli import main

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"count": rng.integers(1, 12, 300), "flag": rng.integers(0, 2, 300)})
    df.to_csv(tmp_path / "t.csv", index=False)
    assert main(["learn", "--prior", "none", "--restarts", "0", "--out", str(tmp_path / "o"),
                 str(tmp_path / "t.csv")]) == 0
    capsys.readouterr()
    numeric = [str(v) for v in range(1, 12)]
    assert from_dataframe(df, name="t").states[0] == tuple(numeric)  # the API's order: by value
    assert [str(s) for s in BIFReader(str(tmp_path / "o" / "t.bif")).get_model().states["count"]] == numeric
    assert [str(s) for s in XMLBIFReader(str(tmp_path / "o" / "t.bifxml")).get_model().states["count"]] == numeric


# --- What the command line writes (issue 34, item 3) ---------------------------------------------------------

LABELLED = {"canopy cover (%)": ["<5", "5-7", ">7"], "bird count": ["<5", "5-7", ">7"], "plot id": [1, 2, 10, 11]}


def _labelled_tasks(folder):
    """Two CSV tasks whose names hold spaces, brackets and % and whose labels are <5 / 5-7 / >7 and integers."""
    rng = np.random.default_rng(0)
    canopy = rng.choice(LABELLED["canopy cover (%)"], 300)
    birds = np.where(rng.random(300) < 0.8, canopy, rng.choice(LABELLED["bird count"], 300))
    plots = rng.choice(LABELLED["plot id"], 300)
    paths = []
    for t in range(2):
        path = folder / f"t{t}.csv"
        pd.DataFrame({"canopy cover (%)": canopy, "bird count": birds, "plot id": plots}).to_csv(path, index=False)
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def cli_out(tmp_path_factory):
    from mtbn.cli import main

    folder = tmp_path_factory.mktemp("labels")
    out = folder / "out"
    code = main(["learn", "--penalty", "0.5", "--restarts", "2", "--out", str(out), *_labelled_tasks(folder)])
    assert code in (0, None)
    return out


def test_cli_writes_no_bif_that_other_tools_would_read_with_other_names(cli_out):
    import json

    assert sorted(p.name for p in cli_out.glob("*.bif*")) == ["t0.bifxml", "t1.bifxml"]
    assert json.loads((cli_out / "summary.json").read_text())["no_bif"] == ["t0", "t1"]


def test_every_network_the_cli_writes_loads_in_pgmpy_with_names_labels_and_order(cli_out):
    files = sorted(cli_out.glob("*.bif*"))
    assert files
    for path in files:
        model = pgmpy_model(path)
        assert set(model.nodes()) == set(LABELLED)
        for name, labels in LABELLED.items():
            # integers in numeric order (1, 2, 10, 11), text labels in text order
            want = [str(x) for x in labels] if name == "plot id" else sorted(labels)
            assert model.get_cpds(name).state_names[name] == want


def test_every_network_the_cli_writes_loads_in_pyagrum_with_names_labels_and_order(cli_out):
    import pyagrum as gum  # in the test extra: these tests run, never skip
    for path in sorted(cli_out.glob("*.bif*")):
        bn = gum.loadBN(str(path))
        assert set(bn.names()) == set(LABELLED)
        assert list(bn.variable("plot id").labels()) == ["1", "2", "10", "11"]
        assert list(bn.variable("canopy cover (%)").labels()) == sorted(LABELLED["canopy cover (%)"])


def test_a_portable_network_gets_a_bif_that_pgmpy_and_pyagrum_read_unchanged(tmp_path):
    from pgmpy.readwrite import BIFReader

    from mtbn.networks import bif_portable, load_network

    net = load_network("asia")
    assert bif_portable(net)
    write_bif(net, tmp_path / "asia.bif")
    assert "%" not in (tmp_path / "asia.bif").read_text()
    model = BIFReader(str(tmp_path / "asia.bif")).get_model()
    assert set(model.nodes()) == set(net.names)
    import pyagrum as gum  # in the test extra: these tests run, never skip
    bn = gum.loadBN(str(tmp_path / "asia.bif"))
    assert set(bn.names()) == set(net.names)
    for name, states in zip(net.names, net.states):
        assert tuple(bn.variable(name).labels()) == tuple(states)


TOKENS = ("a-b", "a.b", "A.B.C", "v1.2", "_x", "x_", "0x1F", "1a-2", "a.1", "-1", "10", "yes",  # portable
          "1.5", "1e3", "0.25", "5-7", "1-2-3", "1.a", "a+b", "-x", "<5", "a b", "Zürich", "")  # not portable


@pytest.mark.parametrize("token", TOKENS)
def test_bif_portable_never_claims_a_token_pyagrum_changes(tmp_path, token):
    from mtbn.networks import bif_portable

    net = BayesianNetwork(("v",), ((token, "zz"),), ((),), (np.array([0.5, 0.5]),))
    assert bif_portable(net) == (TOKENS.index(token) < 12)
    import pyagrum as gum  # in the test extra: these tests run, never skip
    if not bif_portable(net):
        return
    write_bif(net, tmp_path / "v.bif")
    bn = gum.loadBN(str(tmp_path / "v.bif"))  # keep the network alive while its variables are read
    assert tuple(bn.variable("v").labels()) == (token, "zz")
