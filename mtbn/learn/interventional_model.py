"""What the interventional learner returns (:class:`InterventionalModel`): one causal DAG, each task's changed
mechanisms, and the prediction of a condition no task observed (:mod:`mtbn.learn.interventional` learns it)."""

from dataclasses import dataclass

import numpy as np

from mtbn.exceptions import InvalidParameterError
from mtbn.graph import DAG
from mtbn.messages import error, register
from mtbn.networks.gaussian import LinearGaussianNetwork, implied_moments
from mtbn.networks.model import BayesianNetwork, mixed_over_parent

__all__ = ["INTERVENTION_TYPES", "InterventionalModel"]

#: ``intervention_type=``: changed mechanisms (JCI indicators), perfect interventions (Cooper & Yoo), or activity
#: interventions (the targets' children's mechanisms change).
#: ``"auto"``: mechanism or activity, whichever predicts held-out rows better.
INTERVENTION_TYPES = ("auto", "mechanism", "perfect", "activity")

P = InvalidParameterError
register("interventions-unknown-variable", P,
         "interventions: task {task!r} targets {variable!r}, which is not a variable of the tasks.",
         cause="A target that no task measures (a typo, or a variable dropped from the data).",
         fix="Name targets by their column names (case-sensitive), or leave out those that are not measured.")
register("predict-distribution-not-target", P,
         "predict: a distribution is given for {variable!r}, which is not among the targets.",
         cause="Only the targets' mechanisms are replaced in a predicted condition; a distribution for another "
               "variable would be ignored.",
         fix="Add the variable to the targets, or leave its distribution out.")
register("predict-children-value", P, "predict: children must be 'average' or 'keep'; got {value!r}.",
         cause="How an unseen activity intervention acts on its targets' children is neither of the two readings.",
         fix="Pass children='average' (they stop seeing the target) or children='keep' (their CPTs stay).")

register("predict-distribution-invalid", P,
         "predict: the distribution of {variable!r} must be {what}; got {value!r}.",
         cause="A predicted target gets the distribution given for it, which must be one the network can hold.",
         fix="Give probabilities over the target's states (non-negative, summing to 1) for discrete tasks, a pair "
             "(mean, variance > 0) of finite numbers for continuous ones, or leave the target's distribution out.")

#: How a predicted activity intervention acts on its targets' children (:meth:`InterventionalModel.predict`).
CHILDREN = ("average", "keep")


