"""Tests of mtbn.data: integer coding of one task and of several related tasks.

The independent truths are the literal inputs: every test builds a small
DataFrame or CSV by hand and checks the coded result against the labels that
were written, or checks that a bad input is refused with a message naming the
task and the column.
"""

import numpy as np
import pandas as pd
import pytest

from mtbn.data import MAX_STATES, DiscreteData, from_dataframe, make_taskset, read_csv
from mtbn.exceptions import InvalidDataError


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _decoded(d):
    """Decode a DiscreteData by hand (codes -> labels), independent of to_dataframe."""
    return {
        name: [d.states[v][int(c)] for c in d.codes[:, v]] for v, name in enumerate(d.names)
    }


# ---------------------------------------------------------------------------
# Labels are kept verbatim
# ---------------------------------------------------------------------------


def test_csv_special_labels_are_states_not_missing_or_numbers(tmp_path):
    text = (
        "A,B,C\n"
        "None,NA,3\n"
        "null,NaN,3.0\n"
        "NA,n/a,03\n"
        "None,#N/A,3\n"
        "nan,NULL,-1\n"
    )
    d = read_csv(_write(tmp_path / "special.csv", text))
    assert d.name == "special"
    assert d.names == ("A", "B", "C")
    assert d.n_samples == 5
    cols = _decoded(d)
    assert cols["A"] == ["None", "null", "NA", "None", "nan"]
    assert cols["B"] == ["NA", "NaN", "n/a", "#N/A", "NULL"]
    # "3", "3.0" and "03" are three different labels, not one number.
    assert cols["C"] == ["3", "3.0", "03", "3", "-1"]
    assert set(d.states[0]) == {"None", "null", "NA", "nan"}
    assert set(d.states[2]) == {"3", "3.0", "03", "-1"}
    assert all(isinstance(s, str) for st in d.states for s in st)
    # Without declared states the state list is the sorted observed labels.
    assert d.states[0] == tuple(sorted(["None", "null", "NA", "nan"]))


def test_csv_labels_keep_surrounding_spaces(tmp_path):
    d = read_csv(_write(tmp_path / "sp.csv", "A,B\n x,y\nx,y \n"))
    assert _decoded(d) == {"A": [" x", "x"], "B": ["y", "y "]}


def test_dataframe_string_labels_are_verbatim():
    df = pd.DataFrame({"A": ["None", "NA", "null", "3"], "B": ["x", "x", "y", "y"]})
    d = from_dataframe(df, name="t")
    assert _decoded(d)["A"] == ["None", "NA", "null", "3"]
    assert d.states[0] == ("3", "NA", "None", "null")
    assert d.codes.dtype == np.uint8


def test_dataframe_integer_column_becomes_string_labels():
    df = pd.DataFrame({"A": [3, 1, 3, 2]})
    d = from_dataframe(df)
    assert d.states == (("1", "2", "3"),)
    assert _decoded(d)["A"] == ["3", "1", "3", "2"]


def test_to_dataframe_round_trip_of_csv(tmp_path):
    text = "X,Y\nNone,1\nNA,2\nnull,1\n3,2\n"
    path = _write(tmp_path / "rt.csv", text)
    d = read_csv(path)
    back = d.to_dataframe()
    expected = pd.DataFrame({"X": ["None", "NA", "null", "3"], "Y": ["1", "2", "1", "2"]})
    pd.testing.assert_frame_equal(back.astype(object), expected.astype(object))


def test_single_state_column_is_legal(tmp_path):
    d = from_dataframe(pd.DataFrame({"A": ["only"] * 4, "B": ["x", "y", "x", "y"]}), name="t")
    assert d.states[0] == ("only",)
    assert d.arities.tolist() == [1, 2]
    assert (d.codes[:, 0] == 0).all()
    d2 = read_csv(_write(tmp_path / "one.csv", "A\nz\nz\n"))
    assert d2.states == (("z",),)


