"""Turn user inputs into checked internal values.

Every function here raises :class:`~mtbn.exceptions.InvalidParameterError`
with a message that names the argument, the value received and what is
allowed.
"""

import numbers

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.messages import error, register

__all__ = [
    "check_option",
    "check_penalty",
    "is_penalty",
    "format_penalty",
    "check_positive",
    "MAX_ESS",
    "check_random_state",
    "check_max_parents",
]


#: The largest equivalent sample size: BDeu's ``lnG(alpha + N) - lnG(alpha)`` keeps about nine significant digits
#: up to here (the search's ties are at 1e-7); at 1e308 it overflows.
MAX_ESS = 1e6


register("option-choice", InvalidParameterError, "{name} must be one of {choices}; got {value!r}.",
         cause="An argument that takes one of a fixed set of names got another value.",
         fix="Use one of the values listed (they are case-sensitive).")
register("penalty-type", InvalidParameterError, "{name} must be a number in [0, 1]; got {value!r}.",
         cause="A penalty (delta) was not a number.",
         fix="Pass a number: 0 learns the tasks independently, 1 forces identical structures.")
register("penalty-range", InvalidParameterError, "{name} must be in [0, 1]; got {value!r}.",
         cause="A penalty (delta) outside [0, 1] or NaN.",
         fix="Pass a number between 0 (independent tasks) and 1 (identical structures), or 'auto'.")
register("positive-number", InvalidParameterError, "{name} must be a number > 0 and at most {limit:g}; got {value!r}.",
         cause="The equivalent sample size was zero, negative, NaN, not a number, or so large (above 10^6) that "
               "BDeu's log-gamma differences lose their precision (at 10^308 they overflow).",
         fix="Pass a number above 0 (the BDeu equivalent sample size is usually 1 to 10).")
register("max-parents", InvalidParameterError, "{name} must be None or an integer >= 0; got {value!r}.",
         cause="A bound on the parents per variable that is negative or not an integer.",
         fix="Pass a whole number (0 allows no edges), or None for no bound.")
register("random-state", InvalidParameterError,
         "random_state must be None, an integer >= 0, a numpy Generator or RandomState; got {value!r}.",
         cause="A seed that numpy cannot use: negative, fractional, or another type.",
         fix="Pass a whole number >= 0; the same seed gives the same result.")
register("n-jobs", InvalidParameterError,
         "n_jobs must be None, a positive integer or -1 (all cores), -2 (all but one), ...; got {value!r}.",
         cause="A worker count of 0 or not an integer (joblib's convention: -1 means all cores).",
         fix="Pass 1 for one process, a count of processes, or -1 for all cores.")


def check_option(name, value, allowed):
    """Return ``value`` if it is one of ``allowed`` (a registry's keys)."""
    allowed = list(allowed)
    if value not in allowed:
        raise error("option-choice", name=name, choices=", ".join(repr(a) for a in allowed), value=value)
    return value


def is_penalty(value):
    """Whether a float is a penalty (delta in the paper): in [0, 1], not NaN. The one statement of the rule;
    each front end (argument, option, method name) raises its own message. Elementwise on arrays."""
    return (0.0 <= value) & (value <= 1.0)


def check_penalty(value, name="penalty"):
    """Return the multitask penalty (delta in the paper) as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise error("penalty-type", name=name, value=value)
    value = float(value)
    if not is_penalty(value):
        raise error("penalty-range", name=name, value=value)
    return value


def format_penalty(delta):
    """A penalty as text that gives the same float back (``--penalty`` of the printed value).

    >>> format_penalty(1.0), format_penalty(0.0), format_penalty(1 - 1e-12), format_penalty(0.9)
    ('1', '0', '0.999999999999', '0.9')
    """
    value = float(delta)
    return str(int(value)) if value in (0.0, 1.0) else repr(value)


def check_positive(value, name):
    """Return ``value`` as a float if it is a number > 0 and at most :data:`MAX_ESS` (an equivalent sample size)."""
    try:
        number = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else None
    except OverflowError:  # an integer too large for a float
        number = None
    if number is None or not 0 < number <= MAX_ESS:
        raise error("positive-number", name=name, value=value, limit=MAX_ESS)
    return number


def check_max_parents(value, name="max_parents"):
    """Return ``value`` (``None`` or an int >= 0)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise error("max-parents", name=name, value=value)
    return int(value)


def check_random_state(seed):
    """Turn ``seed`` (None, int, Generator or RandomState) into a ``numpy.random.Generator``.

    A legacy ``numpy.random.RandomState`` (scikit-learn's convention) seeds a
    new Generator with one draw from it, so the same RandomState state gives
    the same result.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(int(seed.randint(0, 2**31 - 1)))
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0):
        return np.random.default_rng(seed)
    raise error("random-state", value=seed)


def check_n_jobs(n_jobs):
    """``n_jobs`` as joblib reads it: None, a positive count, or -1, -2, ... (all cores, all but one, ...)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs != 0:
        return int(n_jobs)
    raise error("n-jobs", value=n_jobs)
