"""The contributor page's traces (docs/contributing.md): a score, a prior, a command and a kind of data added at
run time reach the API, the estimator and the ``mtbn`` command, and an installed package's entry points reach
the command."""

import csv
import importlib.metadata

import numpy as np
import pandas as pd
import pytest

from mtbn.cli import load_plugins, main
from mtbn.estimators import MultitaskStructureLearner
from mtbn.exceptions import InvalidParameterError
from mtbn.learn import learn_structures
from mtbn.learn.kinds import DATA_KINDS, DataKind, named_frames, register_data_kind
from mtbn.networks import load_network, sample
from mtbn.priors import PRIORS, EditPrior, register_prior
from mtbn.score import SCORES, BDeuScore, LocalScore, register_score

FIXED = dict(penalty=0.9, n_restarts=1, n_joint_restarts=1, random_state=0)


class DoubledBDeu(BDeuScore):
    """BDeu at twice the equivalent sample size it is given: must learn what BDeu learns at that size."""

    name = "doubled"

    def __init__(self, data, equivalent_sample_size=1.0):
        super().__init__(data, 2 * equivalent_sample_size)


class LoopBDeu(LocalScore):
    """A score written against the bare protocol (only ``compute``): BDeu by the uncached convenience function."""

    name = "loop-bdeu"
    params = ("equivalent_sample_size",)

    def __init__(self, data, equivalent_sample_size=1.0):
        super().__init__(data)
        self.inner = BDeuScore(data, equivalent_sample_size)

    def compute(self, child, parents):
        return self.inner.local_score_uncached(child, parents)


class RenamedEdit(EditPrior):
    """The Edit prior under another name: must learn what prior='edit' learns."""

    name = "renamed-edit"


@pytest.fixture
def tasks():
    net = load_network("asia")
    return {t: sample(net, 200 + 50 * i, random_state=i).to_dataframe() for i, t in enumerate(("a", "b", "c"))}


@pytest.fixture
def registered():
    register_score("doubled", DoubledBDeu)
    register_score("loop-bdeu", LoopBDeu)
    register_prior("renamed-edit", RenamedEdit)
    yield
    for name in ("doubled", "loop-bdeu"):
        SCORES.pop(name, None)
    PRIORS.pop("renamed-edit", None)


def _parents(res):
    return [g.parents for g in res.graphs]


def test_a_score_on_the_bare_protocol_learns_what_the_built_in_one_learns(tasks, registered):
    ours = learn_structures(tasks, score="loop-bdeu", **FIXED)
    bdeu = learn_structures(tasks, **FIXED)
    assert _parents(ours) == _parents(bdeu)
    assert ours.log_score == pytest.approx(bdeu.log_score, abs=1e-9)


def test_a_registered_score_reaches_the_api_and_the_estimator(tasks, registered):
    bdeu2 = learn_structures(tasks, equivalent_sample_size=2.0, **FIXED)
    api = learn_structures(tasks, score="doubled", equivalent_sample_size=1.0, **FIXED)
    assert _parents(api) == _parents(bdeu2)
    est = MultitaskStructureLearner(scoring="doubled", penalty=0.9, n_restarts=1, n_joint_restarts=1,
                                    random_state=0).fit(tasks)
    assert [est.dags_[n].parents for n in tasks] == _parents(bdeu2)


def test_a_registered_prior_reaches_the_api_and_the_estimator(tasks, registered):
    edit = learn_structures(tasks, prior="edit", **FIXED)
    ours = learn_structures(tasks, prior="renamed-edit", **FIXED)
    assert _parents(ours) == _parents(edit) and ours.log_score == edit.log_score
    est = MultitaskStructureLearner(prior="renamed-edit", penalty=0.9, n_restarts=1, n_joint_restarts=1,
                                    random_state=0).fit(tasks)
    assert [est.dags_[n].parents for n in tasks] == _parents(edit)


def _csvs(tasks, folder):
    paths = []
    for name, frame in tasks.items():
        path = folder / f"{name}.csv"
        frame.to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _edges(path):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return sorted(tuple(r) for r in rows[1:])


def _learn_cli(tmp_path, label, csvs, *options):
    out = tmp_path / label
    assert main(["learn", "--penalty", "0.9", "--restarts", "1", "--joint-restarts", "1", "--seed", "0",
                 "--out", str(out), *options, *csvs]) == 0
    return [_edges(out / f"{name}.edges.csv") for name in ("a", "b", "c")]