def test_declared_states_keep_order_and_unobserved_states(tmp_path):
    path = _write(tmp_path / "decl.csv", "A,B\nlow,x\nhigh,x\n")
    d = read_csv(path, states={"A": ["low", "mid", "high"]})
    assert d.states[0] == ("low", "mid", "high")
    assert d.arities.tolist() == [3, 1]
    assert d.codes[:, 0].tolist() == [0, 2]


# ---------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------


def test_nan_in_dataframe_is_an_error_naming_task_column_count_and_rows():
    df = pd.DataFrame({"A": ["a", "b", "a", "b"], "B": [1.0, np.nan, 2.0, np.nan]})
    with pytest.raises(InvalidDataError, match=r"task 'T1': 2 missing value\(s\) in column\(s\) 'B' \(2\), rows with index 1, 3"):
        from_dataframe(df, name="T1")


def test_none_in_dataframe_is_an_error():
    df = pd.DataFrame({"A": ["a", None, "a"], "B": ["x", "y", None]})
    with pytest.raises(InvalidDataError, match=r"task 'T2': 2 missing value\(s\) in column\(s\) 'A' \(1\), 'B' \(1\), rows with index 1, 2"):
        from_dataframe(df, name="T2")


def test_empty_string_in_dataframe_is_missing():
    df = pd.DataFrame({"A": ["a", "", "b"]})
    with pytest.raises(InvalidDataError, match=r"task 'T3': 1 missing value\(s\) in column\(s\) 'A' \(1\), rows with index 1"):
        from_dataframe(df, name="T3")


def test_empty_csv_cell_is_an_error_naming_count_and_place(tmp_path):
    path = _write(tmp_path / "holes.csv", "A,B,C\nx,y,z\nx,,z\nx,y,z\n,y,\n")
    with pytest.raises(
        InvalidDataError,
        match=r"task 'holes': 3 missing value\(s\) in column\(s\) 'A' \(1\), 'B' \(1\), 'C' \(1\), file lines 3, 5 of",
    ):
        read_csv(path)
    with pytest.raises(InvalidDataError, match="dropna"):
        read_csv(path)


def test_dropna_drops_exactly_the_incomplete_rows(tmp_path):
    rows = [
        ["a", "x", "p"],
        ["b", None, "p"],
        ["a", "y", "q"],
        [np.nan, "y", "q"],
        ["b", "x", ""],
        ["b", "y", "p"],
    ]
    df = pd.DataFrame(rows, columns=["A", "B", "C"])
    d = from_dataframe(df, name="t", dropna=True)
    complete = [0, 2, 5]
    assert d.n_samples == len(complete)
    expected = {c: [rows[i][j] for i in complete] for j, c in enumerate(["A", "B", "C"])}
    assert _decoded(d) == expected
    # Labels of dropped rows do not become states.
    assert d.states == (("a", "b"), ("x", "y"), ("p", "q"))
    # Same with a CSV.
    path = _write(tmp_path / "d.csv", "A,B\na,x\n,y\nb,\nb,y\n")
    d2 = read_csv(path, dropna=True)
    assert _decoded(d2) == {"A": ["a", "b"], "B": ["x", "y"]}


def test_dropna_of_every_row_is_an_error():
    df = pd.DataFrame({"A": [None, "a"], "B": ["x", None]})
    with pytest.raises(InvalidDataError, match=r"task 'all' is empty after dropping"):
        from_dataframe(df, name="all", dropna=True)


def test_empty_task_without_rows():
    with pytest.raises(InvalidDataError, match=r"task 'E' is empty: it has no rows"):
        from_dataframe(pd.DataFrame({"A": [], "B": []}), name="E")


def test_empty_task_without_columns():
    with pytest.raises(InvalidDataError, match=r"task 'E' is empty: it has no columns"):
        from_dataframe(pd.DataFrame(index=range(3)), name="E")