@dataclass(frozen=True)
class InterventionalModel:
    """What the interventional learner found, beside the per-task networks (``result.interventions``).

    Parameters
    ----------
    type : {"mechanism", "perfect", "activity"}
        The intervention type learned (``intervention_type`` of
        :func:`~mtbn.learn.interventional.learn_interventional`): changed mechanisms, perfect interventions, or
        activity interventions (the targets' children change).
    given : dict
        Per task, the targets given (a tuple; empty: observational), or None
        (unknown).
    changed : dict
        Per task, ``{variable: "given" | "learned" | "activity"}``: the
        mechanisms that change in it (given as a target, found by the search,
        or, with activity interventions, a child of one of its targets).
    causal_graph : DAG
        The causal DAG over the system variables, shared by all tasks.
    causal_network : BayesianNetwork
        The causal DAG with the CPTs of the reference regime: each family's
        CPT on the rows of the tasks that leave its mechanism as it is (an
        observational task's network, when there is one).
    indicators : dict
        Mechanism type: per task with an indicator, its name in the
        augmented graph (``do(<task>)``).
    reference : str or None, default None
        With no observational task and changes to search: the task whose
        mechanisms are the reference regime (the first by name among those
        whose changes are searched; only its given targets change). Changes
        are found relative to one condition, and without a rule a symmetric
        choice would depend on the order the tasks were given in.
    adjacencies : dict or None, default None
        The held-out choice (``skeleton="heldout"`` or ``intervention_type="auto"``): ``{"chosen": "multitask" |
        "search", "type": the model chosen, "heldout": {skeleton: log-likelihood of the held-out rows},
        "types": {model: its best held-out log-likelihood}, "held_out_rows": n}`` (``heldout`` or ``types``
        empty when that was not chosen); None when nothing was chosen.

    Examples
    --------
    >>> from mtbn.data import load_sachs_conditions, make_taskset
    >>> from mtbn.data.discretization import discretize
    >>> sachs = load_sachs_conditions()
    >>> frames, _ = discretize(sachs.tasks, "quantile:3")
    >>> from mtbn.learn.interventional import learn_interventional
    >>> res = learn_interventional(make_taskset(frames), sachs.intervention_targets(), n_restarts=0)
    >>> res.interventions.changed["6-cd3cd28-u0126"]["pmek"]
    'given'
    >>> res.interventions.table().loc["6-cd3cd28-u0126", "pmek"]
    'given'
    """

    type: str
    given: dict
    changed: dict
    causal_graph: DAG
    causal_network: BayesianNetwork
    indicators: dict
    reference: "str | None" = None
    adjacencies: "dict | None" = None

    def adjacency_line(self):
        """One line on the held-out choice of the model and of the adjacencies, or None.

        Returns
        -------
        str or None
            The model and the adjacencies' source chosen, with the held-out log-likelihoods compared; None when
            nothing was chosen or the tasks were too small to hold rows out.
        """
        choice = self.adjacencies or {}
        held, types = choice.get("heldout"), choice.get("types")
        parts = []
        if types:
            parts.append(f"{self.type} interventions (held-out log-likelihood "
                         + ", ".join(f"{value:.1f} with {kind}" for kind, value in types.items()) + ")")
        if held:
            source = {"multitask": "the multitask learner's", "search": "the tied score's own"}[choice["chosen"]]
            parts.append(f"adjacencies: {source} (held-out log-likelihood {held['multitask']:.1f} with the multitask "
                         f"learner's, {held['search']:.1f} with the tied score's)")
        if not parts:
            return None
        return "; ".join(parts) + f", on {choice['held_out_rows']} rows"

    def table(self):
        """Task x variable (a pandas DataFrame): ``"given"``, ``"learned"``, ``"activity"`` or ``""`` (unchanged).

        Returns
        -------
        pandas.DataFrame
            The tasks of ``changed`` as index, the causal graph's variables as columns.
        """
        import pandas as pd

        names = list(self.causal_graph.names)
        return pd.DataFrame([[self.changed[t].get(v, "") for v in names] for t in self.changed],
                            index=list(self.changed), columns=names)

    def records(self):
        """The changed mechanisms as JSON-ready rows: task, variable, how (given or learned).

        Returns
        -------
        list of dict
            One ``{"task": ..., "variable": ..., "how": "given" | "learned" | "activity"}`` per changed mechanism.
        """
        return [{"task": t, "variable": v, "how": how} for t, per in self.changed.items() for v, how in per.items()]

    def predict(self, targets, distributions=None, children="average"):
        """The network of a condition not seen: the causal network with the ``targets``' mechanisms replaced.

        As ``do(targets)``: each target loses its parents and gets the
        distribution ``distributions[target]`` (probabilities over its
        states), or uniform; every other mechanism stays the reference
        regime's. For the rows of such a condition, the log-likelihood of the
        other variables given the targets is that of these CPTs, whatever the
        targets' distributions. With activity interventions (``type ==
        "activity"``) the targets' children change too, in a way no task
        showed: each child no longer sees its target's value, and its CPT is
        its reference CPT averaged over the target's states with the weights
        of the target's distribution (uniform unless given). With ``children="keep"``
        the children keep their reference CPTs instead, as when a drug sets its
        target's level and the children still follow that level (on the Sachs
        conditions left out one at a time, the better reading in all seven:
        ``experiments/interventions_sachs_loco_detail.py``, docs/robustness.md).

        For continuous tasks (``causal_network`` a linear Gaussian network) each target gets a normal
        distribution: ``distributions[target] = (mean, variance)``, or the target's own marginal in the
        reference regime (the mean and variance the causal network implies).

        Parameters
        ----------
        targets : list of str
            The variables intervened on; each must be a variable of the causal network.
        distributions : dict of str -> sequence of float, optional
            Per target, its probabilities over its states (in the network's state order; continuous tasks: its
            mean and variance); a target left out is uniform (continuous: its implied marginal). A key that is
            not among ``targets`` raises ``InvalidParameterError``.
        children : {"average", "keep"}, default "average"
            With activity interventions, whether each target's children stop seeing it (their CPTs averaged
            over its states; continuous tasks: their regressions over its distribution) or keep their
            reference CPTs; other types replace the targets' mechanisms only.

        Returns
        -------
        BayesianNetwork or LinearGaussianNetwork
            ``causal_network`` with each target parentless and given its distribution.

        Examples
        --------
        >>> import numpy as np
        >>> from mtbn.networks import load_network
        >>> net = load_network("asia")
        >>> model = InterventionalModel("mechanism", {}, {}, DAG([set(p) for p in net.parents], net.names), net, {})
        >>> do = model.predict(["lung"], {"lung": [0.9, 0.1]})
        >>> do.parents[net.names.index("lung")], np.round(do.cpts[net.names.index("lung")], 2).tolist()
        ((), [0.9, 0.1])
        """
        if children not in CHILDREN:
            raise error("predict-children-value", value=children)
        net = self.causal_network
        names = list(net.names)
        targets = [targets] if isinstance(targets, str) else targets  # one variable, not its characters
        targets = list(dict.fromkeys(str(t) for t in targets))  # each once, in order
        for t in list(targets) + [str(v) for v in (distributions or {})]:
            if t not in names:
                raise error("interventions-unknown-variable", task="(predicted)", variable=t)
        for v in distributions or {}:
            if str(v) not in targets:
                raise error("predict-distribution-not-target", variable=v)
        distributions = {str(v): _checked_distribution(net, names.index(str(v)), str(v), dist)
                         for v, dist in (distributions or {}).items()}
        if isinstance(net, LinearGaussianNetwork):
            return _predict_gaussian(net, targets, distributions or {}, self.type == "activity" and
                                     children == "average")
        parents, cpts = list(net.parents), list(net.cpts)
        for t in targets:
            v = names.index(t)
            r = len(net.states[v])
            dist = (distributions or {}).get(t)
            p = np.full(r, 1.0 / r) if dist is None else np.asarray(dist, dtype=float)
            if self.type == "activity" and children == "average":
                for c, ps in enumerate(parents):
                    if v in ps:
                        cpts[c] = mixed_over_parent(cpts[c], ps.index(v), p)
            parents[v], cpts[v] = (), p
        return BayesianNetwork(net.names, net.states, parents, cpts, net.kinds)