def test_a_registered_score_and_prior_reach_the_command(tasks, registered, tmp_path):
    csvs = _csvs(tasks, tmp_path)
    assert (_learn_cli(tmp_path, "doubled", csvs, "--score", "doubled")
            == _learn_cli(tmp_path, "ess2", csvs, "--ess", "2"))
    assert (_learn_cli(tmp_path, "renamed", csvs, "--prior", "renamed-edit")
            == _learn_cli(tmp_path, "edit", csvs, "--prior", "edit"))


def test_an_installed_packages_entry_points_reach_the_command(tasks, tmp_path, monkeypatch, capsys):
    # What a package's [project.entry-points."mtbn.scores"] would declare: the built-in classes under new names,
    # which must learn what the built-in names learn; a broken entry is skipped with a warning.
    ep = importlib.metadata.EntryPoint
    fake = {"mtbn.scores": [ep("bdeu-again", "mtbn.score.bdeu:BDeuScore", "mtbn.scores"),
                            ep("broken", "no_such_module:Nothing", "mtbn.scores")],
            "mtbn.priors": [ep("edit-again", "mtbn.priors.edit:EditPrior", "mtbn.priors")],
            "mtbn.data_kinds": [ep("gaussian", "mtbn.learn.gaussian:GaussianKind", "mtbn.data_kinds")]}
    before = DATA_KINDS["gaussian"]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: fake.get(group, []))
    try:
        assert load_plugins() == ["mtbn.scores:bdeu-again", "mtbn.priors:edit-again", "mtbn.data_kinds:gaussian"]
        assert DATA_KINDS["gaussian"] is not before and type(DATA_KINDS["gaussian"]) is type(before)
        assert "plug-in 'broken' of 'mtbn.scores' not loaded" in capsys.readouterr().err
        csvs = _csvs(tasks, tmp_path)
        assert (_learn_cli(tmp_path, "again", csvs, "--score", "bdeu-again", "--prior", "edit-again")
                == _learn_cli(tmp_path, "built-in", csvs, "--score", "bdeu", "--prior", "edit"))
    finally:
        SCORES.pop("bdeu-again", None)
        PRIORS.pop("edit-again", None)
        register_data_kind(before)


@pytest.mark.parametrize("name, cls", [("", DoubledBDeu), ("x", dict), ("x", object)])
def test_register_score_refuses_what_is_not_a_named_score(name, cls):
    with pytest.raises(InvalidParameterError, match="a score must be a subclass of LocalScore"):
        register_score(name, cls)
    assert "x" not in SCORES


def test_a_score_refuses_data_of_another_kind():
    with pytest.raises(TypeError, match="score 'bdeu' takes DiscreteData data; got ndarray"):
        BDeuScore(np.zeros((3, 2), dtype=int))


def test_a_registered_command_runs_with_the_errors_and_exit_statuses_of_the_others(capsys):
    # A toy command: one function adding its subparser; main() dispatches it, prints its errors as one line.
    from mtbn.cli import parser as cli_parser
    from mtbn.cli.options import _add_run
    from mtbn.cli.values import _UsageError

    def run(args):
        if args.times < 1:
            raise _UsageError("--times must be at least 1")
        print(" ".join(["hello"] * args.times), args.seed)
        return 0

    def add_parser(sub):
        p = sub.add_parser("hello", help="say hello")
        p.add_argument("--times", type=int, default=1)
        _add_run(p)
        p.set_defaults(func=run)

    cli_parser.register_command(add_parser)
    try:
        assert main(["hello", "--times", "2", "--seed", "7"]) == 0
        assert capsys.readouterr().out.strip() == "hello hello 7"
        assert main(["hello", "--times", "0"]) == 2
        assert capsys.readouterr().err.strip() == "mtbn: error: --times must be at least 1"
        assert "hello" in cli_parser.build_parser().commands
    finally:
        cli_parser.COMMANDS.remove(add_parser)
    assert "hello" not in cli_parser.build_parser().commands


