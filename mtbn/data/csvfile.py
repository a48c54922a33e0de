"""Reading one task from a CSV file (:func:`read_csv`).

Cells are read as verbatim strings (``NA``, ``None`` or ``null`` are state
labels; only an empty cell is missing) and coded as
:func:`mtbn.data.frames.from_dataframe` codes a DataFrame of strings. The
header is read first with the standard library, so that an unreadable,
non-UTF-8, empty, wrongly separated or ragged file gets its own message before
pandas parses it. pandas is imported inside the functions only. The rows are
parsed in chunks (vectorised, by pandas): a large file reports its progress (a
stage per file with its size, a bar in bytes on the command line's terminal),
and :func:`read_csv` codes each chunk as it comes
(:class:`mtbn.data.frames.TextColumns`), so that it never holds the file's
strings, only one chunk's and a code per cell.
"""

from __future__ import annotations

import csv
import numbers
import os
import re
import warnings
from typing import Any

from mtbn.data.continuous import label_cells, numbers_of
from mtbn.data.discrete import DiscreteData, _check_unique
from mtbn.data.frames import TextColumns, from_text_columns
from mtbn.exceptions import InvalidDataError, InvalidParameterError
from mtbn.messages import error, register
from mtbn.progress import reporter

__all__ = ["read_csv", "read_csv_frame", "read_csv_head", "read_csv_numbers", "read_csv_columns", "written_whole",
           "CHUNK_ROWS"]

#: Rows parsed at a time by :func:`read_csv` (one progress tick per chunk).
CHUNK_ROWS = 50_000

D = InvalidDataError
register("csv-chunksize", InvalidParameterError, "chunksize must be a whole number of rows >= 1; got {value!r}.",
         cause="read_csv reads a file in chunks of this many rows; zero, a negative or a fractional count is none.",
         fix="Give a positive integer (the default, 50000, suits files of any size).")
register("cannot-read-file", D, "cannot read {path!r}: {reason}.",
         cause="The CSV file does not exist or cannot be opened.",
         fix="Check the path and the file's permissions.")
register("not-utf8", D, "task {task!r}: {path!r} is not UTF-8 text; save it as UTF-8 CSV.",
         cause="The file is in another encoding (e.g. Latin-1 or UTF-16), so its labels cannot be read safely.",
         fix="Save the file as UTF-8 CSV (most spreadsheet programs offer 'CSV UTF-8').")
register("no-header", D, "task {task!r} is empty: {path!r} has no header line.",
         cause="An empty file.",
         fix="Check that the right file was given; the first line must name the variables.")
register("wrong-separator", D,
         "task {task!r}: {path!r} has one column whose header contains {label}; it looks separated by {label} "
         "rather than commas: save it as comma-separated CSV.",
         cause="A semicolon- or tab-separated file read as comma-separated CSV gives one column.",
         fix="Save the file with commas between fields.")
register("ragged-rows", D, "task {task!r}: rows of {path!r} have more fields than the header ({n_columns} columns).",
         cause="Some data row has more fields than the header names (an unquoted comma in a label, or a "
               "missing header name).",
         fix="Quote labels that contain commas, or add the missing header names.")
register("ragged-row", D, "task {task!r}: row {row} of {path!r} has {n_fields} fields, more than the header's "
         "{n_columns} (the header is row 1).",
         cause="A data row has more fields than the header names (an unquoted comma in a label, or a field added "
               "to one row).",
         fix="Quote labels that contain commas, or remove the extra field (rows count the header as row 1, and a "
             "quoted label written over several lines as one row).")
register("empty-column-name", D, "task {task!r}: column {position} of {path!r} has no name in the header line.",
         cause="A header field is empty (or blank), often a trailing comma left by a spreadsheet, which adds a column "
               "without a name.",
         fix="Name the column in the header line, or delete it (with its field in every row).")
register("unclosed-quote", D, "task {task!r}: {path!r} has a quote that is never closed, opened in row {row} (the "
         "header is row 1).",
         cause="A field starts with a double quote and no closing quote follows, so the rest of the file would be "
               "one label.",
         fix="Close the quote in that row (a quote inside a quoted label is written twice: \"\"), or remove it.")
register("csv-parse", D, "task {task!r}: cannot parse {path!r}: {reason}",
         cause="The CSV parser failed (e.g. an unterminated quote or a malformed row).",
         fix="Open the file in a text editor at the line named and repair it.")
