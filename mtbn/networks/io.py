"""The networks shipped with mtbn, and reading a network file of any supported format."""

from __future__ import annotations

from typing import Any

import os
from pathlib import Path


from mtbn.data.shipped import shipped_bytes
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register
from mtbn.networks.bif import read_bif
from mtbn.networks.convert import from_pgmpy
from mtbn.networks.fitting import sample
from mtbn.networks.model import BayesianNetwork

#: Names accepted by :func:`load_network` for the networks shipped with mtbn.
SHIPPED_NETWORKS = ("alarm", "asia", "insurance", "sachs", "hepar2", "win95pts", "andes")


def _shipped_bytes(name):
    """Bytes of a shipped ``<name>.bif.gz`` (package resources, else the repo's data/)."""
    return shipped_bytes(f"{name}.bif.gz")


register("network-format", InvalidParameterError,
         "cannot tell the network format of {path!r}: give a .bif, .bif.gz, .xml/.xmlbif/.bifxml, .net or .uai file.",
         cause="The file name's extension is not a Bayesian network format mtbn reads.",
         fix="Rename the file with the extension of its format, or convert it to BIF.")
register("network-unknown", InvalidParameterError,
         "unknown network {name!r}: give one of {choices} or the path of a .bif / .bif.gz file.",
         cause="The name is neither a network shipped with mtbn nor the path of an existing file.",
         fix="Use one of the shipped names listed (case-insensitive), or check the file's path.")


def load_network(name: str) -> BayesianNetwork:
    """Load a shipped network by name, or a BIF file by path.

    Parameters
    ----------
    name : str or path-like
        One of :data:`SHIPPED_NETWORKS` (``"alarm"``, ``"asia"``,
        ``"insurance"``, ``"sachs"``, ``"hepar2"``, ``"win95pts"``,
        ``"andes"``; case-insensitive), or a path to a ``.bif`` /
        ``.bif.gz`` file.

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    InvalidParameterError
        ``name`` is neither a shipped network nor an existing file.

    Examples
    --------
    >>> net = load_network("asia")
    >>> net
    BayesianNetwork(n_vars=8, n_edges=8, n_free_parameters=18)
    >>> net.names
    ('asia', 'tub', 'smoke', 'lung', 'bronc', 'either', 'xray', 'dysp')
    >>> net.edges[:3]
    [('asia', 'tub'), ('bronc', 'dysp'), ('either', 'dysp')]

    Names are case-insensitive:

    >>> load_network("SACHS").n_vars
    11
    """
    if isinstance(name, str) and name.lower() in SHIPPED_NETWORKS:
        return read_bif(_shipped_bytes(name.lower()))
    if isinstance(name, (str, os.PathLike)) and Path(name).is_file():
        return read_bif(Path(name))
    raise error("network-unknown", name=name, choices=", ".join(map(repr, SHIPPED_NETWORKS)))


def read_network(path: Any) -> BayesianNetwork:
    """Read a Bayesian network file: BIF here, XMLBIF, NET (Hugin) and UAI through pgmpy's readers.

    The format comes from the extension: ``.bif`` / ``.bif.gz`` (mtbn's own
    parser), ``.xml`` / ``.xmlbif`` / ``.bifxml``, ``.net``, ``.uai`` (pgmpy's
    ``XMLBIFReader``, ``NETReader``, ``UAIReader``, then :func:`from_pgmpy`).

    Parameters
    ----------
    path : str or path-like
        The network file; its extension (case-insensitive) names the format.

    Returns
    -------
    BayesianNetwork
        The network the file describes.

    Raises
    ------
    InvalidParameterError
        The extension names no supported format, or (for the formats read by pgmpy) the file does not exist.

    Examples
    --------
    A network written as BIF reads back with the same structure and the
    same probabilities:

    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from mtbn.networks import write_bif
    >>> net = load_network("asia")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "asia.bif")
    ...     write_bif(net, path)
    ...     back = read_network(path)
    >>> back.edges == net.edges, all(np.array_equal(a, b) for a, b in zip(back.cpts, net.cpts))
    (True, True)

    An extension that names no known format is refused:

    >>> read_network("asia.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    mtbn.exceptions.InvalidParameterError: cannot tell the network format of 'asia.txt': give a .bif, .bif.gz, ...
    """
    name = str(path).lower()
    if name.endswith((".bif", ".bif.gz")):
        return read_bif(path)
    readers = {".xml": "XMLBIFReader", ".xmlbif": "XMLBIFReader", ".bifxml": "XMLBIFReader", ".net": "NETReader",
               ".uai": "UAIReader"}
    ext = next((e for e in readers if name.endswith(e)), None)
    if ext is None:
        raise error("network-format", path=str(path))
    if not Path(path).is_file():
        raise error("network-unknown", name=str(path), choices=", ".join(map(repr, SHIPPED_NETWORKS)))
    from pgmpy import readwrite

    reader = getattr(readwrite, readers[ext])(path=str(path))
    return from_pgmpy(reader.get_model(), source=str(path))


#: The variables of :func:`example_tasks`.
EXAMPLE_VARIABLES = ("smoke", "lung", "bronc", "dysp")


def example_tasks(n_rows: int = 500) -> dict:
    """Three small related tasks for examples: two alike and one whose smoking no longer matters.

    Tasks ``"a"``, ``"b"`` and ``"c"``: ``n_rows`` rows of ASIA's smoke,
    lung, bronc and dysp sampled with seeds 1, 2 and 3 (pandas DataFrames);
    in ``"c"`` the smoke column is shuffled, so smoking causes neither lung
    cancer nor bronchitis there. The examples of task relatedness, selection,
    clustering and the bootstrap use them.

    Parameters
    ----------
    n_rows : int, default 500
        The number of rows sampled for each task.

    Returns
    -------
    dict of str to pandas.DataFrame
        The tasks ``"a"``, ``"b"`` and ``"c"``, each with the columns ``smoke``, ``lung``, ``bronc`` and ``dysp``
        (state labels as strings).

    Examples
    --------
    >>> tasks = example_tasks()
    >>> sorted(tasks), tasks["a"].shape, list(tasks["c"].columns)
    (['a', 'b', 'c'], (500, 4), ['smoke', 'lung', 'bronc', 'dysp'])
    """
    net = load_network("asia")
    columns = list(EXAMPLE_VARIABLES)
    tasks = {name: sample(net, n_rows, random_state=seed).to_dataframe()[columns]
             for name, seed in [("a", 1), ("b", 2), ("c", 3)]}
    shuffled = tasks["c"]["smoke"].sample(frac=1, random_state=0).to_numpy()
    tasks["c"] = tasks["c"].assign(smoke=shuffled)
    return tasks