def _checked_distribution(net, v, name, dist):
    """A predicted target's distribution, checked: probabilities over its states (discrete), or ``(mean,
    variance)`` with a positive variance (continuous); one line naming the target otherwise."""
    gaussian = isinstance(net, LinearGaussianNetwork)
    what = "a pair (mean, variance) of finite numbers, the variance above 0" if gaussian else \
        f"{len(net.states[v])} probabilities (one per state), non-negative and summing to 1"
    try:
        values = np.asarray(dist, dtype=float)
    except (TypeError, ValueError):
        values = None
    if gaussian:
        ok = values is not None and values.shape == (2,) and bool(np.all(np.isfinite(values))) and values[1] > 0
    else:
        ok = values is not None and values.shape == (len(net.states[v]),) and bool(np.all(np.isfinite(values))) \
            and bool(np.all(values >= 0)) and abs(float(values.sum()) - 1.0) <= 1e-6
    if not ok:
        raise error("predict-distribution-invalid", variable=name, what=what, value=dist)
    return (float(values[0]), float(values[1])) if gaussian else values


def _predict_gaussian(net, targets, distributions, average):
    """:meth:`InterventionalModel.predict` of a linear Gaussian causal network: each target parentless, with the
    mean and variance given, else those the network implies for it; with ``average`` (activity interventions)
    each child of a target stops seeing it: the target's term leaves the child's regression for its mean (in
    the intercept) and its variance (in the residual variance), the child's regression averaged over the
    target's distribution."""
    means, covariance = implied_moments(net)
    parents, intercepts = list(net.parents), np.array(net.intercepts, dtype=float)
    coefficients, variances = list(net.coefficients), np.array(net.variances, dtype=float)
    for t in targets:
        v = list(net.names).index(t)
        mean, variance = distributions.get(t, (means[v], covariance[v, v]))
        if average:
            for c, ps in enumerate(parents):
                if v in ps:
                    i = ps.index(v)
                    beta = float(coefficients[c][i])
                    intercepts[c] += beta * float(mean)
                    variances[c] += beta ** 2 * float(variance)
                    parents[c] = ps[:i] + ps[i + 1:]
                    coefficients[c] = np.delete(coefficients[c], i)
        parents[v], coefficients[v] = (), np.zeros(0)
        intercepts[v], variances[v] = float(mean), float(variance)
    return LinearGaussianNetwork(net.names, tuple(parents), intercepts, tuple(coefficients), variances, "predicted")
