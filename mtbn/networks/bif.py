"""Reading the BIF text format without pgmpy (:func:`read_bif`).

A token cursor (:class:`_Tokens`) and one parsing function per block
(``network`` skipped, ``variable``, ``probability``); :func:`_assemble`
then builds one CPT per variable. Parse errors name the line; a network that
parses but is inconsistent is reported as ``bif-invalid-network``.
The percent-encoding of names and labels that BIF cannot hold is defined
here too (:func:`_bif_encode`, :func:`_bif_decode`): the reader decodes it,
and :mod:`mtbn.networks.bif_write` encodes with it.
"""

from __future__ import annotations


import gzip
import os
import re
from pathlib import Path

import numpy as np

from mtbn.exceptions import CycleError, InvalidDataError, InvalidParameterError
from mtbn.messages import error, register
from mtbn.networks.model import BayesianNetwork, renormalise_rounded

# ---------------------------------------------------------------------------
# BIF reading
# ---------------------------------------------------------------------------

_COMMENT_RE = re.compile(r'("(?:[^"\\]|\\.)*")|/\*.*?\*/|//[^\n]*', re.DOTALL)
_TOKEN_RE = re.compile(
    r'\s+|"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<punct>[{}()\[\],;|])'
    r'|(?P<word>[^\s{}()\[\],;|"]+)|(?P<bad>.)',
    re.DOTALL,
)


register("bif-unterminated-quote", InvalidDataError, "BIF parse error at line {line}: unterminated quoted string.",
         cause="A double quote opens a name or label that is never closed.",
         fix="Close the quoted text with a double quote on the line shown (or remove the stray quote).")
register("bif-unexpected-end", InvalidDataError,
         "BIF parse error at line {line}: unexpected end of text, expected {what}.",
         cause="The text stops in the middle of a declaration, e.g. a block without its closing brace.",
         fix="Complete the declaration at the end of the file (the file may be truncated).")
register("bif-expected-punct", InvalidDataError, "BIF parse error at line {line}: expected {char!r}, found {value!r}.",
         cause="A bracket, brace or semicolon that the BIF grammar needs at this point is missing.",
         fix="Insert the character shown at the line shown, or fix the token found there.")
register("bif-expected-word", InvalidDataError, "BIF parse error at line {line}: expected {what}, found {value!r}.",
         cause="A punctuation character stands where a keyword, name or number is needed.",
         fix="Put the item named at the line shown.")
register("bif-list-punct", InvalidDataError, "BIF parse error at line {line}: unexpected {value!r} in a list.",
         cause="A list of states, parents or parent states holds a bracket, brace, semicolon or '|'.",
         fix="Separate list items by commas or spaces only, and quote names that contain punctuation.")
register("bif-empty-item", InvalidDataError, "BIF parse error at line {line}: empty item in a comma-separated list.",
         cause="A list has two commas in a row, or a comma at its start or end.",
         fix="Remove the extra comma, or put the missing item between the commas.")
register("bif-variable-name-punct", InvalidDataError,
         "BIF parse error at line {line}: unexpected punctuation in a variable name.",
         cause="The name after 'variable' contains a bracket, comma, semicolon or '|'.",
         fix="Put the name in double quotes, or remove the punctuation from it.")
register("bif-variable-no-name", InvalidDataError, "BIF parse error at line {line}: a variable without a name.",
         cause="A 'variable' keyword is directly followed by its '{' block.",
         fix="Write the variable's name between 'variable' and '{'.")
register("bif-variable-type", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} has type {kind!r}; only discrete is supported.",
         cause="A variable is declared with a type other than 'discrete' (e.g. continuous).",
         fix="Discretise the variable and declare it 'type discrete [ N ] { states };'.")
register("bif-state-count", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r}: bad number of states {count!r}.",
         cause="The count in 'type discrete [ N ]' is not a whole number.",
         fix="Write the number of states as digits, e.g. '[ 3 ]'.")