def test_csv_with_header_only_or_nothing_is_empty(tmp_path):
    with pytest.raises(InvalidDataError, match=r"task 'hdr' is empty"):
        read_csv(_write(tmp_path / "hdr.csv", "A,B\n"))
    with pytest.raises(InvalidDataError, match=r"task 'nothing' is empty"):
        read_csv(_write(tmp_path / "nothing.csv", ""))


def test_make_taskset_rejects_empty_task():
    good = pd.DataFrame({"A": ["a", "b"]})
    with pytest.raises(InvalidDataError, match=r"task 'bad' is empty"):
        make_taskset({"good": good, "bad": pd.DataFrame({"A": []})})


def test_duplicate_dataframe_columns():
    df = pd.DataFrame([["a", "b", "c"]], columns=["A", "B", "A"])
    with pytest.raises(InvalidDataError, match=r"task 'dup': duplicate column name 'A'"):
        from_dataframe(df, name="dup")


def test_duplicate_csv_header(tmp_path):
    path = _write(tmp_path / "duphdr.csv", "A,B,B\nx,y,z\n")
    with pytest.raises(InvalidDataError, match=r"task 'duphdr': duplicate column name 'B'"):
        read_csv(path)


def test_duplicate_task_names():
    df = pd.DataFrame({"A": ["a", "b"]})
    with pytest.raises(InvalidDataError, match=r"duplicate task name 'x'"):
        make_taskset([("x", df), ("x", df)])
    d = from_dataframe(df, name="same")
    with pytest.raises(InvalidDataError, match=r"duplicate task name 'same'"):
        make_taskset([d, d])
    # Keys that differ only in type still give the same task name.
    with pytest.raises(InvalidDataError, match=r"duplicate task name '1'"):
        make_taskset({1: df, "1": df})


def test_continuous_float_column_asks_for_discretisation():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"A": ["a"] * 50, "X": rng.normal(size=50)})
    with pytest.raises(InvalidDataError, match=r"task 'f', column 'X': a numeric column with 50 distinct values.*discretise"):
        from_dataframe(df, name="f")


def test_float_column_with_few_values_is_discrete():
    df = pd.DataFrame({"X": [0.5, 1.5, 0.5, 1.5]})
    d = from_dataframe(df)
    assert d.states == (("0.5", "1.5"),)


def test_more_than_255_states_is_an_error():
    df = pd.DataFrame({"id": [f"s{i}" for i in range(MAX_STATES + 1)], "A": ["a"] * (MAX_STATES + 1)})
    with pytest.raises(InvalidDataError, match=r"task 'big', column 'id' has 256 states; at most 255"):
        from_dataframe(df, name="big")


def test_exactly_255_states_is_legal():
    labels = [f"s{i:03d}" for i in range(MAX_STATES)]
    d = from_dataframe(pd.DataFrame({"id": labels}))
    assert d.arities.tolist() == [255]
    assert _decoded(d)["id"] == labels


def test_undeclared_state_is_an_error(tmp_path):
    df = pd.DataFrame({"A": ["lo", "hi", "mid"], "B": ["x", "y", "x"]})
    with pytest.raises(InvalidDataError, match=r"task 'u', column 'A': unknown state 'mid'"):
        from_dataframe(df, name="u", states={"A": ["lo", "hi"]})
    path = _write(tmp_path / "u.csv", "A\nlo\nNone\n")
    with pytest.raises(InvalidDataError, match=r"task 'u', column 'A': unknown state 'None'"):
        read_csv(path, states={"A": ["lo", "hi"]})
    with pytest.raises(InvalidDataError, match=r"task 'u', column 'A': unknown state 'mid'"):
        make_taskset({"u": df}, states={"A": ["lo", "hi"]})


# ---------------------------------------------------------------------------
# Several tasks
# ---------------------------------------------------------------------------


