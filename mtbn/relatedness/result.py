"""What a relatedness measure returns (:class:`RelatednessResult`: distances, noise floor, the settings that
made them), its JSON record, and the checks of a result passed back in (``relatedness=``, ``mtbn ... --from``)."""

from dataclasses import dataclass

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.graph import edit_distance
from mtbn.messages import error, register

MEASURES = ("direct", "indirect")


@dataclass(frozen=True)
class RelatednessResult:
    """Task distances (smaller = more related).

    Parameters
    ----------
    measure : {"direct", "indirect"}
        The measure the distances come from.
    names : tuple of str
        The task names, in the order of the matrices' rows and columns.
    distance : pandas.DataFrame
        Square, task names as index and columns. For the indirect measure,
        row ``e`` column ``s`` is how much worse ``e``'s data is explained by
        ``s``'s structure than by its own.
    graphs : dict of name -> DAG
        The structures the distances come from.
    log_likelihood : pandas.DataFrame or None
        Indirect only: row = structure source, column = evaluated task.
    search : MultitaskSearchResult or None
        Direct only: the joint search that learned the structures (solver,
        moves, configurations evaluated per step).
    floor : float, optional
        Direct only, with ``noise_floor``: the distance that tasks differing
        only by chance stay within (see :func:`noise_floor`); a distance no
        larger is within noise. NaN when it cannot be computed (tasks over
        different variables).
    null_max : ndarray, optional
        The permutation replicates' largest distances the floor comes from.
    interval : tuple of two pandas.DataFrame, optional
        Direct only, with ``n_boot``: the 95% percentile bootstrap interval
        ``(low, high)`` of every distance (rows resampled within every task,
        all tasks relearned jointly at the same penalty).
    n_boot : int
        Bootstrap replicates behind ``interval`` (0: none).

    Examples
    --------
    Distances between given structures (no learning, so no noise floor):

    >>> from mtbn.graph import DAG
    >>> graphs = {"a": DAG.from_edges(["smoke", "lung", "bronc"], [("smoke", "lung"), ("smoke", "bronc")]),
    ...           "b": DAG.from_edges(["smoke", "lung", "bronc"], [("smoke", "lung")]),
    ...           "c": DAG.empty(["smoke", "lung", "bronc"])}
    >>> rel = RelatednessResult.from_structures(graphs)
    >>> rel.measure, rel.names
    ('direct', ('a', 'b', 'c'))
    >>> rel.distance.values.tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    >>> rel.from_task("c").to_dict()
    {'a': 2.0, 'b': 1.0}
    >>> rel.within_noise() is None
    True
    """

    measure: str
    names: tuple
    distance: object
    graphs: dict
    log_likelihood: object = None
    search: object = None
    floor: "float | None" = None
    null_max: object = None
    interval: object = None
    n_boot: int = 0

    def within_noise(self):
        """Square boolean DataFrame: distance <= the noise floor (None without a floor).

        Returns
        -------
        pandas.DataFrame of bool or None
            True where ``distance`` is no larger than ``floor`` (task names as index and columns); None when
            ``floor`` is None or NaN.
        """
        if self.floor is None or np.isnan(self.floor):
            return None
        return self.distance <= self.floor

    def floor_table(self):
        """``noise_floor.csv``: each permutation replicate's largest distance, and the floor (None without).

        Returns
        -------
        pandas.DataFrame or None
            Columns ``replicate`` (``"0"``, ``"1"``, ..., then ``"floor"``) and ``largest_distance`` (each value
            of ``null_max``, then ``floor``); None when ``floor`` is None.
        """
        import pandas as pd

        if self.floor is None:
            return None
        reps = [] if self.null_max is None else list(self.null_max)
        return pd.DataFrame({"replicate": [str(i) for i in range(len(reps))] + ["floor"],
                             "largest_distance": reps + [self.floor]})

    def to_dict(self):
        """JSON-ready record (``relatedness.json``): every field but ``search``, read back by
        :meth:`from_dict` with the same distances, floor and structures.

        Returns
        -------
        dict
            ``measure``, ``names``, ``distance`` and ``log_likelihood`` (lists of rows of floats, or None),
            ``structures`` (per task: ``variables`` and ``edges`` as ``[parent, child]`` lists), ``floor``,
            ``null_max``, ``interval`` (two matrices, or None) and ``n_boot``.

        Examples
        --------
        >>> import pandas as pd
        >>> from mtbn.graph import DAG
        >>> g = {"a": DAG.from_edges(["x", "y"], [("x", "y")]), "b": DAG.empty(["x", "y"])}
        >>> d = pd.DataFrame([[0.0, 1.0], [1.0, 0.0]], index=["a", "b"], columns=["a", "b"])
        >>> rel = RelatednessResult("direct", ("a", "b"), d, g, floor=0.0)
        >>> back = RelatednessResult.from_dict(rel.to_dict())
        >>> back.distance.equals(rel.distance), back.graphs == rel.graphs, back.floor
        (True, True, 0.0)
        """
        def matrix(frame):
            return None if frame is None else [[float(x) for x in row] for row in np.asarray(frame, dtype=float)]

        return {
            "measure": self.measure,
            "names": list(self.names),
            "distance": matrix(self.distance),
            "log_likelihood": matrix(self.log_likelihood),
            "structures": {name: {"variables": list(g.names), "edges": [list(e) for e in g.edges(names=True)]}
                           for name, g in self.graphs.items()},
            "floor": None if self.floor is None else float(self.floor),
            "null_max": None if self.null_max is None else [float(x) for x in self.null_max],
            "interval": None if self.interval is None else [matrix(f) for f in self.interval],
            "n_boot": int(self.n_boot),
        }

    @classmethod
    def from_dict(cls, record):
        """The result :meth:`to_dict` recorded (``search`` is not kept: None), checked field by field.

        A record edited by hand or damaged is refused with one line naming
        the field (``relatedness-record``): the measure, distinct task names,
        square matrices of finite numbers (direct distances symmetric,
        non-negative, zero on the diagonal), a finite non-negative floor (or
        NaN: not computable), acyclic structures over named variables.
        """
        import pandas as pd

        names, distance, graphs, extra = _checked_record(record)

        def frame(values):
            return None if values is None else pd.DataFrame(values, index=list(names), columns=list(names),
                                                             dtype=float)

        return cls(record["measure"], names, frame(distance), graphs, log_likelihood=frame(extra["log_likelihood"]),
                   floor=extra["floor"], null_max=extra["null_max"],
                   interval=None if extra["interval"] is None else tuple(frame(v) for v in extra["interval"]),
                   n_boot=extra["n_boot"])

    @classmethod
    def from_structures(cls, graphs, *, reversal="single"):
        """Direct distances between given structures (a dict name -> DAG), e.g. those a ``learn`` run wrote:
        the edit distance between every two, with no floor.

        Examples
        --------
        >>> from mtbn.graph import DAG
        >>> g = {"a": DAG.from_edges(["x", "y", "z"], [("x", "y"), ("y", "z")]),
        ...      "b": DAG.from_edges(["x", "y", "z"], [("y", "x")])}
        >>> float(RelatednessResult.from_structures(g).distance.loc["a", "b"])  # x-y reversed, y -> z gone
        2.0
        """
        import pandas as pd

        names = list(graphs)
        D = _distance_matrix([graphs[n].edges(names=True) for n in names], reversal)
        return cls("direct", tuple(names), pd.DataFrame(D, index=names, columns=names), dict(graphs))

    def from_task(self, name):
        """Distances from task ``name`` to every other task (a pandas Series).

        Parameters
        ----------
        name : str
            One of ``names``; another name raises ``InvalidParameterError``.

        Returns
        -------
        pandas.Series
            Row ``name`` of ``distance`` without ``name`` itself, indexed by the other tasks' names.
        """
        if name not in self.names:
            raise error("unknown-task", task=name, names=", ".join(map(repr, self.names)))
        return self.distance.loc[name].drop(name)


