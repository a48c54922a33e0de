"""The contributor page's traces (docs/contributing.md): a score and a prior added at run time reach the API,
the estimator and the ``mtbn`` command, and an installed package's entry points reach the command."""

import csv
import importlib.metadata

import numpy as np
import pytest

from mtbn.cli import load_plugins, main
from mtbn.estimators import MultitaskStructureLearner
from mtbn.exceptions import InvalidParameterError
from mtbn.learn import learn_structures
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
            "mtbn.priors": [ep("edit-again", "mtbn.priors.edit:EditPrior", "mtbn.priors")]}
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: fake.get(group, []))
    try:
        assert load_plugins() == ["mtbn.scores:bdeu-again", "mtbn.priors:edit-again"]
        assert "plug-in 'broken' of 'mtbn.scores' not loaded" in capsys.readouterr().err
        csvs = _csvs(tasks, tmp_path)
        assert (_learn_cli(tmp_path, "again", csvs, "--score", "bdeu-again", "--prior", "edit-again")
                == _learn_cli(tmp_path, "built-in", csvs, "--score", "bdeu", "--prior", "edit"))
    finally:
        SCORES.pop("bdeu-again", None)
        PRIORS.pop("edit-again", None)


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