register("bif-state-count-mismatch", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} declares {count} states but lists {n_listed}.",
         cause="The count in 'type discrete [ N ]' differs from the number of state labels listed.",
         fix="Make the count equal to the number of labels, or list the missing labels.")
register("bif-variable-no-type", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} has no 'type discrete' declaration.",
         cause="A variable block does not declare its states.",
         fix="Add 'type discrete [ N ] { s1, s2, ... };' to the variable's block.")
register("bif-numbers-end", InvalidDataError, "BIF parse error at line {line}: unexpected end of text in {what}.",
         cause="The text stops in the middle of a list of probabilities.",
         fix="Complete the probabilities and close the block (the file may be truncated).")
register("bif-probability-expected", InvalidDataError,
         "BIF parse error at line {line}: expected a probability in {what}, found {value!r}.",
         cause="A table, default or row entry starts with something that is not a number.",
         fix="Write the probabilities as numbers separated by commas, ended by ';'.")
register("bif-no-probabilities", InvalidDataError, "BIF parse error at line {line}: no probabilities in {what}.",
         cause="A table, default or row entry has no numbers.",
         fix="Give the entry one probability per state of the variable (per parent configuration for a table).")
register("bif-header-bars", InvalidDataError,
         "BIF parse error at line {line}: more than one '|' in a probability header.",
         cause="The header 'probability ( child | parents )' has a second '|'.",
         fix="Write one '|' between the child and its comma-separated parents.")
register("bif-block-no-variable", InvalidDataError,
         "BIF parse error at line {line}: a probability block without a variable.",
         cause="A 'probability ( )' header names no child variable.",
         fix="Write the child's name first in the header, e.g. 'probability ( child | parent )'.")
register("bif-block-punct", InvalidDataError,
         "BIF parse error at line {line}: unexpected {value!r} in the probability block of {child!r}.",
         cause="A probability block holds punctuation where a 'table', 'default' or '(' row is expected.",
         fix="Remove the stray character; rows read '(parent states) p1, p2;'.")
register("bif-undeclared-variable", InvalidDataError,
         "BIF parse error at line {line}: probability block refers to undeclared variable {name!r}.",
         cause="A probability header names a child or parent with no 'variable' declaration (even ignoring case).",
         fix="Declare the variable, or fix the spelling of the name in the header.")
register("bif-table-size", InvalidDataError,
         "BIF parse error at line {line}: the table of {child!r} has {n_values} values; expected {expected}.",
         cause="A 'table' entry does not have one value per combination of the child's and its parents' states.",
         fix="Give the number of values shown (child state varying slowest, then the parents in header order).")
register("bif-row-size", InvalidDataError,
         "BIF parse error at line {line}: a row of {child!r} has {n_values} values; expected {arity}.",
         cause="A row or 'default' entry does not have one probability per state of the child.",
         fix="Give one probability per state of the child, in the order of its declared states.")
register("bif-row-parent-count", InvalidDataError,
         "BIF parse error at line {line}: a row of {child!r} names {n_labels} parent states; expected {n_parents}.",
         cause="The '(...)' of a row lists more or fewer parent states than the header has parents.",
         fix="List one state per parent, in the order of the header.")
register("bif-row-unknown-state", InvalidDataError,
         "BIF parse error at line {line}: a row of {child!r} has unknown state {label!r} of parent {parent!r}.",
         cause="A row names a parent state that is not among that parent's declared states.",
         fix="Use the parent's state labels exactly as declared (case-sensitive).")
register("bif-row-twice", InvalidDataError,
         "BIF parse error at line {line}: {child!r} has two rows for parent states {labels}.",
         cause="Two rows of a probability block are for the same parent configuration.",
         fix="Keep one row per parent configuration.")
register("bif-row-missing", InvalidDataError,
         "BIF parse error at line {line}: {child!r} has no probabilities for parent states {labels}.",
         cause="A probability block has no row, table or default for the parent configuration shown.",
         fix="Add a row for that configuration, or a 'default' row for all configurations not listed.")
