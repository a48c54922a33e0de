"""The settings tables (mtbn.learn.settings): one declaration read by signatures, docs, checks, estimators and CLI."""

import inspect

import numpy as np
import pytest

from mtbn import MultitaskStructureLearner, StructureLearner
from mtbn.bootstrap import bootstrap_structures
from mtbn.cli import values
from mtbn.cli.parser import build_parser
from mtbn.exceptions import InvalidParameterError
from mtbn.learn import learn_identical_structures, learn_structure, learn_structures
from mtbn.learn.settings import ESTIMATOR_ONLY, IDENTICAL, MULTITASK, SINGLE
from mtbn.relatedness import cluster_tasks, select_tasks

#: A value each checked setting refuses (every setting with a check or choices must have one here).
BAD = {"prior": "bayes", "penalty": 1.5, "reversal": "triple", "score": "aic", "equivalent_sample_size": 0,
       "max_parents": -1, "start": "random", "cv": 1, "validation": 0, "selection_rule": "median",
       "force_transfer": "yes", "penalty_grid": [], "warm_start": 1, "penalty_search": "bisect", "solver": "greedy",
       "n_restarts": -1, "tabu_length": -2, "max_tabu_iter": 1.5, "n_joint_restarts": -1, "max_iter": -1,
       "random_state": -1, "n_jobs": 0, "parameter_sharing": -1.0, "transfer_per_task": "no", "perturbation": -3,
       "n_bootstrap": -1, "interventions": ["a"], "intervention_type": "soft", "further_changes": "yes"}


def _keywords(func):
    params = inspect.signature(func).parameters.values()
    return {p.name: p.default for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


@pytest.mark.parametrize("func, table, extra", [(learn_structures, MULTITASK, {}),
                                                (learn_structure, SINGLE, {"scorer": None}),
                                                (learn_identical_structures, IDENTICAL, {})])
def test_signatures_and_docs_come_from_the_table(func, table, extra):
    assert _keywords(func) == dict(table.defaults(), **extra)
    for s in table:
        assert f"\n    {s.name} : {s.type_text()}" in func.__doc__, s.name
    assert "{settings}" not in func.__doc__


@pytest.mark.parametrize("cls, table", [(MultitaskStructureLearner, MULTITASK + ESTIMATOR_ONLY),
                                        (StructureLearner, SINGLE)])
def test_estimator_parameters_come_from_the_table(cls, table):
    names = {s.estimator_name or s.name: s.default for s in table}
    assert _keywords(cls.__init__) == names
    # The __init__ is written out (no built __signature__): its own code object has the table's parameters,
    # in the table's order, all keyword-only, so help(), IDEs and mypy see them.
    assert "__signature__" not in vars(cls.__init__)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in params] == list(names)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    assert cls.__init__.__code__.co_kwonlyargcount == len(names)
    assert cls().get_params() == names
    assert "scoring" in names and "score" not in names  # score() is the estimator's scikit-learn method
    changed = cls(n_restarts=3)
    assert changed.get_params()["n_restarts"] == 3 and repr(changed) == f"{cls.__name__}(n_restarts=3)"
    for s in table:
        assert f"\n    {s.estimator_name or s.name} : {s.type_text()}" in cls.__doc__, s.name


def test_every_checked_setting_has_a_bad_value_here():
    checked = {s.name for table in (MULTITASK, SINGLE, ESTIMATOR_ONLY) for s in table
               if s.check is not None or s.choices is not None}
    assert checked == set(BAD)


@pytest.mark.parametrize("name", [s.name for s in MULTITASK if s.check is not None or s.choices is not None])
def test_a_bad_setting_is_refused_at_the_front_door(name):
    # The tasks are not even a data set: the setting is checked before anything is read.
    with pytest.raises(InvalidParameterError, match=name):
        learn_structures(object(), **{name: BAD[name]})
    with pytest.raises(InvalidParameterError, match=name):
        bootstrap_structures(object(), n_boot=2, **{name: BAD[name]})


