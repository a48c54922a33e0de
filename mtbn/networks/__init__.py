"""Parametrised discrete Bayesian networks: fitting, scoring, sampling, BIF I/O.

A :class:`BayesianNetwork` holds, for every variable, its state labels, its
parents (as indices, in a fixed order) and its conditional probability table
(CPT). ``cpts[v]`` has one axis per parent (in the order of ``parents[v]``,
sized by the parent's arity) and a last axis over the states of ``v``; every
row along the last axis sums to one.

The functions here turn a structure plus data into a network
(:func:`fit_parameters`, BDeu posterior mean), score data under a network
(:func:`log_likelihood`), draw data from a network (:func:`sample`), read and
write the BIF text format without pgmpy (:func:`read_bif`, :func:`write_bif`,
:func:`load_network`), write XMLBIF keeping names exactly (:func:`write_xmlbif`)
and convert to and from pgmpy (:func:`to_pgmpy`, :func:`from_pgmpy`; pgmpy
is imported only there).

Assumed and not checked
-----------------------
* The codes of a :class:`~mtbn.data.DiscreteData` are valid, that is
  ``data.codes[:, v] < len(data.states[v])`` (the DiscreteData invariant).
* A :class:`BayesianNetwork` is not modified after construction: its CPT
  arrays are made read-only, but the tuples it was built from are trusted.
* :func:`to_pgmpy` and :func:`from_pgmpy` rely on pgmpy's ``TabularCPD``
  layout: values of shape ``(child_card, product of evidence cards)`` with the
  first evidence variable most significant.

Everything else (shapes, row sums, acyclicity, names, labels, BIF syntax) is
checked and reported with :class:`~mtbn.exceptions.InvalidParameterError`,
:class:`~mtbn.exceptions.InvalidDataError` or
:class:`~mtbn.exceptions.CycleError`.

The package's modules: :mod:`~mtbn.networks.model` (the class),
:mod:`~mtbn.networks.fitting` (fit, score, sample), :mod:`~mtbn.networks.bif`
(BIF reading), :mod:`~mtbn.networks.bif_write` (BIF writing),
:mod:`~mtbn.networks.xmlbif` (XMLBIF writing),
:mod:`~mtbn.networks.io` (shipped networks, any file) and
:mod:`~mtbn.networks.convert` (pgmpy).
"""

from mtbn.networks.bif import read_bif
from mtbn.networks.bif_write import bif_portable, write_bif
from mtbn.networks.convert import from_pgmpy, to_pgmpy
from mtbn.networks.fitting import fit_parameters, fits_in_tables, heldout_log_likelihood, log_likelihood, sample
from mtbn.networks.io import SHIPPED_NETWORKS, example_tasks, load_network, read_network
from mtbn.networks.model import BayesianNetwork
from mtbn.networks.shared_fitting import (
    choose_sharing_strength,
    evidence_by_strength,
    family_distances,
    fit_shared_parameters,
)
from mtbn.networks.xmlbif import check_xmlbif_text, write_xmlbif

__all__ = [
    "BayesianNetwork",
    "fit_parameters",
    "fit_shared_parameters",
    "family_distances",
    "choose_sharing_strength",
    "evidence_by_strength",
    "log_likelihood",
    "heldout_log_likelihood",
    "fits_in_tables",
    "sample",
    "read_bif",
    "read_network",
    "write_bif",
    "bif_portable",
    "write_xmlbif",
    "check_xmlbif_text",
    "load_network",
    "example_tasks",
    "to_pgmpy",
    "from_pgmpy",
    "SHIPPED_NETWORKS",
]