register("bif-variable-twice", InvalidDataError, "BIF parse error at line {line}: variable {name!r} is declared twice.",
         cause="Two 'variable' blocks have the same name.",
         fix="Remove or rename one of the two declarations.")
register("bif-unexpected-keyword", InvalidDataError, "BIF parse error at line {line}: unexpected {keyword!r}.",
         cause="A statement starts with a word other than 'network', 'variable' or 'probability'.",
         fix="Remove the statement or fix the keyword; check for a missing '}' or ';' before it.")
register("bif-no-variables", InvalidDataError, "BIF parse error at line {line}: no variables declared.",
         cause="The text has no 'variable' block (it may be empty or not BIF at all).",
         fix="Check that the file is a BIF network and declares its variables.")
register("bif-blocks-twice", InvalidDataError,
         "BIF parse error at line {line}: variable {child!r} has more than one probability block.",
         cause="Two probability blocks are for the same variable (names compared ignoring case when not exact).",
         fix="Keep one probability block per variable.")
register("bif-no-block", InvalidDataError,
         "BIF parse error at line {line}: variable {name!r} has no probability block.",
         cause="A declared variable has no 'probability' block giving its table.",
         fix="Add a probability block for the variable, or remove its declaration.")


class _Tokens:
    """A cursor over BIF tokens ``(text, is_punct, offset)``."""

    def __init__(self, text):
        self.text = text
        self.items = []
        for m in _TOKEN_RE.finditer(text):
            kind = m.lastgroup
            if kind is None:
                continue
            if kind == "bad":
                self.fail("bif-unterminated-quote", m.start())
            value = m.group(kind)
            self.items.append((value, kind == "punct", m.start()))
        self.pos = 0

    def fail(self, code, offset=None, **fields):
        """Raise the registered BIF parse error ``code`` at ``offset`` (default: the current token)."""
        if offset is None:
            offset = self.items[self.pos][2] if self.pos < len(self.items) else len(self.text)
        line = self.text.count("\n", 0, offset) + 1
        raise error(code, line=line, **fields)

    def done(self):
        return self.pos >= len(self.items)

    def peek(self):
        return None if self.done() else self.items[self.pos]

    def next(self, what="a token"):
        if self.done():
            self.fail("bif-unexpected-end", what=what)
        item = self.items[self.pos]
        self.pos += 1
        return item

    def is_punct(self, char):
        item = self.peek()
        return item is not None and item[1] and item[0] == char

    def expect(self, char):
        value, punct, _ = self.next(repr(char))
        if not (punct and value == char):
            self.pos -= 1
            self.fail("bif-expected-punct", char=char, value=value)

    def word(self, what):
        value, punct, _ = self.next(what)
        if punct:
            self.pos -= 1
            self.fail("bif-expected-word", what=what, value=value)
        return value

    def until(self, closing):
        """Tokens up to (and consuming) the punctuation ``closing``."""
        out = []
        while True:
            item = self.next(repr(closing))
            if item[1] and item[0] == closing:
                return out
            out.append(item)

    def skip_statement(self):
        """Skip to just after the next ';' (or before a '}' closing the block)."""
        while not self.done() and not self.is_punct("}"):
            value, punct, _ = self.next()
            if punct and value == ";":
                return

    def skip_block(self):
        """Skip a balanced ``{ ... }`` block (the '{' not yet consumed)."""
        self.expect("{")
        depth = 1
        while depth:
            value, punct, _ = self.next("'}'")
            if punct and value == "{":
                depth += 1
            elif punct and value == "}":
                depth -= 1


def _split_items(tokens, tok, expected=None, commas_only=False):
    """Items of a list: comma-separated (words joined by one space) or one per word.

    Without commas, the words are one item each, unless ``commas_only`` or
    exactly one item is ``expected`` (then the words form one item).
    """
    for value, punct, offset in tokens:
        if punct and value != ",":
            tok.fail("bif-list-punct", offset, value=value)
    words = [value for value, punct, _ in tokens if not punct]
    if len(words) == len(tokens):
        if words and (commas_only or (expected == 1 and len(words) > 1)):
            return [" ".join(words)]
        return words
    items, current = [], []
    for value, punct, _ in tokens:
        if punct:
            items.append(" ".join(current))
            current = []
        else:
            current.append(value)
    items.append(" ".join(current))
    if any(not item for item in items):
        tok.fail("bif-empty-item", tokens[0][2])
    return items