@pytest.mark.parametrize("name", [s.name for s in SINGLE if s.check is not None or s.choices is not None])
def test_a_bad_single_task_setting_is_refused_at_the_front_door(name):
    with pytest.raises(InvalidParameterError, match=name):
        learn_structure(object(), **{name: BAD[name]})


@pytest.mark.parametrize("call", [
    lambda: learn_structures({}, penalti=0.5),
    lambda: learn_structure(None, penalty=0.5),  # a multitask setting
    lambda: learn_identical_structures({}, penalti=0.5),
    lambda: MultitaskStructureLearner(penalti=0.5),
    lambda: StructureLearner(score="bic"),  # the estimators call it scoring
    lambda: bootstrap_structures({}, penalti=0.5),
    lambda: select_tasks({}, "a", penalti=0.5),
    lambda: cluster_tasks({}, penalti=0.5),
])
def test_an_unknown_setting_is_a_type_error_naming_it(call):
    with pytest.raises(TypeError, match="unexpected keyword argument '(penalti|penalty|score)'"):
        call()


def test_seed_is_checked_without_drawing_from_a_generator():
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    assert MULTITASK.bind("f", {"random_state": rng})["random_state"] is rng
    assert rng.bit_generator.state == state


def test_cli_options_come_from_the_table():
    parser = build_parser()
    learn = parser.commands["learn"]
    args = learn.parse_args(["x.csv", "--out", "o"])
    given = MULTITASK.from_args(args)
    flagged = {s.name for s in MULTITASK if s.flag}
    assert set(given) == flagged
    for name, value in given.items():
        # --jobs 1 is one process, as the library's n_jobs=None (the CLI never hands the work to a cluster
        # unless --scheduler is given)
        assert value == (1 if name == "n_jobs" else MULTITASK[name].default), name
    assert args.bootstrap == ESTIMATOR_ONLY["n_bootstrap"].default
    help_text = learn.format_help()
    for s in MULTITASK:
        if s.flag:
            assert s.flag in help_text


@pytest.mark.parametrize("setting", [s for s in MULTITASK + ESTIMATOR_ONLY if s.kind is not None],
                         ids=lambda s: s.name)
def test_each_option_reads_its_default_back(setting):
    if setting.default is None:
        pytest.skip("no default to read back")
    convert = values.CONVERTERS[setting.kind]
    assert convert(str(setting.default)) == setting.default


def test_functions_above_the_learner_take_the_tables_defaults_or_say_why_not():
    # bootstrap, relatedness, select and cluster: every parameter named as a learner setting defaults to the
    # table's value, except the few in OWN_DEFAULTS, each with its reason (and then it does differ).
    from mtbn.bootstrap import bootstrap_structures
    from mtbn.learn.settings import OWN_DEFAULTS
    from mtbn.relatedness import cluster_tasks, direct_relatedness, indirect_relatedness, select_tasks

    table = {s.name: s.default for s in MULTITASK}
    seen = set()
    for func in (bootstrap_structures, direct_relatedness, indirect_relatedness, select_tasks, cluster_tasks):
        for p in inspect.signature(func).parameters.values():
            if p.name not in table or p.kind is not inspect.Parameter.KEYWORD_ONLY:
                continue
            key = f"{func.__name__}.{p.name}"
            if key in OWN_DEFAULTS:
                seen.add(key)
                assert p.default != table[p.name] and len(OWN_DEFAULTS[key]) > 40, key
            else:
                assert p.default == table[p.name], (key, p.default, table[p.name])
    assert seen == set(OWN_DEFAULTS)  # no stale entry


def test_bootstrap_refuses_a_bad_n_jobs_before_reading_the_tasks():
    # Checked by the learner's table (one check, the learner's message), before the tasks are even read.
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        bootstrap_structures(object(), n_boot=2, n_jobs=0)
