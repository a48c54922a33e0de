"""Real data shipped with mtbn (:func:`load_sachs_conditions`), the way scikit-learn ships its data sets.

The files live in the top-level ``data/`` folder, installed as the package
``mtbn.datasets`` and read with :mod:`importlib.resources`, so they are found
from an installed package and from a source checkout alike. pandas is
imported inside the loader only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SachsConditions", "load_sachs_conditions", "SACHS_INTERVENTIONS", "shipped_bytes"]


def shipped_bytes(filename):
    """The bytes of a file of the shipped data: the installed package ``mtbn.datasets``, else (a source
    checkout, where ``data/`` is not a package) the repository's ``data/`` folder.

    Parameters
    ----------
    filename : str
        The file's name in the shipped data, e.g. ``"sachs_conditions.csv.gz"`` or ``"asia.bif.gz"``.

    Returns
    -------
    bytes
        The file's content, as stored (compressed files are not decompressed).
    """
    from pathlib import Path

    try:
        from importlib.resources import files

        return (files("mtbn.datasets") / filename).read_bytes()
    except (ImportError, OSError, TypeError, ValueError):
        return (Path(__file__).resolve().parents[2] / "data" / filename).read_bytes()

#: The nine conditions of Sachs et al. (2005): ``name -> (treatment, intervened variables, effect)``;
#: effect is "inhibits", "activates" or "" (general stimulation only). From the paper's Table 1.
SACHS_INTERVENTIONS = {
    "1-cd3cd28": ("anti-CD3 + anti-CD28 (general stimulation)", (), ""),
    "2-cd3cd28-icam2": ("anti-CD3 + anti-CD28 + ICAM-2", (), ""),
    "3-cd3cd28-aktinhib": ("anti-CD3 + anti-CD28 + AKT inhibitor", ("pakts473",), "inhibits"),
    "4-cd3cd28-g0076": ("anti-CD3 + anti-CD28 + G06976", ("PKC",), "inhibits"),
    "5-cd3cd28-psitect": ("anti-CD3 + anti-CD28 + Psitectorigenin", ("PIP2",), "inhibits"),
    "6-cd3cd28-u0126": ("anti-CD3 + anti-CD28 + U0126", ("pmek",), "inhibits"),
    "7-cd3cd28-ly": ("anti-CD3 + anti-CD28 + LY294002 (PI3K)", ("PIP3", "pakts473"), "inhibits"),
    "8-pma": ("PMA", ("PKC",), "activates"),
    "9-b2camp": ("beta2-cAMP", ("PKA",), "activates"),
}

_DESCRIPTION = (
    "Flow-cytometry intensities of 11 phosphorylated proteins and phospholipids in single human T cells under "
    "nine experimental conditions (Sachs, Perez, Pe'er, Lauffenburger & Nolan, Science 308 (2005) 523-529), one "
    "task per condition, 707-913 cells each, continuous (discretise before learning). Rows: the 7,466 rows "
    "shipped as cdt/data/resources/cyto_full_data.csv in the Causal Discovery Toolbox 0.6.0 (MIT licence), "
    "split by the published per-condition row counts. consensus: the 18 arcs of the paper's consensus network "
    "(one network for all conditions; there is no true network per condition)."
)


@dataclass(frozen=True)
class SachsConditions:
    """What :func:`load_sachs_conditions` returns.

    Parameters
    ----------
    tasks : dict of str -> pandas.DataFrame
        One DataFrame of float intensities per condition, in the paper's order.
    interventions : dict of str -> tuple
        :data:`SACHS_INTERVENTIONS`.
    consensus : list of (str, str)
        The consensus network's arcs (cause, effect).
    description : str
        Provenance.
    """

    tasks: dict
    interventions: dict
    consensus: list
    description: str

    def intervention_targets(self):
        """``{condition: [target, ...]}``, the form ``interventions=`` of the learners takes (an empty list:
        the general stimulation alone, observational here).

        Returns
        -------
        dict of str to list of str
            Each condition's name -> the variables its treatment intervenes on.

        Examples
        --------
        >>> load_sachs_conditions().intervention_targets()["7-cd3cd28-ly"]
        ['PIP3', 'pakts473']
        """
        return {name: list(targets) for name, (_, targets, _) in self.interventions.items()}


def load_sachs_conditions() -> SachsConditions:
    """The Sachs et al. (2005) signalling data: nine conditions, 11 continuous variables each.

    Returns
    -------
    SachsConditions
        The nine conditions' data (7,466 rows in all), :data:`SACHS_INTERVENTIONS`, the 18 arcs of the
        consensus network and the data's provenance.

    Examples
    --------
    >>> sachs = load_sachs_conditions()
    >>> {name: len(frame) for name, frame in sachs.tasks.items()}["5-cd3cd28-psitect"]
    810
    >>> sachs.interventions["6-cd3cd28-u0126"][1:]
    (('pmek',), 'inhibits')
    >>> len(sachs.consensus)
    18
    """
    import io

    import pandas as pd

    frame = pd.read_csv(io.BytesIO(shipped_bytes("sachs_conditions.csv.gz")), compression="gzip")
    tasks = {name: part.drop(columns="condition").reset_index(drop=True)
             for name, part in frame.groupby("condition", sort=False)}
    edges = pd.read_csv(io.BytesIO(shipped_bytes("sachs_consensus_edges.csv")), dtype=str)
    consensus = [(str(a), str(b)) for a, b in edges[["Cause", "Effect"]].itertuples(index=False)]
    return SachsConditions(tasks, dict(SACHS_INTERVENTIONS), consensus, _DESCRIPTION)
