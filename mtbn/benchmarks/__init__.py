"""Multitask benchmark problems: discrete networks perturbed per task (:mod:`mtbn.benchmarks.discrete`, paper
Section 2.3.4 and beyond, with the interventional conditions of issue 46) and linear Gaussian ones
(:mod:`mtbn.benchmarks.gaussian`, issue 49)."""

from mtbn.benchmarks.discrete import (
    ALARM_COMPONENTS,
    COMPONENT_SPLITS,
    PAPER_ALARM_COMPONENTS,
    PROBLEMS,
    make_component_pool,
    make_component_tasks,
    make_interventional_tasks,
    make_perturbed_tasks,
    make_problem,
    marginal,
    mixed_unrelated,
    problem_file,
    problem_source,
    random_cpts,
    relabel,
)
from mtbn.benchmarks.gaussian import GAUSSIAN_PROBLEMS, make_gaussian_problem

__all__ = [
    "PROBLEMS",
    "GAUSSIAN_PROBLEMS",
    "ALARM_COMPONENTS",
    "PAPER_ALARM_COMPONENTS",
    "COMPONENT_SPLITS",
    "make_problem",
    "problem_source",
    "problem_file",
    "make_gaussian_problem",
    "make_interventional_tasks",
    "mixed_unrelated",
    "make_perturbed_tasks",
    "relabel",
    "make_component_tasks",
    "make_component_pool",
    "marginal",
    "random_cpts",
]