register("relatedness-record", InvalidParameterError, "relatedness record: {problem}.",
         cause="A relatedness.json (or its dict) was edited by hand, damaged, or written by something else.",
         fix="Use the relatedness.json an mtbn run wrote, unchanged, or compute the relatedness again.")


def _matrix(value, k, field, *, finite=True):
    """``value`` as a k x k float array, or the ``relatedness-record`` error naming ``field``."""
    try:
        m = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise error("relatedness-record", problem=f"{field} must be a {k} x {k} matrix of numbers") from None
    if m.shape != (k, k):
        raise error("relatedness-record", problem=f"{field} must be {k} x {k} (one row and column per task); "
                                                   f"got shape {m.shape}")
    if finite and not np.all(np.isfinite(m)):
        raise error("relatedness-record", problem=f"{field} holds a value that is not a finite number")
    return m


def _checked_record(record):
    """The fields of a ``relatedness.json`` record, each checked: ``(names, distance, graphs, extra)``."""
    from mtbn.exceptions import CycleError
    from mtbn.graph import DAG

    def bad(problem):
        return error("relatedness-record", problem=problem)

    if not isinstance(record, dict):
        raise bad(f"a JSON object is needed, not {type(record).__name__}")
    for key in ("measure", "names", "distance", "structures"):
        if key not in record:
            raise bad(f"no {key!r}")
    if record["measure"] not in MEASURES:
        raise bad(f"measure must be one of {', '.join(MEASURES)}; got {record['measure']!r}")
    names = record["names"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names) \
            or len(set(names)) != len(names):
        raise bad("names must be a list of distinct task names")
    k = len(names)
    distance = _matrix(record["distance"], k, "distance")
    if record["measure"] == "direct":
        if np.any(distance < 0) or not np.array_equal(distance, distance.T) or np.any(np.diag(distance) != 0):
            raise bad("direct distances must be symmetric, non-negative and 0 from a task to itself")
    structures = record["structures"]
    if not isinstance(structures, dict) or sorted(structures) != sorted(names):
        raise bad("structures must hold one structure per task name")
    graphs = {}
    for name, s in structures.items():
        variables, edges = (s.get("variables"), s.get("edges")) if isinstance(s, dict) else (None, None)
        if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables) \
                or len(set(variables)) != len(variables):
            raise bad(f"structure of {name!r}: variables must be a list of distinct names")
        if not isinstance(edges, list) or not all(isinstance(e, list) and len(e) == 2
                                                  and all(x in variables for x in e) for e in edges):
            raise bad(f"structure of {name!r}: edges must be [parent, child] pairs of its variables")
        try:
            graphs[name] = DAG.from_edges(variables, [tuple(e) for e in edges])
        except (CycleError, InvalidParameterError) as exc:
            raise bad(f"structure of {name!r}: {exc}".rstrip(".")) from None
    floor = record.get("floor")
    if floor is not None:
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not (np.isnan(floor) or
                                                                                  0 <= floor < np.inf):
            raise bad(f"floor must be a finite number >= 0 (or NaN: not computable); got {floor!r}")
        floor = float(floor)
    null_max = record.get("null_max")
    if null_max is not None:
        if not isinstance(null_max, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                     and np.isfinite(x) for x in null_max):
            raise bad("null_max must be a list of finite numbers")
        null_max = np.asarray(null_max, dtype=float)
    log_likelihood = record.get("log_likelihood")
    if log_likelihood is not None:
        log_likelihood = _matrix(log_likelihood, k, "log_likelihood")
    interval = record.get("interval")
    if interval is not None:
        if not isinstance(interval, list) or len(interval) != 2:
            raise bad("interval must be two matrices (low, high)")
        interval = [_matrix(m, k, f"interval[{i}]") for i, m in enumerate(interval)]
    n_boot = record.get("n_boot", 0)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
        raise bad(f"n_boot must be an integer >= 0; got {n_boot!r}")
    return tuple(names), distance, graphs, {"log_likelihood": log_likelihood, "floor": floor, "null_max": null_max,
                                            "interval": interval, "n_boot": n_boot}