register("no-data", D, "task {task!r} is empty: {path!r} has no data.",
         cause="The file has no rows and no header that pandas can read.",
         fix="Check that the right file was given.")


def read_csv(path: Any, *, name: str | None = None, states: Any = None, dropna: bool = False, progress: Any = None,
             chunksize: int = CHUNK_ROWS) -> DiscreteData:
    """Read one task from a CSV file (header = variable names).

    Cells are read as verbatim strings: ``NA``, ``None`` or ``null`` are state
    labels, and only an empty cell is a missing value. The task name is the
    file stem unless ``name`` is given.

    ``progress`` (None, a callable or a :class:`mtbn.progress.Reporter`)
    receives the stage ``"reading FILE: SIZE"`` (ticked in bytes after each
    ``chunksize`` rows) and ``"coding NAME: ROWS rows x COLUMNS columns"``;
    the result does not depend on ``chunksize``.

    Parameters
    ----------
    path : str or path-like
        The CSV file: UTF-8 (a byte-order mark is allowed), comma-separated, with a header line of variable
        names (spaces around them are stripped).
    name : str, optional
        The task name used in messages and results; None takes the file name without its extension.
    states : dict of str to sequence of str, optional
        Declared state lists of some columns, as for :func:`mtbn.data.from_dataframe`: their order is kept,
        declared states never observed still count, and an undeclared label is an error.
    dropna : bool, default False
        Drop the rows with an empty cell (with a :class:`~mtbn.exceptions.DataWarning` saying how many)
        instead of raising.
    progress : None, bool, callable or mtbn.progress.Reporter, optional
        Where the reading and coding stages are reported (see :func:`mtbn.progress.reporter`).
    chunksize : int, default CHUNK_ROWS
        Rows parsed at a time (a positive integer), one progress tick per chunk.

    Returns
    -------
    DiscreteData
        The coded task: one variable per column, its states in value order (numbers numerically, text
        alphabetically) unless declared.

    Raises
    ------
    InvalidDataError
        The file cannot be read or parsed (not UTF-8, no header, not comma-separated, ragged rows), or its
        data cannot be coded (missing values without ``dropna``, duplicate columns, too many states, a
        continuous-looking column, an undeclared state).

    Examples
    --------
    ``NA`` is an ordinary label here, and the task is named after the file:

    >>> import os
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "clinic.csv")
    ...     with open(path, "w", encoding="utf-8") as fh:
    ...         _ = fh.write("smoker,cough,visits\\nyes,NA,1\\nno,no,10\\nyes,yes,2\\n")
    ...     d = read_csv(path)
    >>> d.name, d.names, d.n_samples
    ('clinic', ('smoker', 'cough', 'visits'), 3)
    >>> d.states
    (('no', 'yes'), ('NA', 'no', 'yes'), ('1', '2', '10'))

    An empty cell, by contrast, is missing: the row must be dropped
    explicitly (or the cell filled in first):

    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "clinic.csv")
    ...     with open(path, "w", encoding="utf-8") as fh:
    ...         _ = fh.write("smoker,cough\\nyes,\\nno,no\\n")
    ...     try:
    ...         read_csv(path)
    ...     except InvalidDataError as e:
    ...         print(str(e).split(",")[0])
    ...     print(read_csv(path, dropna=True).n_samples)
    task 'clinic': 1 missing value(s) in column(s) 'cough' (1)
    1
    """
    path = os.fspath(path)
    if name is None:
        name = os.path.splitext(os.path.basename(path))[0]
    columns = TextColumns()
    names = _read_chunks(path, name, progress, chunksize, columns.add)
    reporter(progress)(f"coding {name}: {columns.n_rows} rows x {len(names)} columns")
    return from_text_columns(columns, names, name=name, states=states, dropna=dropna, source=path)


def read_csv_head(path: Any, n_rows: int = CHUNK_ROWS):
    """The header names (stripped) and first ``n_rows`` rows of a CSV file as verbatim strings, or None when
    pandas cannot read them: a cheap first look (e.g. which kind of data a file holds), not a check.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    n_rows : int, default CHUNK_ROWS
        Rows read at most.

    Returns
    -------
    pandas.DataFrame or None
    """
    import pandas as pd

    try:
        head = pd.read_csv(path, nrows=n_rows, dtype=str, keep_default_na=False, index_col=False,
                           encoding="utf-8-sig")
    except (ValueError, OSError, pd.errors.ParserError):  # (UnicodeDecodeError and EmptyDataError among them)
        return None
    head.columns = [str(c).strip() for c in head.columns]
    return head