def _parse_variable(tok):
    """``variable NAME { type discrete [ N ] { s1, s2 }; property ...; }``."""
    head = tok.until("{")
    if any(punct for _, punct, _ in head):
        tok.fail("bif-variable-name-punct", head[0][2])
    name = " ".join(v for v, _, _ in head)
    if not name:
        tok.fail("bif-variable-no-name")
    states = None
    while not tok.is_punct("}"):
        value, punct, _ = tok.next("'}'")
        if punct and value == ";":
            continue
        if not punct and value == "type":
            kind = tok.word("a variable type")
            if kind.lower() != "discrete":
                tok.fail("bif-variable-type", name=name, kind=kind)
            tok.expect("[")
            count = tok.word("the number of states")
            tok.expect("]")
            tok.expect("{")
            inner = tok.until("}")
            if tok.is_punct(";"):
                tok.next()
            if not count.isdigit():
                tok.fail("bif-state-count", name=name, count=count)
            states = _split_items(inner, tok, expected=int(count))
            if len(states) != int(count):
                tok.fail("bif-state-count-mismatch", name=name, count=count, n_listed=len(states))
        else:
            tok.skip_statement()  # property or unknown statement
    tok.expect("}")
    if states is None:
        tok.fail("bif-variable-no-type", name=name)
    return name, states


def _parse_numbers(tok, what):
    """Numbers separated by commas/whitespace, ended by ';' (or by the next row)."""
    values = []
    while True:
        item = tok.peek()
        if item is None:
            tok.fail("bif-numbers-end", what=what)
        value, punct, _ = item
        if punct:
            if value == ",":
                tok.pos += 1
                continue
            if value == ";":
                tok.pos += 1
            break
        try:
            number = float(value)
        except ValueError:
            if not values:
                tok.fail("bif-probability-expected", what=what, value=value)
            break
        values.append(number)
        tok.pos += 1
    if not values:
        tok.fail("bif-no-probabilities", what=what)
    return values


def _parse_probability(tok, declared):
    """``probability ( CHILD | P1, P2 ) { rows }`` -> (child, parents, entries)."""
    tok.expect("(")
    header = tok.until(")")
    bars = [i for i, (v, p, _) in enumerate(header) if p and v == "|"]
    if len(bars) > 1:
        tok.fail("bif-header-bars", header[bars[1]][2])
    if bars:
        child = " ".join(v for v, p, _ in header[: bars[0]] if not p)
        parents = _split_items(header[bars[0] + 1:], tok, commas_only=True)
    else:
        # Old style "( CHILD P1 P2 )"; a declared multi-word name is one variable.
        joined = " ".join(v for v, p, _ in header if not p)
        items = [joined] if joined in declared else _split_items(header, tok)
        child, parents = items[0] if items else "", items[1:]
    if not child:
        tok.fail("bif-block-no-variable")
    tok.expect("{")
    entries = []  # (kind, labels, values, offset)
    while not tok.is_punct("}"):
        value, punct, offset = tok.next("'}'")
        if punct and value == ";":
            continue
        if punct and value == "(":
            labels = _split_items(tok.until(")"), tok, expected=len(parents))
            entries.append(("row", labels, _parse_numbers(tok, f"a row of {child!r}"), offset))
        elif not punct and value in ("table", "default"):
            entries.append((value, None, _parse_numbers(tok, f"the {value} of {child!r}"), offset))
        elif not punct:
            tok.skip_statement()  # property or unknown statement
        else:
            tok.fail("bif-block-punct", offset, value=value, child=child)
    tok.expect("}")
    return child, parents, entries


def _resolve_name(name, declared, lower, tok):
    """The declared variable called ``name`` (exactly, or else ignoring case)."""
    if name in declared:
        return name
    match = lower.get(name.lower())
    if match is None:
        tok.fail("bif-undeclared-variable", name=name)
    return match


