"""Turn user inputs into checked internal values.

Every function here raises :class:`~mtbn.exceptions.InvalidParameterError`
with a message that names the argument, the value received and what is
allowed.
"""

import numbers

import numpy as np

from mtbn.exceptions import InvalidParameterError

__all__ = [
    "check_option",
    "check_penalty",
    "check_positive",
    "check_random_state",
    "check_max_parents",
]


def check_option(name, value, allowed):
    """Return ``value`` if it is one of ``allowed`` (a registry's keys)."""
    allowed = list(allowed)
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise InvalidParameterError(
            f"{name} must be one of {choices}; got {value!r}."
        )
    return value


def check_penalty(value, name="penalty"):
    """Return the multitask penalty (delta in the paper) as a float in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{name} must be a number in [0, 1]; got {value!r}."
        )
    value = float(value)
    if not 0.0 <= value <= 1.0 or np.isnan(value):
        raise InvalidParameterError(f"{name} must be in [0, 1]; got {value!r}.")
    return value


def check_positive(value, name):
    """Return ``value`` as a float if it is a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a positive number; got {value!r}.")
    value = float(value)
    if not (value > 0 and np.isfinite(value)):
        raise InvalidParameterError(f"{name} must be a positive number; got {value!r}.")
    return value


def check_max_parents(value, name="max_parents"):
    """Return ``value`` (``None`` or an int >= 0)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidParameterError(
            f"{name} must be None or an integer >= 0; got {value!r}."
        )
    return int(value)


def check_random_state(seed):
    """Turn ``seed`` (None, int or Generator) into a ``numpy.random.Generator``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0):
        return np.random.default_rng(seed)
    raise InvalidParameterError(
        f"random_state must be None, an integer >= 0 or a numpy Generator; got {seed!r}."
    )


def check_n_jobs(n_jobs):
    """``n_jobs`` as joblib reads it: None, a positive count, or -1, -2, ... (all cores, all but one, ...)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, numbers.Integral) and not isinstance(n_jobs, bool) and n_jobs != 0:
        return int(n_jobs)
    raise InvalidParameterError(
        f"n_jobs must be None, a positive integer or -1 (all cores), -2 (all but one), ...; got {n_jobs!r}."
    )