register("relatedness-tasks", InvalidParameterError,
         "relatedness= is over the tasks {given}, not the tasks given ({names}).",
         cause="The precomputed distances belong to another set of tasks (a task added, removed or renamed).",
         fix="Compute the relatedness of these tasks, or pass the tasks it was computed on.")
register("relatedness-measure", InvalidParameterError,
         "the precomputed distances are of the {given} measure, but {where} asks for the {measure} measure.",
         cause="The precomputed distances come from another relatedness measure than the one asked for.",
         fix="Ask for the measure the distances were computed with, or compute the one you want.")


def check_relatedness(rel, names, measure, where):
    """``rel`` (a precomputed :class:`RelatednessResult`, or None) checked against the tasks and the measure."""
    if rel is None:
        return None
    if not isinstance(rel, RelatednessResult):
        raise error("relatedness-type", got=type(rel).__name__)
    if set(rel.names) != set(names) or len(rel.names) != len(names):
        raise error("relatedness-tasks", given=", ".join(map(repr, rel.names)), names=", ".join(map(repr, names)))
    if rel.measure != measure:
        raise error("relatedness-measure", given=rel.measure, where=where, measure=measure)
    return rel


register("relatedness-type", InvalidParameterError, "relatedness= must be a RelatednessResult; got {got}.",
         cause="Precomputed distances were passed in another form.",
         fix="Pass what direct_relatedness or indirect_relatedness returned (or RelatednessResult.from_dict of a "
         "relatedness.json).")


def _distance_matrix(edges, reversal):
    """Symmetric matrix of edit distances between the tasks' edge lists."""
    k = len(edges)
    D = np.zeros((k, k))
    for a in range(k):
        for b in range(a + 1, k):
            D[a, b] = D[b, a] = edit_distance(edges[a], edges[b], reversal=reversal)
    return D