def read_csv_frame(path: Any, *, name: str | None = None, progress: Any = None, chunksize: int = CHUNK_ROWS):
    """The cells of a CSV file as a DataFrame of verbatim strings (header names stripped), checked as
    :func:`read_csv` checks them, before any coding (e.g. to discretise columns first).

    Parameters
    ----------
    path : str or path-like
        The CSV file (UTF-8, comma-separated, with a header line of variable names).
    name : str, optional
        The task name used in messages; None takes the file name without its extension.
    progress : None, bool, callable or mtbn.progress.Reporter, optional
        Where the stage ``"reading FILE: SIZE"`` is reported, ticked in bytes (see
        :func:`mtbn.progress.reporter`).
    chunksize : int, default CHUNK_ROWS
        Rows parsed at a time (a positive integer); the result does not depend on it.

    Returns
    -------
    pandas.DataFrame
        One column per header name, one row per data line, every cell a string (an empty cell is ``""``).

    Raises
    ------
    InvalidDataError
        The file cannot be opened, is not UTF-8, has no header or no data, looks separated by semicolons or
        tabs, repeats a column name, has rows longer than the header, or cannot be parsed.
    """
    import pandas as pd

    path = os.fspath(path)
    if name is None:
        name = os.path.splitext(os.path.basename(path))[0]
    chunks: list = []
    names = _read_chunks(path, name, progress, chunksize, chunks.append)
    df = chunks[0] if len(chunks) == 1 else pd.concat(chunks, ignore_index=True)
    df.columns = names
    return df


class _TextLost(Exception):
    """:func:`read_csv_columns` dropped the text of a column that turns out to hold a label."""


def read_csv_columns(path: Any, *, name: str | None = None, progress: Any = None, chunksize: int = CHUNK_ROWS,
                     text: Any = ()):
    """The cells of a CSV file as :func:`read_csv_frame` gives them, but for a column of numbers with more
    distinct labels than a variable may have states: its numbers, as a discretisation reads them.

    A column every cell of which is empty or a finite number (:func:`pandas.to_numeric`) and that has more than
    :data:`~mtbn.data.MAX_STATES` distinct labels (a continuous measurement) comes as float64, an empty cell NaN
    and no zero negative: 8 bytes per cell instead of a string's. It cannot be a discrete variable as it is (too
    many states), so its text is needed only to say so: should such a column not be discretised, or a label
    come after its text was dropped, the caller (or this function) reads the file as text again. Every other
    column comes as :func:`read_csv_frame`'s strings (one string per distinct label, shared by its cells).

    Parameters
    ----------
    path : str or path-like
        The CSV file, as :func:`read_csv_frame` takes it.
    name : str, optional
        The task's name in messages (None: the file's name without its extension).
    progress : None, bool, callable or mtbn.progress.Reporter, optional
        Sees the stage ``"reading FILE: SIZE"`` in bytes.
    chunksize : int, default CHUNK_ROWS
        Rows parsed at a time; the result is the same for every positive integer.
    text : collection of str, default ()
        Columns that come as text whatever they hold (e.g. the column that names each row's task).

    Returns
    -------
    pandas.DataFrame
        One column per header name: object (str) or float64.

    Raises
    ------
    InvalidDataError
        As :func:`read_csv_frame`.
    """
    import numpy as np
    import pandas as pd

    from mtbn.data.discrete import MAX_STATES
    from mtbn.data.frames import _distinct

    path = os.fspath(path)
    name = os.path.splitext(os.path.basename(path))[0] if name is None else name
    seen: list = []  # per column: label -> code, or None once dropped
    codes: list = []  # per column: the chunks' codes
    numbers: list = []  # per column: the chunks' floats, or None once a cell is not a number

    def take(chunk):
        if not seen:
            seen.extend({} for _ in range(chunk.shape[1]))
            codes.extend([] for _ in range(chunk.shape[1]))
            numbers.extend(None if str(c).strip() in text else [] for c in chunk.columns)
        for j in range(chunk.shape[1]):
            values = chunk.iloc[:, j].to_numpy(dtype=object)
            if seen[j] is None:  # numbers only (its text dropped): each cell's
                value = _finite_or_empty(values)
                if value is None:
                    raise _TextLost
                numbers[j].append(value)
                continue
            uniques, at = _distinct(values)
            if numbers[j] is not None:
                value = _finite_or_empty(np.array(uniques, dtype=object))
                if value is None:
                    numbers[j] = None
                else:
                    numbers[j].append(value[at])
            lut = np.array([seen[j].setdefault(u, len(seen[j])) for u in uniques], dtype=np.int64)
            codes[j].append(lut.astype(np.min_scalar_type(len(seen[j]) - 1))[at])
            if len(seen[j]) > MAX_STATES and numbers[j] is not None:
                seen[j] = codes[j] = None

    try:
        names = _read_chunks(path, name, progress, chunksize, take)
    except _TextLost:
        return read_csv_frame(path, name=name, progress=progress, chunksize=chunksize)
    columns = {}
    for j, column in enumerate(names):
        if seen and seen[j] is None:
            columns[column] = np.concatenate(numbers[j])
        else:
            texts = np.array(list(seen[j]) if seen else [], dtype=object)
            columns[column] = texts[np.concatenate(codes[j])] if seen and codes[j] else np.array([], dtype=object)
        if seen:
            numbers[j] = codes[j] = None
    return pd.DataFrame(columns, columns=names)