def test_make_taskset_overlapping_variables_union_states_and_round_trip():
    t1 = pd.DataFrame({"A": ["a1", "a2", "a1"], "B": ["x", "y", "x"]})
    t2 = pd.DataFrame({"C": ["c", "c", "d", "c"], "B": ["z", "y", "y", "NA"]})
    t3 = pd.DataFrame({"A": ["a3", "a1"]})
    ts = make_taskset({"one": t1, "two": t2, "three": t3})
    assert ts.names == ("one", "two", "three")
    assert ts.variables == ("A", "B", "C")
    assert ts.states == (("a1", "a2", "a3"), ("NA", "x", "y", "z"), ("c", "d"))
    assert ts.local_index.tolist() == [[0, 1, -1], [-1, 1, 0], [0, -1, -1]]
    # Every task that has a variable uses the shared state list (same arity).
    for t, task in enumerate(ts.tasks):
        for g, var in enumerate(ts.variables):
            j = ts.local_index[t, g]
            if j >= 0:
                assert task.names[j] == var
                assert task.states[j] == ts.states[g]
    # Codes decode back to the original labels.
    for name, original in (("one", t1), ("two", t2), ("three", t3)):
        task = ts[name]
        pd.testing.assert_frame_equal(task.to_dataframe().astype(object), original.astype(object))
        assert _decoded(task) == {c: list(original[c]) for c in original.columns}
    # global_codes puts each column at its global position.
    g = ts.global_codes(1)
    assert g[:, 1].tolist() == ts["two"].codes[:, 1].tolist()
    assert g[:, 2].tolist() == ts["two"].codes[:, 0].tolist()


def test_make_taskset_list_of_dataframes_and_discrete_data():
    d = from_dataframe(pd.DataFrame({"A": ["p", "q"]}), name="named")
    ts = make_taskset([pd.DataFrame({"A": ["r", "p"]}), d])
    assert ts.names == ("task0", "named")
    assert ts.states == (("p", "q", "r"),)
    assert _decoded(ts["named"]) == {"A": ["p", "q"]}
    assert _decoded(ts["task0"]) == {"A": ["r", "p"]}


def test_make_taskset_declared_states():
    t1 = pd.DataFrame({"A": ["lo", "lo"]})
    t2 = pd.DataFrame({"A": ["hi", "lo"]})
    ts = make_taskset({"a": t1, "b": t2}, states={"A": ["lo", "mid", "hi"]})
    assert ts.states == (("lo", "mid", "hi"),)
    assert ts["a"].codes[:, 0].tolist() == [0, 0]
    assert ts["b"].codes[:, 0].tolist() == [2, 0]


def test_make_taskset_task_column_splits_one_dataframe():
    df = pd.DataFrame(
        {
            "site": ["s2", "s1", "s2", "s1", "s1"],
            "A": ["a", "b", "c", "a", "a"],
            "B": ["x", "x", "y", "None", "x"],
        }
    )
    ts = make_taskset(df, task_column="site")
    assert ts.names == ("s1", "s2")
    assert ts.variables == ("A", "B")
    assert ts.states == (("a", "b", "c"), ("None", "x", "y"))
    assert _decoded(ts["s1"]) == {"A": ["b", "a", "a"], "B": ["x", "None", "x"]}
    assert _decoded(ts["s2"]) == {"A": ["a", "c"], "B": ["x", "y"]}
    assert ts.local_index.tolist() == [[0, 1], [0, 1]]


def test_discrete_data_round_trip_through_from_dataframe():
    rng = np.random.default_rng(3)
    labels = np.array(["None", "NA", "null", "3", "x"], dtype=object)
    df = pd.DataFrame({f"V{j}": labels[rng.integers(0, 5, size=40)] for j in range(4)})
    d = from_dataframe(df)
    d2 = from_dataframe(d.to_dataframe())
    assert d2.states == d.states
    assert np.array_equal(d2.codes, d.codes)
    assert isinstance(d.take([0, 2]), DiscreteData)
    assert _decoded(d.take([0, 2])) == {c: [df[c][0], df[c][2]] for c in df.columns}


