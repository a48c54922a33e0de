"""The benchmark's methods: their names, the columns of a result row, ``mtl@DELTA``, and their order."""

from mtbn._validation import is_penalty
from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

METHODS = ("stl", "identical", "pooled", "mtl", "mtl-paper", "mtl-edit", "mtl-single", "mtl-oracle", "mtl-per-task",
           "mtl-all-tasks", "stl-all-states")

RESULT_COLUMNS = ("trial", "method", "task", "penalty", "edit_distance", "cpdag_shd", "undecidable_reversals", "kl",
                  "log_likelihood", "seconds", "transfer")


register("method-penalty-type", InvalidParameterError, "method {method!r}: the penalty after '@' must be a number.",
         cause="A method written mtl@DELTA whose DELTA is not a number.",
         fix="Write e.g. mtl@0.9.")
register("method-penalty-range", InvalidParameterError, "method {method!r}: the penalty must be in [0, 1].",
         cause="A method mtl@DELTA with DELTA outside [0, 1].",
         fix="Use a penalty between 0 and 1.")
register("unknown-method", InvalidParameterError, "unknown method {method!r}; choose from {methods} or mtl@DELTA.",
         cause="A benchmark method name that mtbn does not know.",
         fix="Use one of the names listed (comma-separated for several).")
register("no-methods", InvalidParameterError, "methods must name at least one method; choose from {methods} or mtl@DELTA.",
         cause="An empty list of benchmark methods (e.g. --methods ,).",
         fix="Name at least one method.")

def fixed_penalty_method(delta):
    """The method name of multitask learning at the fixed penalty ``delta``: ``mtl@DELTA``."""
    return f"mtl@{float(delta)!r}"


def fixed_penalty(method):
    """The penalty of a ``mtl@DELTA`` method, or None for any other method name."""
    if not method.startswith("mtl@"):
        return None
    try:
        delta = float(method[4:])
    except ValueError:
        raise error("method-penalty-type", method=method) from None
    if not is_penalty(delta):
        raise error("method-penalty-range", method=method)
    return delta


def _check_methods(methods):
    out = []
    for m in methods:
        if m in METHODS or fixed_penalty(m) is not None:
            out.append(m)
        else:
            raise error("unknown-method", method=m, methods=", ".join(METHODS))
    if not out:
        raise error("no-methods", methods=", ".join(METHODS))
    return out


def method_order(results):
    """The methods of a results table in :data:`METHODS`' order, then any other (``mtl@DELTA``) by name."""
    present = set(results["method"])
    return [m for m in list(METHODS) + sorted(present - set(METHODS)) if m in present]