def _finite_or_empty(texts):
    """The numbers of an object array of str (NaN where empty, no negative zero), or None if a text that is not
    empty is not a finite number (:func:`pandas.to_numeric`)."""
    import numpy as np
    import pandas as pd

    value = pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=float) + 0.0
    finite = np.isfinite(value)
    if not finite.all() and not np.all(finite | (texts == "")):
        return None
    return value


class _Found(Exception):
    """Stops :func:`read_csv_numbers`'s parse at the first chunk that holds a label."""


def read_csv_numbers(path: Any, *, name: str | None = None, progress: Any = None, chunksize: int = CHUNK_ROWS):
    """The cells of a CSV file as numbers (one float64 column per header name; an empty cell, missing, NaN), or
    None when some cell is a label (neither a number nor empty): the parse stops at the first chunk of rows that
    holds one.

    The command line reads each task so before it asks the kinds of data that take numbers only
    (:attr:`mtbn.learn.kinds.DataKind.numbers_only`): a file of numbers is held as 8 bytes per cell, never as
    text, and a file of labels is left to the discrete reader after its first chunk with one (column by column:
    a file of labels stops at its first column). A file of plain decimal numbers (no byte but digits, point,
    signs, exponent, commas and blanks after its header) is parsed straight into floats by pandas' C parser;
    any other file cell by cell by :func:`pandas.to_numeric` from its text
    (:func:`mtbn.data.continuous.numbers_of`), which also decides what is a number. The two agree on every
    plain decimal cell, but in the last bit of a few written with a sign and a large exponent (``+5e32``; the
    C parser's is the correctly rounded one); a zero is never negative.

    Parameters
    ----------
    path : str or path-like
        The CSV file (UTF-8, comma-separated, with a header line of variable names).
    name : str, optional
        The task name for messages; None takes the file name without its extension.
    progress : None, bool, callable or mtbn.progress.Reporter, optional
        Where the stage ``"reading FILE: SIZE"`` is reported, ticked in bytes (see :func:`mtbn.progress.reporter`).
    chunksize : int, default CHUNK_ROWS
        Rows parsed at a time (a positive integer); the result does not depend on it.

    Returns
    -------
    pandas.DataFrame or None
        One float64 column per header name (names stripped), one row per data line.

    Raises
    ------
    InvalidDataError
        As :func:`read_csv_frame`, for the part of the file parsed.
    """
    import numpy as np
    import pandas as pd

    path = os.fspath(path)
    name = os.path.splitext(os.path.basename(path))[0] if name is None else name
    rows = _Rows()

    def floats(chunk):  # NaN: an empty field (or a short row's missing one)
        rows.add(chunk.to_numpy(dtype=float) + 0.0)  # + 0.0: no negative zero, as from the text

    def text(chunk):
        block = np.empty(chunk.shape)
        for j in range(chunk.shape[1]):  # column by column: a file of labels stops at its first column
            numbers = numbers_of(chunk.iloc[:, j:j + 1])
            if numbers is None:
                raise _Found
            block[:, j] = numbers[:, 0] + 0.0  # "-0" and "-0.0" alike
        rows.add(block)

    names = None
    lines = _plain_decimal(path)
    if lines is not None:
        rows.reserve(lines)
        try:
            names = _read_chunks(path, name, progress, chunksize, floats, dtype=float, na=("",))
        except _NotFloats:
            rows = _Rows()
    if names is None:
        try:
            names = _read_chunks(path, name, progress, chunksize, text)
        except _Found:
            return None
    return pd.DataFrame(rows.values(len(names)), columns=names, copy=False)