def test_csv_rows_longer_than_header_are_refused(tmp_path):
    path = _write(tmp_path / "long.csv", "A,B\nx,y,z\nu,v,w\n")
    with pytest.raises(InvalidDataError, match=r"task 'long'"):
        read_csv(path)


def test_csv_utf8_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfA,B\nx,y\n")
    assert read_csv(path).names == ("A", "B")


def test_taskset_subset_keeps_declared_state_order():
    ts = make_taskset(
        {"a": pd.DataFrame({"A": ["lo", "hi"]}), "b": pd.DataFrame({"A": ["lo"]})},
        states={"A": ["lo", "mid", "hi"]},
    )
    assert ts.states == (("lo", "mid", "hi"),)
    sub = ts.subset(["a"])
    assert sub.states == ts.states
    assert _decoded(sub["a"]) == {"A": ["lo", "hi"]}


@pytest.mark.parametrize("seed", [0, 1])
def test_every_cell_of_large_random_frames_decodes_to_its_own_label(seed, tmp_path):
    """Columns are coded from their distinct values (hashing, not a Python loop over the cells): on frames of
    thousands of rows of every column type, each cell decodes to the label written by hand from that cell, the
    states are exactly the labels of the rows kept, in value order, and a CSV copy codes the same."""
    rng = np.random.default_rng(seed)
    n = 5000
    words = np.array(["b", "a", "NA", "zz", "é", "a b"], dtype=object)
    df = pd.DataFrame({
        "text": pd.Series(rng.choice(words, n), dtype=object),
        "digits": pd.Series(rng.choice(np.array(["10", "2", "1", "07"], dtype=object), n), dtype=object),
        "ints": rng.choice([3, -1, 10, 2], n),
        "floats": rng.choice([1.0, 2.5, -3.0, 10.0], n),
        "flags": rng.choice([True, False], n),
    })
    df.loc[rng.random(n) < 0.01, "text"] = ""  # missing cells, dropped with their rows
    df.loc[int(np.flatnonzero(df["text"] == "")[0]), "ints"] = 99  # a label only in a dropped row
    d = from_dataframe(df, dropna=True)
    kept = df[df["text"] != ""]
    written = {
        "text": kept["text"].tolist(),
        "digits": kept["digits"].tolist(),
        "ints": [str(x) for x in kept["ints"]],
        "floats": [str(int(x)) if x == int(x) else str(x) for x in kept["floats"]],
        "flags": [str(x) for x in kept["flags"]],
    }
    assert _decoded(d) == written
    order = {"text": sorted, "digits": lambda s: sorted(s, key=lambda x: (float(x), x)),
             "ints": lambda s: sorted(s, key=int), "floats": lambda s: sorted(s, key=float),
             "flags": lambda s: sorted(s, key=lambda x: x == "True")}
    assert {v: list(st) for v, st in zip(d.names, d.states)} == {v: order[v](set(w)) for v, w in written.items()}
    assert "99" not in d.states[d.names.index("ints")]
    path = tmp_path / "task.csv"
    kept.to_csv(path, index=False)
    from_csv = read_csv(path)
    assert _decoded(from_csv) == {**written, "floats": [str(x) for x in kept["floats"]]}  # the file's own text


_GROWTH = """
import sys
from mtbn.data.csvfile import read_csv, read_csv_frame, read_csv_numbers
def status(key):
    return int(next(line for line in open("/proc/self/status") if line.startswith(key)).split()[1])
read = {"codes": read_csv, "strings": read_csv_frame, "numbers": read_csv_numbers}[sys.argv[2]]
read(sys.argv[3])  # a small file first: the modules pandas loads on its first parse are not the data's
try:
    open("/proc/self/clear_refs", "w").write("5")  # the peak resident set (VmHWM) from here on
except OSError:
    sys.exit(3)
before = status("VmRSS:")
data = read(sys.argv[1])
print(status("VmHWM:") - before)
"""


