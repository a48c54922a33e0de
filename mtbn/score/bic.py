"""The BIC score: each family's log-likelihood at the maximum-likelihood CPT minus ``log(N) / 2`` per free parameter."""

import numpy as np

from mtbn.score.counting import CountingScore, _table_of_code

__all__ = ["BICScore"]


class BICScore(CountingScore):
    """BIC local scores (log-likelihood at the MLE minus ``log(N)/2`` per parameter).

    A family with ``q`` declared parent configurations and a child of ``r`` declared states has
    ``q (r - 1)`` free parameters; ``N`` is the number of samples.

    Parameters
    ----------
    data : DiscreteData
        The integer-coded data of one task.

    Examples
    --------
    >>> import numpy as np
    >>> from mtbn.data import DiscreteData
    >>> d = DiscreteData(np.array([[0, 0], [1, 1], [1, 1]]), ("A", "B"), (("a", "b"), ("x", "y")))
    >>> s = BICScore(d)

    B copies A. Alone, B has one free parameter and the log-likelihood
    ``ln(1/3) + 2 ln(2/3)``, so ``s(B) = ln(1/3) + 2 ln(2/3) - ln(3)/2 =
    -2.458849``; given A it is predicted perfectly (log-likelihood 0) with
    two free parameters, ``s(B | A) = -ln 3 = -1.098612``:

    >>> round(float(s.local_score(1, [])), 6), round(float(s.local_score(1, [0])), 6)
    (-2.458849, -1.098612)

    Scores are cached, like those of :class:`BDeuScore`: asking again is a hit.

    >>> _ = s.local_score(1, [0])
    >>> s.cache_info()
    {'hits': 1, 'misses': 2, 'size': 2}
    """

    name = "bic"

    def __init__(self, data):
        super().__init__(data)

    def _score_code(self, child, code, q):
        r = int(self.arities[child])
        counts = _table_of_code(code, q, r, self._columns[child])
        n_j = counts.sum(axis=1, keepdims=True)
        nz = counts > 0
        loglik = float((counts[nz] * np.log(counts[nz] / np.broadcast_to(n_j, counts.shape)[nz])).sum())
        return float(loglik - 0.5 * np.log(max(self.n_samples, 1)) * q * (r - 1))  # a Python float, as BDeu's