class _Rows:
    """Rows of floats gathered chunk by chunk into one array: reserved up front when the number of rows is
    known to within a few (the pages of rows never written are never touched), else grown by doubling."""

    def __init__(self):
        self._values, self._n = None, 0
        self._capacity = 0

    def reserve(self, n_rows):
        self._capacity = n_rows

    def add(self, block):
        import numpy as np

        if self._values is None or self._n + len(block) > len(self._values):
            grown = np.empty((max(self._capacity, 2 * self._n, self._n + len(block)), block.shape[1]))
            if self._values is not None:
                grown[:self._n] = self._values[:self._n]
            self._values = grown
        self._values[self._n:self._n + len(block)] = block
        self._n += len(block)

    @property
    def n_rows(self):
        return self._n

    def values(self, n_columns):
        import numpy as np

        return np.empty((0, n_columns)) if self._values is None else self._values[:self._n]


def numbers_and_labels(path: Any, *, name: str | None = None, limit: int = 3, chunksize: int = CHUNK_ROWS):
    """A CSV file's cells as numbers with its labels (cells neither a number nor empty) read as missing:
    ``(frame, labels, first)``, or None when it holds more than ``limit`` distinct labels (the parse stops there).

    For telling a file of numbers that marks missing values with a word (``NA``, ``nan``, ``?``) from discrete
    data: a float per cell is held, not the file's text.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    name : str, optional
        The task's name in messages (None: the file's name without its extension).
    limit : int, default 3
        The most distinct labels the file may hold.
    chunksize : int, default CHUNK_ROWS
        Rows parsed at a time.

    Returns
    -------
    tuple or None
        ``frame`` (float64 columns, NaN where a cell is a label or empty), ``labels`` (each label's text: its
        number of cells) and ``first`` (``(column, text, file line)`` of the first label by rows, or None).
    """
    import numpy as np
    import pandas as pd

    path = os.fspath(path)
    name = os.path.splitext(os.path.basename(path))[0] if name is None else name
    rows = _Rows()
    labels: dict[str, int] = {}  # each label's text: its number of cells
    first: list = []

    def take(chunk):
        values = chunk.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)  # NaN: a label or empty
        cells = label_cells(chunk, values)
        if cells.any():
            for text in chunk.to_numpy()[cells].tolist():
                labels[text] = labels.get(text, 0) + 1
            if len(labels) > limit:
                raise _Found
            if not first:
                i, j = np.argwhere(cells)[0]
                first.append((str(chunk.columns[j]).strip(), str(chunk.iat[i, j]), rows.n_rows + int(i) + 2))
        rows.add(values)

    try:
        names = _read_chunks(path, name, None, chunksize, take)
    except _Found:
        return None
    return pd.DataFrame(rows.values(len(names)), columns=names, copy=False), labels, (first or [None])[0]


class _NotFloats(Exception):
    """A cell of a file read by pandas' float parser is not a float (:func:`_read_chunks` with ``dtype=float``)."""


#: The bytes of a file of plain decimal numbers (digits, point, signs, exponent, commas and blanks), which
#: :func:`read_csv_numbers` parses straight into floats; any other byte (a letter of a label, ``inf``,
#: ``nan``, ``True``, a quote) takes the route through the text.
_PLAIN_BYTES = frozenset(b"0123456789.+-eE,\t\r\n ")


def _plain_decimal(path, block=1 << 20):
    """The number of lines after the first (at least, if line ends are not mixed: the line feeds or carriage
    returns, whichever are more, plus one; a chunk past it grows the array) of a file
    whose every byte after its first line is one of :data:`_PLAIN_BYTES`, else None (also for a file that cannot
    be opened: :func:`_read_chunks` reports it)."""
    plain = bytes(sorted(_PLAIN_BYTES))
    lines = 1
    try:
        for buf in _after_header(path, block):
            if buf.translate(None, plain):  # a byte that is not plain is left
                return None
            lines += max(buf.count(b"\n"), buf.count(b"\r"))  # LF, CRLF or CR line ends
    except OSError:
        return None
    return lines