@pytest.mark.slow
def test_reading_a_csv_file_holds_a_code_per_cell_not_the_files_strings(tmp_path):
    """read_csv codes each chunk of rows as pandas parses it: in a fresh process the peak resident set grows by
    well under half of what it grows by for the DataFrame of the file's strings (read_csv_frame, what read_csv
    held before), and the coded task is the one from that DataFrame."""
    import subprocess
    import sys

    from mtbn.data.csvfile import read_csv_frame
    from mtbn.networks import load_network, sample

    frame = sample(load_network("alarm"), 200_000, random_state=np.random.default_rng(0)).to_dataframe()
    path, small = tmp_path / "alarm.csv", tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    frame.head(10).to_csv(small, index=False)
    runs = {how: subprocess.run([sys.executable, "-c", _GROWTH, str(path), how, str(small)], capture_output=True,
                                text=True) for how in ("codes", "strings")}
    if any(r.returncode == 3 for r in runs.values()):
        pytest.skip("this system cannot reset a process's peak resident set (/proc/self/clear_refs)")
    assert all(r.returncode == 0 for r in runs.values()), [r.stderr for r in runs.values()]
    growth = {how: int(r.stdout) for how, r in runs.items()}
    assert growth["codes"] < 0.5 * growth["strings"], growth
    d, whole = read_csv(path), from_dataframe(read_csv_frame(path), name="alarm")
    assert d.names == whole.names and d.states == whole.states and np.array_equal(d.codes, whole.codes)


@pytest.mark.slow
def test_reading_a_continuous_csv_file_holds_its_floats_not_its_strings(tmp_path):
    """read_csv_numbers (how ``mtbn learn`` reads continuous tasks) holds 8 bytes per cell: in a fresh process
    the peak resident set grows, from 100,000 rows to 300,000, by under 1.5 times the floats' bytes added (a
    chunk's parse is a fixed cost), for a file pandas' float parser reads and for one that goes through the text
    (a quoted cell; its chunks of strings cost more, but a fixed amount), against over 4 times for the DataFrame
    of the file's strings (what the command line held before); at 300,000 rows a file of plain decimals grows it
    by under a third of what the strings do."""
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    small = tmp_path / "small.csv"
    pd.DataFrame(rng.normal(size=(10, 11))).to_csv(small, index=False)
    growth = {}
    for rows in (100_000, 300_000):
        frame = pd.DataFrame(rng.normal(size=(rows, 11)), columns=[f"x{j}" for j in range(11)])
        plain, quoted = tmp_path / f"plain{rows}.csv", tmp_path / f"quoted{rows}.csv"
        frame.to_csv(plain, index=False)
        quoted.write_text(plain.read_text() + '"0.5"' + ",0.5" * 10 + "\n")
        for path, how in ((plain, "numbers"), (quoted, "numbers"), (plain, "strings")):
            run = subprocess.run([sys.executable, "-c", _GROWTH, str(path), how, str(small)], capture_output=True,
                                 text=True)
            if run.returncode == 3:
                pytest.skip("this system cannot reset a process's peak resident set (/proc/self/clear_refs)")
            assert run.returncode == 0, run.stderr
            growth[path.name[:-len(str(rows)) - 4], how, rows] = int(run.stdout)
    added_kb = 200_000 * 11 * 8 / 1024
    for name in ("plain", "quoted"):
        assert growth[name, "numbers", 300_000] - growth[name, "numbers", 100_000] < 1.5 * added_kb, growth
    assert growth["plain", "numbers", 300_000] < growth["plain", "strings", 300_000] / 3, growth
    strings_added = growth["plain", "strings", 300_000] - growth["plain", "strings", 100_000]
    assert strings_added > 4 * added_kb, growth  # the former way: text per cell