def _build_cpt(child, parents, entries, states, tok):
    """Assemble one CPT of shape (*parent arities, arity) from parsed entries."""
    arity = len(states[child])
    cards = tuple(len(states[p]) for p in parents)
    q = int(np.prod(cards, dtype=np.int64)) if cards else 1
    cpt = np.full((q, arity), np.nan)
    default = None
    filled = np.zeros(q, dtype=bool)
    for kind, labels, values, offset in entries:
        if kind == "table":
            if len(values) != q * arity:
                tok.fail("bif-table-size", offset, child=child, n_values=len(values), expected=q * arity)
            # Child state varies slowest, then the parents in header order.
            cpt[:] = np.asarray(values).reshape(arity, q).T
            filled[:] = True
            continue
        if len(values) != arity:
            tok.fail("bif-row-size", offset, child=child, n_values=len(values), arity=arity)
        if kind == "default":
            default = values
            continue
        if len(labels) != len(parents):
            tok.fail("bif-row-parent-count", offset, child=child, n_labels=len(labels), n_parents=len(parents))
        j = 0
        for p, label in zip(parents, labels):
            try:
                k = states[p].index(label)
            except ValueError:
                tok.fail("bif-row-unknown-state", offset, child=child, label=label, parent=p)
            j = j * len(states[p]) + k
        if filled[j]:
            tok.fail("bif-row-twice", offset, child=child, labels=tuple(labels))
        cpt[j] = values
        filled[j] = True
    if default is not None:
        cpt[~filled] = default
        filled[:] = True
    if not filled.all():
        missing = np.unravel_index(int(np.flatnonzero(~filled)[0]), cards)
        labels = tuple(states[p][k] for p, k in zip(parents, missing))
        tok.fail("bif-row-missing", child=child, labels=labels)
    return cpt.reshape(cards + (arity,))


def _parse_bif(text, source="BIF text"):
    """Parse BIF text into a BayesianNetwork (``source``: the file, named when rounded rows are renormalised)."""
    text = _COMMENT_RE.sub(lambda m: m.group(1) or " ", text)
    tok = _Tokens(text)
    states = {}
    blocks = {}
    encoded = False
    title = None
    while not tok.done():
        if tok.is_punct(";"):
            tok.next()
            continue
        keyword = tok.word("'network', 'variable' or 'probability'")
        if keyword == "network":
            first = tok.peek()
            if first is not None and not first[1] and first[0] != "unknown":
                title = first[0]  # the network's name, as mtbn writes a task's ("unknown": none)
            while not tok.is_punct("{"):
                tok.next("'{'")
            start = tok.pos
            tok.skip_block()
            encoded = encoded or any(v == _ENCODING_PROPERTY for v, _, _ in tok.items[start:tok.pos])
        elif keyword == "variable":
            name, st = _parse_variable(tok)
            if name in states:
                tok.fail("bif-variable-twice", name=name)
            states[name] = st
        elif keyword == "probability":
            blocks_entry = _parse_probability(tok, states)
            blocks.setdefault(blocks_entry[0], []).append(blocks_entry)
        else:
            tok.pos -= 1
            tok.fail("bif-unexpected-keyword", keyword=keyword)
    net = _assemble(states, blocks, tok, source)
    if encoded:
        net = BayesianNetwork([_bif_decode(n) for n in net.names],
                              [[_bif_decode(x) for x in st] for st in net.states], net.parents, net.cpts)
    net.name = title
    return net


