"""The container of one task's data: :class:`DiscreteData`, and the rules its state labels follow.

A :class:`DiscreteData` holds ``uint8`` codes in column-major order, the
variable names, one list of state labels (strings) per variable and, per
variable, the kind of value the labels came from. Assumed and not checked:
every code is smaller than its variable's number of states (the builders in
:mod:`mtbn.data.frames` and :mod:`mtbn.data.taskset` guarantee it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mtbn.exceptions import InvalidDataError
from mtbn.messages import error, register

__all__ = ["DiscreteData", "MAX_STATES", "MAX_CPT_SIZE", "MAX_LEARNED_CPT_SIZE"]

#: Largest number of states a variable may have (codes are stored as uint8).
MAX_STATES = 255

#: Largest number of entries of a conditional probability table mtbn builds or reads (a variable's states times
#: its parents' configurations): 10^8 float64 entries are 800 MB.
MAX_CPT_SIZE = 10**8

#: Largest CPT a structure search may give a variable (8 MB of float64): a parent set past it is never
#: proposed, so every learned network can be fitted and written, and the networks of k tasks over n variables
#: hold at most ``k * n * MAX_LEARNED_CPT_SIZE`` entries. From a few hundred rows BDeu can otherwise pick
#: families of 20 or more parents (2^26 entries on WIN95PTS at 50 rows: 512 MB per table).
MAX_LEARNED_CPT_SIZE = 10**6

D = InvalidDataError
register("codes-shape", D, "task {task!r}: codes must have one column per variable ({n_names}); got shape {shape}.",
         cause="A DiscreteData was built from a code array whose width differs from the number of names.",
         fix="Pass one column of codes per variable name.")
register("states-per-variable", D, "task {task!r}: one state list per variable is required.",
         cause="A DiscreteData was built with a different number of state lists than variables.",
         fix="Pass one list of state labels per variable.")
register("unknown-variable", D, "task {task!r} has no variable {name!r}.",
         cause="A variable name was looked up in a task that does not have it.",
         fix="Check the spelling against the task's column names.")
register("unknown-state", D, "task {task!r}, column {column!r}: unknown state {state!r} (allowed: {allowed}).",
         cause="A task holds a state label missing from the state list it is recoded onto.",
         fix="Add the state to the declared states, or correct the label in the data.")


@dataclass(frozen=True, eq=False)
class DiscreteData:
    """Integer-coded discrete data of one task.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_vars), dtype uint8
        ``codes[s, v]`` is the index of sample ``s``'s state in ``states[v]``.
    names : tuple of str
        Variable names, one per column.
    states : tuple of tuple of str
        The state labels of each variable; the arity of variable ``v`` is
        ``len(states[v])`` (declared states never observed still count).
    name : str
        The task name.
    kinds : tuple, optional
        Per variable, the Python type its labels came from: ``"int"``,
        ``"float"``, ``"bool"`` or None (strings). Labels are always
        strings inside mtbn; the kind turns them back into the user's values
        at the boundaries (pgmpy models get ``1`` or ``True`` as state names).

    Examples
    --------
    Three days of two variables; ``codes`` index into each variable's state
    labels:

    >>> import numpy as np
    >>> d = DiscreteData(np.array([[0, 1], [1, 1], [1, 0]]), ("rain", "wet"), (("no", "yes"), ("dry", "wet")),
    ...                  name="week")
    >>> d.n_samples, d.n_vars, d.arities.tolist(), d.index("wet")
    (3, 2, [2, 2], 1)
    >>> d.to_dataframe().values.tolist()
    [['no', 'wet'], ['yes', 'wet'], ['yes', 'dry']]

    A subset of the rows keeps the names and the state lists:

    >>> d.take([0, 2]).to_dataframe()["rain"].tolist()
    ['no', 'yes']
    """

    codes: np.ndarray
    names: tuple
    states: tuple
    name: str = "data"
    kinds: "tuple | None" = None
    _index: dict = field(init=False, repr=False, compare=False)

    def __sizeof__(self):
        # The codes dominate; a Dask engine scatters data this size once (mtbn.engine).
        return object.__sizeof__(self) + self.codes.nbytes

    def __post_init__(self):
        codes = np.asfortranarray(self.codes, dtype=np.uint8)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "names", tuple(str(n) for n in self.names))
        object.__setattr__(self, "states", tuple(tuple(str(s) for s in st) for st in self.states))
        if codes.ndim != 2 or codes.shape[1] != len(self.names):
            raise error("codes-shape", task=self.name, n_names=len(self.names), shape=codes.shape)
        if len(self.states) != len(self.names):
            raise error("states-per-variable", task=self.name)
        object.__setattr__(self, "_index", {n: i for i, n in enumerate(self.names)})

    @property
    def n_samples(self):
        """Number of rows."""
        return self.codes.shape[0]

    @property
    def n_vars(self):
        """Number of variables."""
        return self.codes.shape[1]

    @property
    def arities(self):
        """Number of states of each variable, as an int64 array."""
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def index(self, name):
        """Column index of variable ``name``.

        Parameters
        ----------
        name : str
            A variable name (case-sensitive).

        Returns
        -------
        int
            The position of ``name`` in :attr:`names`.

        Raises
        ------
        InvalidDataError
            The task has no variable ``name``.
        """
        try:
            return self._index[name]
        except KeyError:
            raise error("unknown-variable", task=self.name, name=name) from None

    def take(self, rows):
        """A new DiscreteData with only ``rows`` (indices or a boolean mask).

        Parameters
        ----------
        rows : array_like of int or bool, or slice
            The rows to keep, as numpy indexes the first axis of :attr:`codes`: indices (repeats allowed, in
            the order given), a boolean mask of length :attr:`n_samples`, or a slice.

        Returns
        -------
        DiscreteData
            The selected rows with the same names, state lists, task name and kinds.
        """
        return DiscreteData(self.codes[rows], self.names, self.states, self.name, self.kinds)

    def fingerprint(self):
        """A digest of the rows as labelled values (16 hex digits), to tell whether two data sets are the same.

        The same rows give the same digest in any row or column order and
        whatever state lists they are coded on (a task read alone, or aligned
        with others); any changed cell, row or column name changes it. A run
        folder records it, and ``--from`` refuses other data.

        Returns
        -------
        str
            The first 16 hexadecimal digits of a SHA-256 digest of the column names, the labels each column
            uses and the sorted rows of labels.

        Examples
        --------
        >>> a = DiscreteData(np.array([[0, 1], [1, 0]]), ("x", "y"), (("u", "v"), ("u", "v")))
        >>> b = DiscreteData(np.array([[0, 0], [2, 1]]), ("y", "x"), (("u", "w", "v"), ("v", "u", "w")))
        >>> a.fingerprint() == b.fingerprint(), a.fingerprint() == a.take([0, 0]).fingerprint()
        (True, False)
        """
        import hashlib
        import json

        digest = hashlib.sha256()
        ranks = []
        for v in sorted(range(self.n_vars), key=lambda j: self.names[j]):
            used = np.unique(self.codes[:, v])
            labels = [self.states[v][c] for c in used]
            order = sorted(range(len(used)), key=lambda i: labels[i])
            rank = np.zeros(len(self.states[v]), dtype=np.min_scalar_type(max(len(used) - 1, 0)))  # one byte, mostly
            rank[used[order]] = np.arange(len(used))
            ranks.append(rank[self.codes[:, v]])
            digest.update(json.dumps([self.names[v], sorted(labels)]).encode("utf-8", "surrogatepass"))
        # The sorted rows' bytes as 8-byte integers (the digest's definition), made a block of rows at a time:
        # the same bytes in the same order as the whole table's, without a table of 8 bytes per cell.
        order = np.lexsort(ranks[::-1]) if ranks else None
        for start in range(0, self.n_samples if ranks else 0, _FINGERPRINT_ROWS):
            rows = order[start:start + _FINGERPRINT_ROWS]
            digest.update(np.column_stack([r[rows] for r in ranks]).astype(np.int64).tobytes())
        return digest.hexdigest()[:16]

    def with_states(self, states):
        """Recode onto larger state lists (``states[v]`` must contain the old ones).

        Parameters
        ----------
        states : sequence of sequence of str
            The new state list of each variable, in the order of :attr:`names`; each must contain every label
            of the variable's current list, in any order.

        Returns
        -------
        DiscreteData
            The same rows coded on ``states``, with the same names, task name and kinds.

        Raises
        ------
        InvalidDataError
            A current label of some variable is missing from its new state list.
        """
        codes = np.empty_like(self.codes)
        for v, (old, new) in enumerate(zip(self.states, states)):
            pos = {s: k for k, s in enumerate(new)}
            try:
                lut = np.array([pos[s] for s in old], dtype=np.uint8)
            except KeyError as exc:
                raise error("unknown-state", task=self.name, column=self.names[v], state=exc.args[0],
                            allowed=", ".join(map(repr, new))) from None
            codes[:, v] = lut[self.codes[:, v]] if len(old) else 0
        return DiscreteData(codes, self.names, tuple(tuple(s) for s in states), self.name, self.kinds)

    def to_dataframe(self):
        """The data as a pandas DataFrame of state labels (strings).

        Returns
        -------
        pandas.DataFrame
            One column per variable (named as in :attr:`names`, in that order), one row per sample, each cell
            the label (str) of the sample's state.
        """
        import pandas as pd

        cols = {}
        for v, name in enumerate(self.names):
            labels = np.array(self.states[v], dtype=object)
            cols[name] = labels[self.codes[:, v]] if len(labels) else []
        return pd.DataFrame(cols, columns=list(self.names))



#: Rows of the table :meth:`DiscreteData.fingerprint` digests at a time.
_FINGERPRINT_ROWS = 2**16


def _ordered_states(labels, kind):
    """Observed labels in the order of their values: numbers numerically, False before True, text sorted.

    Text labels that all read as numbers (a CSV column ``1, 2, 10``) are
    ordered by value, ties by text, so the CLI's states come in the order
    pandas gives an integer column: ``1, 2, 10``, not ``1, 10, 2``.

    >>> _ordered_states(["10", "2", "1"], "str"), _ordered_states(["b", "10", "a"], "str")
    (['1', '2', '10'], ['10', 'a', 'b'])
    """
    if kind in ("int", "float"):
        return sorted(labels, key=float)
    if kind == "bool":
        return sorted(labels, key=lambda s: s == "True")
    values = [_number(s) for s in labels]
    if labels and all(v is not None for v in values):
        return [s for _, s in sorted(zip(values, labels))]
    return sorted(labels)


def _number(label):
    """The finite number a text label reads as, else None."""
    try:
        v = float(label)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _check_unique(items, code, **fields):
    """Raise message ``code`` (with ``value=`` the first repeat) if ``items`` holds an item twice."""
    seen = set()
    for x in items:
        if x in seen:
            raise error(code, value=x, **fields)
        seen.add(x)
