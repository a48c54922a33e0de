"""Numbers, curves and provenance as the reports print them.

Pure helpers shared by the figures, the pages and the writers. They format
values; they decide nothing (the result objects say what was chosen).
"""

import datetime
import math
import sys

import numpy as np

__all__ = ["format_number"]


def _isnan(value):
    """True for None, NaN and anything that is not a number."""
    try:
        return value is None or math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def format_number(value, digits=6):
    """A number for a table: integers as integers, others to ``digits`` significant figures.

    Parameters
    ----------
    value : float, int, numpy scalar or None
        The number. None and NaN print as ``"n/a"``, infinities as ``"inf"`` and ``"-inf"``.
    digits : int, default 6
        Significant figures of a value that is not a whole number (whole numbers below 1e15 print in full).

    Returns
    -------
    str
        The formatted number.

    Examples
    --------
    >>> format_number(3.0), format_number(0.123456789), format_number(float("nan")), format_number(-math.inf)
    ('3', '0.123457', 'n/a', '-inf')
    """
    if _isnan(value):
        return "n/a"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}"


def _curve_points(curve):
    """``[(x, y), ...]`` from a validation curve given as tuples or as to_dict() records."""
    points = []
    for item in curve or ():
        if isinstance(item, dict):
            x = item.get("n", item.get("n_clusters"))
            y = item.get("validation_log_likelihood")
        else:
            x, y = item[:2]
        points.append((int(x), float(y)))
    return points


def _curve_ses(curve):
    """The paired standard errors (vs the best point) of a curve, or None when it has none."""
    ses = []
    for item in curve or ():
        se = item.get("se_vs_best") if isinstance(item, dict) else (item[2] if len(item) > 2 else None)
        ses.append(np.nan if se is None else float(se))
    return ses if ses and not np.all(np.isnan(ses)) else None


def _sorted_items(distances):
    """(name, distance) pairs by increasing distance; ties keep the given order, NaN last."""
    items = list(distances.items())
    return sorted(items, key=lambda kv: (_isnan(kv[1]), 0.0 if _isnan(kv[1]) else float(kv[1])))


def _edge_text(edge):
    """``"parent -> child"``."""
    return f"{edge[0]} -> {edge[1]}"


def _provenance(options):
    """The footer of every page: version, date, Python and the options the caller passed."""
    import mtbn

    return {
        "mtbn version": mtbn.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "python": sys.version.split()[0],
        "options": dict(options or {}),
    }


def _option_text(value):
    """An option's value as typed on the command line (lists space-separated)."""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def _json_safe(value):
    """``value`` with numpy scalars as Python numbers and non-finite floats as None."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if not math.isfinite(float(value)) else float(value)
    if value is None or isinstance(value, (str, int, bool)):
        return value
    return str(value)