class Tallies(DataKind):
    """A toy kind of data: counts (whole numbers from 0, some column with more than ten values), learned as
    discrete networks of their bands of 20 (``"0-19"``, ``"20-39"``, ...). Must learn what the discrete learner
    learns on the bands."""

    name = "tallies"
    description = "count"
    learned_as = "networks of count bands"
    settings = ("prior", "penalty", "n_restarts", "n_joint_restarts", "random_state", "n_jobs", "progress")

    def claims(self, tasks):
        items = named_frames(tasks)
        if not items or not all(isinstance(f, pd.DataFrame) for _, f in items):
            return False
        values = [f.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float) for _, f in items]
        return (all(not np.isnan(v).any() and (v >= 0).all() and (v == np.round(v)).all() for v in values)
                and any(len(np.unique(col)) > 10 for v in values for col in v.T))

    def learn(self, tasks, **settings):
        return learn_structures(bands(tasks), **settings)

    def pgmpy_networks(self, result):
        from mtbn.networks import to_pgmpy

        return {n: to_pgmpy(b) for n, b in zip(result.task_names, result.networks)}

    def mean_log_likelihoods(self, result, tasks):
        from mtbn.learn import as_discrete_data
        from mtbn.networks import log_likelihood

        nets = dict(zip(result.task_names, result.networks))
        return {n: float(np.mean(log_likelihood(nets[n], as_discrete_data(f, name=n), per_row=True)))
                for n, f in bands(tasks).items()}


def bands(tasks):
    def band(x):
        low = (int(x) // 20) * 20
        return f"{low}-{low + 19}"

    return {n: f.apply(pd.to_numeric).map(band) for n, f in named_frames(tasks)}


@pytest.fixture
def tallies(tasks):
    rng = np.random.default_rng(5)
    counts = {n: f.apply(lambda col: col.astype("category").cat.codes) * 20 + rng.integers(0, 20, f.shape)
              for n, f in tasks.items()}
    register_data_kind(Tallies())
    yield counts
    DATA_KINDS.pop("tallies", None)


def test_a_registered_data_kind_reaches_the_api_and_the_estimator(tallies):
    banded = bands(tallies)
    assert not Tallies().claims(banded) and Tallies().claims(tallies)
    ours, direct = learn_structures(tallies, **FIXED), learn_structures(banded, **FIXED)
    assert _parents(ours) == _parents(direct) and ours.log_score == pytest.approx(direct.log_score, abs=1e-9)
    assert sum(g.n_edges for g in ours.graphs) > 0
    est = MultitaskStructureLearner(penalty=0.9, n_restarts=1, n_joint_restarts=1, random_state=0).fit(tallies)
    ref = MultitaskStructureLearner(penalty=0.9, n_restarts=1, n_joint_restarts=1, random_state=0).fit(banded)
    assert est.data_kind_ == "tallies" and ref.data_kind_ == "discrete"
    assert [est.dags_[n].parents for n in tallies] == _parents(direct)
    assert est.score(tallies) == pytest.approx(ref.score(banded), abs=1e-12)
    assert set(est.networks_["a"].nodes()) == set(ref.networks_["a"].nodes())
    with pytest.raises(InvalidParameterError, match="^max_parents is not available for count tasks; leave it"):
        learn_structures(tallies, max_parents=2, **FIXED)


def test_a_registered_data_kind_reaches_the_command(tallies, tmp_path, capsys):
    ours = _learn_cli(tmp_path, "tallies", _csvs(tallies, tmp_path))
    assert "learned 3 count task(s) as networks of count bands" in capsys.readouterr().out
    (tmp_path / "banded").mkdir()
    assert ours == _learn_cli(tmp_path, "direct", _csvs(bands(tallies), tmp_path / "banded"))
    assert main(["learn", "--max-parents", "2", "--out", str(tmp_path / "x"), *_csvs(tallies, tmp_path)]) != 0
    assert capsys.readouterr().err.startswith("mtbn: error: --max-parents is not available for count tasks")
    assert not (tmp_path / "x").exists()


def test_register_data_kind_refuses_what_is_not_a_named_kind():
    for bad in (Tallies, DataKind(), object()):
        with pytest.raises(InvalidParameterError, match="a data kind must be a DataKind instance with a name"):
            register_data_kind(bad)


def test_a_kind_claims_nothing_by_default_and_a_missing_method_is_named(tallies):
    class Bare(DataKind):
        name = "bare"

    assert not Bare().claims(tallies)

    class Partial(Tallies):
        name = "partial"
        pgmpy_networks = DataKind.pgmpy_networks

    register_data_kind(Partial())
    try:
        with pytest.raises(InvalidParameterError, match="data kind 'partial' does not implement pgmpy_networks"):
            MultitaskStructureLearner(penalty=0.9, n_restarts=1, n_joint_restarts=1).fit(tallies)
    finally:
        DATA_KINDS.pop("partial", None)