def _assemble(states, blocks, tok, source="BIF text"):
    names = list(states)
    if not names:
        tok.fail("bif-no-variables")
    lower = {}
    for n in names:
        lower.setdefault(n.lower(), n)
    resolved = {}
    for raw, found in blocks.items():
        child = _resolve_name(raw, states, lower, tok)
        if child in resolved or len(found) > 1:
            tok.fail("bif-blocks-twice", child=child)
        _, parents, entries = found[0]
        parents = [_resolve_name(p, states, lower, tok) for p in parents]
        resolved[child] = (parents, entries)
    index = {n: i for i, n in enumerate(names)}
    parent_idx, cpts = [], []
    for n in names:
        if n not in resolved:
            tok.fail("bif-no-block", name=n)
        parents, entries = resolved[n]
        parent_idx.append(tuple(index[p] for p in parents))
        cpts.append(_build_cpt(n, parents, entries, states, tok))
    cpts = renormalise_rounded(names, cpts, source)
    try:
        return BayesianNetwork(names, [states[n] for n in names], parent_idx, cpts)
    except CycleError:
        raise
    except InvalidParameterError as exc:
        raise error("bif-invalid-network", detail=exc) from None


register("bif-invalid-network", InvalidDataError, "invalid BIF network: {detail}",
         cause="The BIF text parses, but the network it describes is inconsistent (the detail says how).",
         fix="Correct the declaration or probability block named in the detail.")
register("bif-read", InvalidDataError, "cannot read {path!r}: {reason}.",
         cause="The BIF file named cannot be opened: it does not exist, is a folder, or is not readable.",
         fix="Check the path and the file's permissions.")
register("bif-source-type", InvalidParameterError, "source must be a path or a string of BIF text; got {type_name}.",
         cause="read_bif was given something other than a path, a string or bytes.",
         fix="Pass the path of a .bif or .bif.gz file, or the BIF text itself as a string.")
register("bif-decompress", InvalidDataError, "cannot decompress BIF data: {reason}.",
         cause="The data starts like a gzip file but is truncated or corrupt.",
         fix="Download or copy the .bif.gz file again, or pass the uncompressed .bif file.")


def _read_text(source):
    """BIF text from a path (plain or gzip) or from a string holding the text."""
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, str) and ("{" in source or "\n" in source):
        return source
    elif isinstance(source, (str, os.PathLike)):
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise error("bif-read", path=os.fspath(source), reason=exc.strerror or exc) from None
    else:
        raise error("bif-source-type", type_name=type(source).__name__)
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise error("bif-decompress", reason=exc) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_bif(source) -> BayesianNetwork:
    """Read a network in the BIF format (as used by the bnlearn repository).

    Supports ``table`` rows (roots, and conditional tables with the child
    state varying slowest, then the parents in header order), one row per
    parent configuration ``(s1, s2) p1, p2;`` (parent states in header
    order), a ``default`` row for the configurations not listed, properties
    (ignored), ``//`` and ``/* */`` comments and quoted names.

    Parameters
    ----------
    source : str or path-like
        A path to a ``.bif`` or gzip-compressed ``.bif.gz`` file, or a string
        holding BIF text.

    Returns
    -------
    BayesianNetwork
        Variables in declaration order; each variable's parents in the order
        of its probability header.

    Raises
    ------
    InvalidDataError
        The file cannot be read or is not valid BIF.
    CycleError
        The network has a directed cycle.
    """
    text = _read_text(source)
    where = os.fspath(source) if isinstance(source, os.PathLike) or (isinstance(source, str) and text is not source) \
        else "BIF text"
    return _parse_bif(text, where)


# ---------------------------------------------------------------------------
# Percent-encoded names and labels (written by mtbn.networks.bif_write)
# ---------------------------------------------------------------------------

#: Network property that marks percent-encoded names and labels (see _bif_encode).
_ENCODING_PROPERTY = "mtbn_percent_encoding"
_ENCODE_CHARS = set('{}()[],;|"%/* \t\n\r\f\v')


def _bif_encode(text):
    """A BIF-safe token for ``text``: characters BIF cannot hold (and ``%``) as ``%XX``; ``""`` as ``%%``."""
    if not text:
        return "%%"
    return "".join(f"%{ord(c):02X}" if c in _ENCODE_CHARS else c for c in text)


def _bif_decode(token):
    """The text of a token written by :func:`_bif_encode`."""
    if token == "%%":
        return ""
    return re.sub(r"%([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), token)
