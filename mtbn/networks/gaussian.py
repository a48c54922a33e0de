"""Linear Gaussian networks: each variable a linear function of its parents plus Gaussian noise.

:class:`LinearGaussianNetwork` holds, per variable, an intercept, one coefficient per parent and a residual
variance; :func:`fit_linear_gaussian` fits them to a task by least squares (maximum likelihood), optionally
shrunk towards the tasks' pooled estimate (the analogue of the discrete CPTs' parameter sharing);
:func:`load_gaussian_network` reads the Gaussian networks pgmpy ships (ECOLI70, MAGIC-NIAB, MAGIC-IRRI,
ARTH150, from the bnlearn repository); :func:`to_pgmpy_gaussian` gives pgmpy's
``LinearGaussianBayesianNetwork``; :func:`write_gaussian_network` and :func:`read_gaussian_network` write and
read pgmpy's JSON for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtbn.data.continuous import ContinuousData, regression_from_scatter
from mtbn.exceptions import InvalidParameterError
from mtbn.graph import partial_topological_order
from mtbn.messages import error, register

__all__ = ["LinearGaussianNetwork", "fit_linear_gaussian", "fit_family", "within_covariance", "implied_moments",
           "load_gaussian_network", "to_pgmpy_gaussian", "write_gaussian_network", "read_gaussian_network",
           "GAUSSIAN_NETWORKS"]

#: The Gaussian networks pgmpy ships (``pgmpy/utils/example_models/<name>.json``).
GAUSSIAN_NETWORKS = ("ecoli70", "magic-niab", "magic-irri", "arth150")

register("gaussian-network-unknown", InvalidParameterError,
         "unknown Gaussian network {name!r}; the shipped ones are {choices}.",
         cause="load_gaussian_network reads the linear Gaussian networks pgmpy ships with the bnlearn repository.",
         fix="Use one of the names listed.")
register("gaussian-network-columns", InvalidParameterError,
         "the data lack the network's variable {name!r}.",
         cause="A linear Gaussian network scores rows that hold every one of its variables.",
         fix="Give data with the network's columns (any order).")


@dataclass(frozen=True, eq=False)
class LinearGaussianNetwork:
    """A linear Gaussian Bayesian network.

    Parameters
    ----------
    names : tuple of str
        The variables.
    parents : tuple of tuple of int
        Each variable's parents (column indices), a DAG.
    intercepts : ndarray of float, shape (n_vars,)
        Each variable's intercept.
    coefficients : tuple of ndarray
        Each variable's coefficients, one per parent in the order of ``parents``.
    variances : ndarray of float, shape (n_vars,)
        Each variable's residual variance (> 0).
    name : str, optional
        The network's name (a learned network: its task's).
    """

    names: Any
    parents: Any
    intercepts: Any
    coefficients: Any
    variances: Any
    name: Any = None

    @property
    def n_vars(self):
        """The number of variables."""
        return len(self.names)

    @property
    def edges(self):
        """The edges ``(parent, child)`` by name, child by child.

        Returns
        -------
        list of tuple of str
        """
        return [(self.names[p], self.names[v]) for v, ps in enumerate(self.parents) for p in ps]

    def _columns(self, data):
        try:
            return [data.index(v) for v in self.names]
        except ValueError:
            missing = next(v for v in self.names if v not in data.names)
            raise error("gaussian-network-columns", name=missing) from None

    def log_likelihood(self, data, per_row=False):
        """The log-likelihood of ``data``'s rows (natural log).

        Parameters
        ----------
        data : ContinuousData
            Rows holding every variable of the network (matched by name).
        per_row : bool, default False
            Return each row's log-likelihood instead of their sum.

        Returns
        -------
        float or ndarray of float
            The sum over rows, or one value per row.
        """
        columns = self._columns(data)
        x = data.values if columns == list(range(data.n_vars)) else data.values[:, columns]  # no copy in order
        total = np.zeros(len(x))
        for v, ps in enumerate(self.parents):
            mean = self.intercepts[v] + (x[:, list(ps)] @ self.coefficients[v] if ps else 0.0)
            resid = x[:, v] - mean
            total += -0.5 * (np.log(2 * np.pi * self.variances[v]) + resid ** 2 / self.variances[v])
        return total if per_row else float(total.sum())

    def sample(self, n_rows, random_state=None, name="data"):
        """Draw rows from the network (ancestral sampling).

        Parameters
        ----------
        n_rows : int
            How many rows.
        random_state : int or numpy.random.Generator, optional
            Seed of the draw.
        name : str, default "data"
            The name of the data returned.

        Returns
        -------
        ContinuousData
        """
        rng = np.random.default_rng(random_state)
        x = np.zeros((int(n_rows), self.n_vars))
        for v in partial_topological_order([list(p) for p in self.parents]):
            ps = list(self.parents[v])
            mean = self.intercepts[v] + (x[:, ps] @ self.coefficients[v] if ps else 0.0)
            x[:, v] = mean + rng.normal(scale=np.sqrt(self.variances[v]), size=len(x))
        return ContinuousData(x, self.names, name)


def fit_linear_gaussian(parents, data, *, pooled=None, strength=0.0, name=None):
    """Fit each variable's regression on its parents by least squares (maximum likelihood).

    With ``pooled`` (the tasks whose estimate is shared, this one among them) and ``strength`` > 0, each
    family's scatter matrix is the task's own plus ``strength`` pseudo-rows of the tasks' pooled *within-task*
    covariance (each task centred at its own mean, so differences between the tasks' means do not enter the
    slopes): the coefficients and residual variances are shrunk towards the pooled within-task regression
    (``strength = inf``: that regression itself), while the intercepts keep the task's own means. This is the
    analogue of the discrete CPTs' parameter sharing.

    Parameters
    ----------
    parents : sequence of sequence of int
        Each variable's parents (column indices of ``data``), a DAG.
    data : ContinuousData
        The task's rows.
    pooled : sequence of ContinuousData or ndarray, optional
        The tasks whose within-task covariance is shrunk towards (same columns as ``data``), or that covariance
        (:func:`within_covariance`) when several fits share it.
    strength : float, default 0.0
        Pseudo-rows of the pooled covariance (0: the task's own fit; inf: the pooled regression).
    name : str, optional
        The network's name (default: the data's).

    Returns
    -------
    LinearGaussianNetwork

    Examples
    --------
    >>> import numpy as np
    >>> from mtbn.data import ContinuousData
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=20000)
    >>> d = ContinuousData(np.column_stack([x, 1.0 + 2.0 * x + 0.5 * rng.normal(size=20000)]), ["x", "y"])
    >>> net = fit_linear_gaussian([(), (0,)], d)
    >>> round(float(net.intercepts[1]), 1), round(float(net.coefficients[1][0]), 1), round(float(net.variances[1]), 2)
    (1.0, 2.0, 0.25)
    """
    parents = tuple(tuple(int(p) for p in ps) for ps in parents)
    n = data.n_samples
    mean, scatter = data.centred_scatter()
    if pooled is not None and strength > 0:
        cov = pooled if isinstance(pooled, np.ndarray) else within_covariance(pooled)
        if np.isinf(strength):
            n, scatter = 1.0, cov
        else:
            n, scatter = n + float(strength), scatter + float(strength) * cov
    intercepts, coefficients, variances = np.zeros(len(parents)), [], np.zeros(len(parents))
    for v, ps in enumerate(parents):
        intercepts[v], beta, variances[v] = fit_family(mean, scatter, n, v, ps)
        coefficients.append(beta)
    return LinearGaussianNetwork(tuple(data.names), parents, intercepts, tuple(coefficients), variances,
                                 data.name if name is None else name)


def fit_family(mean, scatter, n, child, parents):
    """One variable's least-squares regression on its parents, from the rows' means and scatter matrix.

    Parameters
    ----------
    mean : ndarray of float, shape (n_vars,)
        The rows' column means.
    scatter : ndarray of float, shape (n_vars, n_vars)
        The scatter matrix about them.
    n : float
        The number of rows (with pseudo-rows, their count added).
    child : int
        The variable regressed.
    parents : sequence of int
        Its parents (columns).

    Returns
    -------
    intercept : float
    coefficients : ndarray of float, one per parent
    variance : float
        The residual variance, floored at ``1e-12`` of the child's variance.
    """
    p = list(parents)
    beta, resid = regression_from_scatter(scatter, child, p)
    intercept = mean[child] - (mean[p] @ beta if p else 0.0)
    return intercept, beta, max(float(resid) / n, 1e-12 * max(float(scatter[child, child]) / n, 1e-300))


def implied_moments(network):
    """The means and covariance matrix of every variable that a linear Gaussian network implies.

    With ``B[v, p]`` the coefficient of parent ``p`` in ``v``'s regression, ``b`` the intercepts and ``D`` the
    residual variances: ``mean = (I - B)^-1 b`` and ``covariance = (I - B)^-1 D (I - B)^-T``.

    Parameters
    ----------
    network : LinearGaussianNetwork
        The network (its parents a DAG).

    Returns
    -------
    means : ndarray of float, shape (n_vars,)
    covariance : ndarray of float, shape (n_vars, n_vars)

    Examples
    --------
    >>> net = LinearGaussianNetwork(("x", "y"), ((), (0,)), np.array([1.0, 0.0]), (np.zeros(0), np.array([2.0])),
    ...                             np.array([1.0, 1.0]))
    >>> means, cov = implied_moments(net)
    >>> means.tolist(), cov.tolist()
    ([1.0, 2.0], [[1.0, 2.0], [2.0, 5.0]])
    """
    n = network.n_vars
    b = np.zeros((n, n))
    for v, ps in enumerate(network.parents):
        for p, beta in zip(ps, network.coefficients[v]):
            b[v, p] = beta
    inverse = np.linalg.inv(np.eye(n) - b)
    means = inverse @ np.asarray(network.intercepts, dtype=float)
    return means, inverse @ np.diag(np.asarray(network.variances, dtype=float)) @ inverse.T


def within_covariance(tasks):
    """The tasks' pooled within-task covariance: every task centred at its own mean, ``sum_t S_t / sum_t n_t``.

    Parameters
    ----------
    tasks : sequence of ContinuousData
        The tasks (same columns).

    Returns
    -------
    ndarray of float, shape (n_vars, n_vars)
    """
    within = sum(d.centred_scatter()[1] for d in tasks)
    return within / sum(d.n_samples for d in tasks)


def load_gaussian_network(name):
    """One of the linear Gaussian networks pgmpy ships (:data:`GAUSSIAN_NETWORKS`).

    Parameters
    ----------
    name : str
        ``"ecoli70"``, ``"magic-niab"``, ``"magic-irri"`` or ``"arth150"`` (case-insensitive).

    Returns
    -------
    LinearGaussianNetwork

    Examples
    --------
    >>> net = load_gaussian_network("ecoli70")
    >>> net.n_vars, len(net.edges)
    (46, 70)
    """
    from importlib.resources import files

    key = str(name).lower()
    if key not in GAUSSIAN_NETWORKS:
        raise error("gaussian-network-unknown", name=name, choices=", ".join(map(repr, GAUSSIAN_NETWORKS)))
    spec = json.loads((files("pgmpy") / "utils" / "example_models" / f"{key}.json").read_text())
    return _from_spec(spec, key)


def _from_spec(spec, name):
    """The network a pgmpy JSON specification (``nodes``, ``arcs``, ``cpds``) describes."""
    names = tuple(spec["nodes"])
    index = {v: i for i, v in enumerate(names)}
    parents, intercepts, coefficients, variances = [], [], [], []
    for v in names:
        cpd = spec["cpds"][v]
        ps = list(cpd["parents"])
        parents.append(tuple(index[p] for p in ps))
        coefs = cpd["coefficients"]
        intercepts.append(float(coefs["(Intercept)"][0]))
        coefficients.append(np.array([float(coefs[p][0]) for p in ps]))
        variances.append(float(cpd["variance"][0]))
    return LinearGaussianNetwork(names, tuple(parents), np.array(intercepts), tuple(coefficients),
                                 np.array(variances), name)


def write_gaussian_network(network, path):
    """Write the network as pgmpy's JSON for linear Gaussian networks.

    The file is the one ``pgmpy.models.LinearGaussianBayesianNetwork.save`` writes (``nodes``, ``arcs``, and per
    variable ``cpds``: its ``parents``, ``coefficients`` with ``"(Intercept)"`` and one entry per parent, each a
    one-element list, and the residual ``variance``), plus the network's ``name``: pgmpy's
    ``LinearGaussianBayesianNetwork.load`` and :func:`read_gaussian_network` read it.

    Parameters
    ----------
    network : LinearGaussianNetwork
        The network written.
    path : str or os.PathLike
        The file written (``.json``).
    """
    cpds = {}
    for v, ps in enumerate(network.parents):
        coefs = {"(Intercept)": [float(network.intercepts[v])]}
        coefs.update({network.names[p]: [float(b)] for p, b in zip(ps, network.coefficients[v])})
        cpds[network.names[v]] = {"parents": [network.names[p] for p in ps], "coefficients": coefs,
                                  "variance": [float(network.variances[v])]}
    spec = {"name": network.name, "nodes": list(network.names), "arcs": [list(e) for e in network.edges],
            "cpds": cpds}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(spec, fh, indent=1)


def read_gaussian_network(path):
    """Read a linear Gaussian network from pgmpy's JSON (what :func:`write_gaussian_network` and pgmpy write).

    Parameters
    ----------
    path : str or os.PathLike
        The file read.

    Returns
    -------
    LinearGaussianNetwork
        Named by the file's ``name`` when it has one.
    """
    with open(path, encoding="utf-8") as fh:
        spec = json.load(fh)
    return _from_spec(spec, spec.get("name"))


def to_pgmpy_gaussian(network):
    """The network as pgmpy's ``LinearGaussianBayesianNetwork``.

    Parameters
    ----------
    network : LinearGaussianNetwork
        The network converted.

    Returns
    -------
    pgmpy.models.LinearGaussianBayesianNetwork
        One ``LinearGaussianCPD`` per variable (``beta``: the intercept, then the coefficients; ``std``: the
        residual standard deviation).
    """
    from pgmpy.factors.continuous import LinearGaussianCPD
    from pgmpy.models import LinearGaussianBayesianNetwork

    model = LinearGaussianBayesianNetwork()
    model.add_nodes_from(network.names)
    model.add_edges_from(network.edges)
    cpds = []
    for v, ps in enumerate(network.parents):
        beta = [float(network.intercepts[v])] + [float(b) for b in network.coefficients[v]]
        cpds.append(LinearGaussianCPD(network.names[v], beta, float(np.sqrt(network.variances[v])),
                                      [network.names[p] for p in ps]))
    model.add_cpds(*cpds)
    if network.name:
        model.name = network.name
    return model
