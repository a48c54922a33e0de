"""What the joint search returns."""

from dataclasses import dataclass, field

__all__ = ["MultitaskSearchResult"]


@dataclass(frozen=True)
class MultitaskSearchResult:
    """What the joint search returns.

    Each parameter is kept as the (read-only) attribute of the same name.

    Parameters
    ----------
    graphs : list of DAG
        One graph per task (over that task's variables).
    log_score : float
        ``sum_t [c log P(G_t) + log P(D_t | G_t)] + sum_pairs phi`` (eq. 2.5).
    log_likelihoods : list of float
        ``log P(D_t | G_t)`` per task (BDeu).
    log_prior : float
        The multitask prior part (pair terms plus the weighted structure priors).
    n_iter : int
        Joint moves applied.
    n_evaluations : int
        Local-score requests over all tasks.
    cache_hits, cache_misses : int
        Summed over the tasks' scorers during this search.
    solver : str
        The solver that chose the moves (``"exact"``, ``"bnb"`` or ``"exhaustive"``), or ``"independent"`` when
        the prior coupled no pair and each task was searched on its own.
    steps : list of dict
        Per applied joint move (empty for uncoupled tasks): ``pair``, ``states``, ``gain``, ``n_pairs_solved``,
        ``n_configurations``, ``n_pruned``, ``cache_hits``.
    converged : bool
        False if ``max_iter`` stopped a climb, True if every climb ended with no improving move.
    message : str
        Why the search stopped, e.g. ``"no improving joint move"`` or ``"max_iter reached"``.
    n_restarts : int
        Random restarts per start.
    trace : list of float
        The best joint score after the climbs from the start(s), then after
        each round of restarts (one restart per start).
    start_scores : list of float
        The joint score reached by the climb from each start (the given start
        first, then ``extra_starts`` in order).
    """

    graphs: list
    log_score: float
    log_likelihoods: list
    log_prior: float
    n_iter: int = 0
    n_evaluations: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    solver: str = ""
    steps: list = field(default_factory=list)
    converged: bool = True
    message: str = ""
    n_restarts: int = 0
    trace: list = field(default_factory=list)
    start_scores: list = field(default_factory=list)



def _cache_counts(scorers):
    """Cache hits and misses summed over the tasks' scorers (the result reports differences)."""
    hits = sum(s.cache_info()["hits"] for s in scorers)
    misses = sum(s.cache_info()["misses"] for s in scorers)
    return hits, misses
