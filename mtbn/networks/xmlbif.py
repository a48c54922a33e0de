"""Writing XMLBIF 0.3 (:func:`write_xmlbif`), the output that keeps names and state labels exactly.

Written with :mod:`xml.etree.ElementTree`, not pgmpy's ``XMLBIFWriter``,
which rewrites state labels (``<5`` becomes ``_5``). Read back by
:func:`~mtbn.networks.read_network` (through pgmpy's ``XMLBIFReader``).
Assumed and not checked: the network is a valid
:class:`~mtbn.networks.model.BayesianNetwork`.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = ["write_xmlbif", "check_xmlbif_text"]

# Characters XML 1.0 cannot hold, even as character references (its production ``Char``).
_NOT_XML_RE = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

register("xmlbif-text", InvalidParameterError,
         "variable {name!r}: {what} {text!r} cannot be written as XMLBIF: {reason}.",
         cause="XML 1.0 cannot hold control characters other than tab, newline and carriage return (nor U+FFFE, "
               "U+FFFF or lone surrogates), and an empty name or state label reads back as no text.",
         fix="Rename the variable or state without those characters, or write BIF (write_bif), which encodes them.")


def _checked(text, name, what):
    """``text`` if XML can hold it and give it back unchanged, else the ``xmlbif-text`` error."""
    bad = _NOT_XML_RE.search(text)
    if bad or not text:
        reason = f"XML cannot hold the character U+{ord(bad.group()):04X}" if bad else "it is empty"
        raise error("xmlbif-text", name=name, what=what, text=text, reason=reason)
    return text


def check_xmlbif_text(names, states):
    """Raise the ``xmlbif-text`` error :func:`write_xmlbif` would raise for these variable names and their state
    lists, before any work (the command line checks its tasks' columns and labels right after reading them).

    Parameters
    ----------
    names : sequence of str
        The variable names.
    states : sequence of sequence of str
        The state labels of each variable, in the order of ``names``.

    Raises
    ------
    InvalidParameterError
        A name or state label is empty or holds a character XML 1.0 cannot hold.

    Examples
    --------
    >>> check_xmlbif_text(["rain"], [["no", "yes"]])
    >>> check_xmlbif_text(["rain"], [["no", "ye\\x00s"]])
    Traceback (most recent call last):
    ...
    mtbn.exceptions.InvalidParameterError: variable 'rain': state 'ye\\x00s' cannot be written as XMLBIF: XML cannot hold the character U+0000.
    """
    for name, labels in zip(names, states):
        _checked(name, name, "name")
        for state in labels:
            _checked(state, name, "state")


# Whitespace that XML readers may drop or normalise (pyAgrum strips leading and trailing spaces and reads
# raw line breaks loosely) is written as character references. Each goes through a control character that
# _checked refuses in user text, so it cannot clash with it: ElementTree would escape a "&#..;" written directly.
_PLACEHOLDERS = {"\t": "\x01", "\n": "\x02", "\r": "\x03", " ": "\x04"}
_REFERENCES = ((b"\x01", b"&#9;"), (b"\x02", b"&#10;"), (b"\x03", b"&#13;"), (b"\x04", b"&#32;"))


def _protected(text):
    """``text`` with tabs, line breaks and its leading and trailing spaces as placeholders."""
    core = text.strip(" ")
    lead = len(text) - len(text.lstrip(" "))
    trail = len(text) - lead - len(core)
    body = "".join(c if c == " " else _PLACEHOLDERS.get(c, c) for c in core)
    return "\x04" * lead + body + "\x04" * trail


def _xmlbif_bytes(network):
    """The XMLBIF 0.3 document of a network, UTF-8 encoded."""
    root = ET.Element("BIF", VERSION="0.3")
    net = ET.SubElement(root, "NETWORK")
    # The network's name (a learned network: its task's) when XML can hold it; it is a label, never worth failing for.
    named = bool(network.name) and not _NOT_XML_RE.search(network.name)
    ET.SubElement(net, "NAME").text = _protected(network.name) if named else "unknown"
    for name, states in zip(network.names, network.states):
        var = ET.SubElement(net, "VARIABLE", TYPE="nature")
        ET.SubElement(var, "NAME").text = _protected(_checked(name, name, "name"))
        for state in states:
            ET.SubElement(var, "OUTCOME").text = _protected(_checked(state, name, "state"))
    for name, parents, cpt in zip(network.names, network.parents, network.cpts):
        definition = ET.SubElement(net, "DEFINITION")
        ET.SubElement(definition, "FOR").text = _protected(name)
        for p in parents:
            ET.SubElement(definition, "GIVEN").text = _protected(network.names[p])
        # Parent configurations in row-major order (first GIVEN slowest), the child's states fastest.
        ET.SubElement(definition, "TABLE").text = " ".join(map(repr, cpt.ravel().tolist()))
    ET.indent(root)  # whitespace between elements only: no element's text changes
    text = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    for placeholder, reference in _REFERENCES:
        text = text.replace(placeholder, reference)
    return text


def write_xmlbif(network, path):
    """Write a network as XMLBIF 0.3, keeping variable names and state labels exactly.

    XMLBIF is the output to use when other programs must read the names as
    given: pgmpy's ``XMLBIFReader`` returns every name, state label and state
    order unchanged (spaces, commas, brackets, ``%``, ``<``, ``&``, quotes,
    non-ASCII letters). :func:`~mtbn.networks.write_bif` instead writes
    names and labels that BIF cannot hold with the characters
    ``{}()[],;|"%/*`` and whitespace as ``%XX`` (hexadecimal code) and the
    empty label as ``%%``; only :func:`~mtbn.networks.read_bif` decodes them.
    Probabilities are written with ``repr`` precision.

    Parameters
    ----------
    network : BayesianNetwork
        The network to write: its variables in order, their states, parents and CPTs.
    path : str or path-like
        The file to write (replaced if it exists), as UTF-8 XML; nothing is written when a name or label is
        refused.

    Raises
    ------
    InvalidParameterError
        A name or state label is empty or holds a character XML cannot hold
        (a control character other than tab, newline or carriage return).
    """
    data = _xmlbif_bytes(network)
    with open(os.fspath(path), "wb") as fh:
        fh.write(data)