def _after_header(path, block):
    """The bytes of the file ``path`` after its first line, ``block`` at a time (OSError if it cannot be read)."""
    with open(path, "rb") as fh:
        fh.readline()
        while True:
            buf = fh.read(block)
            if not buf:
                return
            yield buf


def written_whole(path, block=1 << 20):
    r"""Whether no byte of the file ``path`` after its first line is a point or an ``e`` (either case): every number
    in it is written as a whole number (integer codes; ``inf``), whatever its labels without an ``e``. False for
    a file that cannot be opened (its reader reports it). The bytes are scanned, not parsed: a file with a
    fraction stops at its first point.

    Parameters
    ----------
    path : str
        The CSV file.
    block : int, default 1 MiB
        Bytes scanned at a time.

    Returns
    -------
    bool

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name, text in [("codes", "x.1,y\n0,1\n2,-1\n"), ("fraction", "x,y\n0,1.5\n"), ("exp", "x\n1e3\n")]:
    ...     with open(os.path.join(folder, name + ".csv"), "w") as fh:
    ...         _ = fh.write(text)
    >>> [written_whole(os.path.join(folder, n + ".csv")) for n in ("codes", "fraction", "exp", "missing")]
    [True, False, False, False]
    """
    try:
        return not any(b"." in buf or b"e" in buf or b"E" in buf for buf in _after_header(path, block))
    except OSError:
        return False


def _read_chunks(path, name, progress, chunksize, take, dtype=str, na=()):
    """Parse the CSV file ``path`` after checking its header, handing each chunk of rows (a DataFrame of
    verbatim strings, or with ``dtype=float`` of pandas' floats, NaN where a cell is one of ``na``) to ``take``;
    returns the column names (stripped). With ``dtype=float`` a cell that is not a float raises
    :class:`_NotFloats`."""
    import pandas as pd

    if isinstance(chunksize, bool) or not isinstance(chunksize, numbers.Integral) or chunksize < 1:
        raise error("csv-chunksize", value=chunksize)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), None)
    except OSError as exc:
        raise error("cannot-read-file", path=path, reason=exc.strerror or exc) from None
    except UnicodeDecodeError:
        raise error("not-utf8", task=name, path=path) from None
    if not header:
        raise error("no-header", task=name, path=path)
    if len(header) == 1:
        for sep, label in ((";", "semicolons"), ("\t", "tabs")):
            if sep in header[0]:
                raise error("wrong-separator", task=name, path=path, label=label)
    blank = next((i for i, h in enumerate(header) if not h.strip()), None)
    if blank is not None:
        raise error("empty-column-name", task=name, path=path, position=blank + 1)
    _check_unique([h.strip() for h in header], "duplicate-column", task=name)
    say, size = reporter(progress), os.path.getsize(path)
    try:
        with say.stage(f"reading {os.path.basename(path)}", size, "B") as tick, open(path, "rb") as fh, \
                warnings.catch_warnings():
            # index_col=False stops pandas from silently turning an extra first
            # field into the index; the warning it gives instead becomes an error.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            done = 0
            for chunk in pd.read_csv(fh, dtype=dtype, keep_default_na=False, na_values=list(na),
                                     skipinitialspace=False, index_col=False, encoding="utf-8-sig",
                                     chunksize=chunksize):
                take(chunk)
                tick(fh.tell() - done)  # pandas reads ahead: the bytes parsed so far, to within its buffer
                done = fh.tell()
            tick(size - done)
    except pd.errors.ParserWarning:
        raise error("ragged-rows", task=name, path=path, n_columns=len(header)) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        unclosed = re.search(r"EOF inside string starting at row (\d+)", str(exc))
        if unclosed:  # pandas counts records from 0, the header's
            raise error("unclosed-quote", task=name, path=path, row=int(unclosed.group(1)) + 1) from None
        ragged = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if ragged:  # here pandas counts records from 1, the header's
            raise error("ragged-row", task=name, path=path, row=int(ragged.group(2)), n_fields=int(ragged.group(3)),
                        n_columns=int(ragged.group(1))) from None
        raise error("csv-parse", task=name, path=path, reason=str(exc).strip()) from None
    except pd.errors.EmptyDataError:
        raise error("no-data", task=name, path=path) from None
    except ValueError:  # pandas' float conversion (its parser's own errors are caught above)
        if dtype is str:
            raise
        raise _NotFloats from None
    return [h.strip() for h in header]