def test_read_csv_numbers_gives_each_cell_its_number_or_stops_at_the_first_chunk_with_a_label(tmp_path, monkeypatch):
    """How the command line reads tasks for its kinds of data that take numbers: each cell's float (here the
    number each cell was written from, or Python's ``float`` of the text), the same through pandas' float
    parser (a file of plain decimals) and through the text (a file with one quoted cell, ``inf`` or ``1E5``), at
    any chunk size; NaN for an empty cell or a short row's missing field; None for a file with a label or words
    pandas' float parser would read as numbers (``True``), the parse stopped at the first chunk with one (a
    ragged row further on is never reached); a ragged row before it is reported; the Gaussian kind claims the
    numbers, missing values too (its learner names them), and not a label."""
    from mtbn.data.csvfile import read_csv_frame, read_csv_numbers
    from mtbn.learn.gaussian import GaussianKind

    rng = np.random.default_rng(5)
    values = rng.normal(scale=10.0 ** rng.integers(-5, 6, size=(40, 2)), size=(40, 2))
    values[:5, 1] = np.round(values[:5, 1])  # whole numbers, written "12" and "12.0"
    numbers = [f"{repr(float(a))},{int(b) if i < 3 else repr(float(b))}" for i, (a, b) in enumerate(values)]
    files = {
        "plain": numbers + ["-0,-0.0"],
        "quoted": numbers + ['"-0",-0.0'],
        "words": numbers + ["1E5,inf"],
        "label_then_ragged": numbers[:3] + ["x,1"] + numbers[3:20] + ["1,2,3"],
        "empty_cell_at_the_end": numbers + [",5"],
        "short_row": numbers[:7] + ["5"] + numbers[7:],
        "true": numbers + ["True,1"],
        "ragged_before_the_label": numbers[:3] + ["1,2,3"] + numbers[3:20] + ["x,1"],
    }
    paths = {stem: _write(tmp_path / f"{stem}.csv", "u, v \n" + "\n".join(rows) + "\n") for stem, rows in files.items()}
    paths["carriage_returns"] = tmp_path / "carriage_returns.csv"  # old Mac line ends: no line feed at all
    paths["carriage_returns"].write_bytes(("u, v \r" + "\r".join(files["plain"]) + "\r").encode())
    import mtbn.data.csvfile as csvfile

    routes, real = [], csvfile._read_chunks

    def spy(*args, **kwargs):  # which parse each file takes: pandas' floats, or the text
        routes.append(kwargs.get("dtype", str))
        return real(*args, **kwargs)

    monkeypatch.setattr(csvfile, "_read_chunks", spy)
    read_csv_numbers(paths["plain"])
    read_csv_numbers(paths["quoted"])
    read_csv_numbers(paths["empty_cell_at_the_end"])
    assert routes == [float, str, float]
    for chunksize in (1, 7, 50_000):
        for stem in ("plain", "quoted", "words", "carriage_returns"):
            got = read_csv_numbers(paths[stem], chunksize=chunksize)
            assert list(got.columns) == ["u", "v"] and (got.dtypes == np.float64).all()
            assert np.array_equal(got.to_numpy()[:40], values), (stem, chunksize)
            last = got.to_numpy()[40]
            if stem == "words":
                assert last.tolist() == [1e5, np.inf]
            else:
                assert last.tolist() == [0.0, 0.0] and not np.signbit(last).any()  # never a negative zero
        assert read_csv_numbers(paths["true"], chunksize=chunksize) is None
        for stem, where in (("empty_cell_at_the_end", (40, 0)), ("short_row", (7, 1))):  # missing: NaN
            got = read_csv_numbers(paths[stem], chunksize=chunksize).to_numpy()
            assert np.isnan(got).sum() == 1 and np.isnan(got[where]), (stem, chunksize)
            assert np.array_equal(np.delete(got, where[0], axis=0)[:40], values)
        with pytest.raises(InvalidDataError, match="ragged_before_the_label"):
            read_csv_numbers(paths["ragged_before_the_label"], chunksize=chunksize)
        if chunksize < 20:  # the label's chunk comes before the ragged row's
            assert read_csv_numbers(paths["label_then_ragged"], chunksize=chunksize) is None
        else:
            with pytest.raises(InvalidDataError, match="label_then_ragged"):
                read_csv_numbers(paths["label_then_ragged"], chunksize=chunksize)
    with pytest.raises(InvalidDataError, match="label_then_ragged"):
        read_csv_frame(paths["label_then_ragged"], chunksize=5)  # the whole file is ragged
    kind = GaussianKind()
    assert kind.numbers_only
    assert kind.claims({"plain": read_csv_numbers(paths["plain"])})
    assert kind.claims({"plain": read_csv_frame(paths["plain"])})  # the same verdict from the text
    holes = read_csv_numbers(paths["plain"])
    holes.iloc[3, 1] = np.nan  # a missing value: still continuous (its learner names it), as from its text
    assert kind.claims({"holes": holes}) and kind.claims({"holes": holes.astype(str).replace("nan", "")})
    assert kind.claims({"empty": read_csv_frame(paths["empty_cell_at_the_end"])})
    assert not kind.claims({"label": read_csv_frame(paths["true"])})


