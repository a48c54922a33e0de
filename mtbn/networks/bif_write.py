"""Writing the BIF text format without pgmpy (:func:`write_bif`).

The counterpart of :mod:`mtbn.networks.bif`, which reads what this module
writes back exactly: probabilities are printed with ``repr`` precision, and
names or labels that BIF cannot hold are percent-encoded with the reader's
scheme (:func:`mtbn.networks.bif._bif_encode`). Assumed and not checked: the
network is a valid :class:`~mtbn.networks.model.BayesianNetwork`.
"""

from __future__ import annotations

import gzip
import os
import re

import numpy as np

from mtbn.networks.bif import _ENCODING_PROPERTY, _bif_encode

__all__ = ["write_bif", "bif_portable"]

_UNSAFE_RE = re.compile(r'[{}()\[\],;|"\t\n\r\f\v]|//|/\*|  ')


def _bif_safe(text):
    return bool(text) and text == text.strip() and not _UNSAFE_RE.search(text) and "%" not in text


#: A token every BIF reader we know returns unchanged (pgmpy, pyAgrum, R bnlearn): an integer, or ASCII letters,
#: digits and ``_`` with single inner ``-`` or ``.`` after the first letter. pyAgrum's lexer rejects more than the
#: format does (``1.5``, ``5-7``, ``1e3``, ``a+b``, any non-ASCII letter), so a token that reads as a non-integer
#: number is out too (checked against pyAgrum 3.3.1 in tests/test_interop.py).
_PORTABLE_RE = re.compile(r"-?[0-9]+|[0-9]*[A-Za-z_][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]+)*")


def _portable(text):
    if not _PORTABLE_RE.fullmatch(text):
        return False
    if re.fullmatch(r"-?[0-9]+", text):
        return True
    try:
        float(text)
    except ValueError:
        return True
    return False


def bif_portable(network):
    """Whether every name and label of ``network`` is a BIF token that pgmpy and pyAgrum read back unchanged.

    When it is not, :func:`write_bif` still writes a file (percent-encoded,
    read back exactly by :func:`~mtbn.networks.read_bif`), but other tools
    would show the encoded names; XMLBIF (:func:`write_xmlbif`) holds any
    name. The command line writes ``.bif`` only for portable networks.

    Parameters
    ----------
    network : BayesianNetwork
        The network whose variable names and state labels are checked.

    Returns
    -------
    bool
        True if every name and label is an integer or an ASCII identifier (letters, digits and ``_``, with
        single inner ``-`` or ``.``) that does not read as a non-integer number; False otherwise.

    Examples
    --------
    >>> from mtbn.networks import load_network
    >>> bif_portable(load_network("asia"))
    True
    """
    return all(_portable(t) for t in list(network.names) + [x for st in network.states for x in st])


def _bif_text(network):
    """The BIF text of a network (probabilities printed with repr precision).

    Names and state labels that BIF cannot hold (brackets, commas, quotes,
    semicolons, leading, trailing or repeated spaces, empty labels, ...) are
    written percent-encoded, and the network block then carries the
    property ``mtbn_percent_encoding``, on which :func:`~mtbn.networks.read_bif` decodes them:
    the round trip is lossless, and other readers see valid identifiers.
    """
    texts = list(network.names) + [x for st in network.states for x in st]
    encode = not all(_bif_safe(t) for t in texts)
    code = _bif_encode if encode else (lambda t: t)
    names = [code(n) for n in network.names]
    states = [[code(x) for x in st] for st in network.states]
    title = network.name if network.name and _bif_safe(network.name) and _portable(network.name) else "unknown"
    lines = [f"network {title} {{"] + ([f"  property {_ENCODING_PROPERTY} true ;"] if encode else []) + ["}"]
    network = _Renamed(names, states, network)
    for name, st in zip(network.names, network.states):
        lines.append(f"variable {name} {{")
        lines.append(f"  type discrete [ {len(st)} ] {{ {', '.join(st)} }};")
        lines.append("}")
    for v, name in enumerate(network.names):
        ps = network.parents[v]
        arity = len(network.states[v])
        rows = network.cpts[v].reshape(-1, arity)
        if not ps:
            lines.append(f"probability ( {name} ) {{")
            lines.append(f"  table {', '.join(repr(float(x)) for x in rows[0])};")
        else:
            header = ", ".join(network.names[p] for p in ps)
            lines.append(f"probability ( {name} | {header} ) {{")
            cards = tuple(len(network.states[p]) for p in ps)
            for j, row in enumerate(rows):
                config = np.unravel_index(j, cards)
                labels = ", ".join(network.states[p][k] for p, k in zip(ps, config))
                lines.append(f"  ({labels}) {', '.join(repr(float(x)) for x in row)};")
        lines.append("}")
    return "\n".join(lines) + "\n"


class _Renamed:
    """A network's structure and CPTs under other names and labels (for writing)."""

    def __init__(self, names, states, network):
        self.names, self.states = names, states
        self.parents, self.cpts = network.parents, network.cpts


def write_bif(network, path):
    """Write a network as BIF text (gzip-compressed if ``path`` ends in ``.gz``).

    Probabilities are printed with ``repr`` precision, so reading the file
    back with :func:`~mtbn.networks.read_bif` gives the same network exactly. pgmpy's
    ``BIFReader`` reads the file too (except that it splits a root variable
    name that contains a space).

    Names or labels that BIF cannot hold are percent-encoded (see
    :func:`_bif_text`); :func:`~mtbn.networks.read_bif` restores them.

    Parameters
    ----------
    network : BayesianNetwork
        The network to write: its variables in order, their states, parents and CPTs.
    path : str or path-like
        The file to write (replaced if it exists); a name ending in ``.gz`` gets gzip-compressed text, the same
        bytes for the same network.
    """
    text = _bif_text(network).encode("utf-8")
    path = os.fspath(path)
    if path.endswith(".gz"):
        # mtime=0 and no embedded file name: the same network gives the same bytes.
        with open(path, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
                fh.write(text)
    else:
        with open(path, "wb") as fh:
            fh.write(text)