def test_kind_frames_reads_no_first_file_of_whole_numbers_and_gives_the_verdict_reading_it_gives(tmp_path,
                                                                                               monkeypatch):
    # While every registered kind needs a fraction (the Gaussian kind), a first file whose bytes after the header
    # hold no point and no "e" is declined without being parsed; the verdict must be the one that parsing the file
    # and asking the kinds gives (needs_fractions switched off), for whole numbers, fractions, exponents and labels.
    import mtbn.data.csvfile as csvfile
    from mtbn.cli.kinds import kind_frames
    from mtbn.learn.gaussian import GaussianKind

    rng = np.random.default_rng(3)
    whole = pd.DataFrame({"a.b": rng.integers(-5, 60, 80), "c": rng.integers(0, 3, 80)})
    files = {
        "codes": (whole, True),
        "codes_with_inf": (whole.astype(str).replace("7", "inf"), True),
        "labels_without_e": (pd.DataFrame({"x": rng.choice(["NO", "HIGH", "LOW"], 80)}), True),
        "fractions": (pd.DataFrame({"x": rng.normal(size=80), "y": rng.integers(0, 3, 80)}), False),
        "exponents": (pd.DataFrame({"x": [f"{v}e-2" for v in rng.integers(-900, 900, 80)]}), False),  # no point
        "whole_exponents": (pd.DataFrame({"x": [f"{v}e2" for v in rng.integers(0, 90, 80)]}), False),
        "labels_with_e": (pd.DataFrame({"x": rng.choice(["TRUE", "FALSE"], 80)}), False),
    }
    paths = {}
    for name, (frame, _) in files.items():
        paths[name] = str(tmp_path / f"{name}.csv")
        frame.to_csv(paths[name], index=False)
    parse = csvfile.read_csv_numbers
    verdicts = {name: kind_frames([paths[name]]) for name in files}
    with monkeypatch.context() as m:
        m.setattr(GaussianKind, "needs_fractions", False)
        for name, path in paths.items():
            read = kind_frames([path])
            assert (read is None) == (verdicts[name] is None), name
            if read is not None:
                assert read[0].name == verdicts[name][0].name == "gaussian"
                pd.testing.assert_frame_equal(read[1][name], verdicts[name][1][name])
    assert verdicts["fractions"] is not None and verdicts["exponents"] is not None
    for name, (_, unread) in files.items():
        assert csvfile.written_whole(paths[name]) is unread, name

        def refuse(*args, **kwargs):
            raise AssertionError("parsed")

        with monkeypatch.context() as m:
            m.setattr(csvfile, "read_csv_numbers", refuse if unread else parse)
            assert (kind_frames([paths[name]]) is None) == (verdicts[name] is None), name
    assert not csvfile.written_whole(str(tmp_path / "no such file.csv"))
