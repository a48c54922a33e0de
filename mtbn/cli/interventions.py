"""``mtbn learn --interventions``: what the command does with an interventional model, for discrete and continuous
tasks alike: the predicted condition's targets (``--predict``), the printed summary, ``summary.json``'s entry and
the ``interventions/`` folder."""

import csv
import os

from mtbn.cli.values import _usage_error, _UsageError
from mtbn.learn.interventional_model import CHILDREN
from mtbn.messages import register

__all__ = ["predicted_targets", "predict_condition", "children", "mechanism_lines", "summary_entry",
           "write_interventions"]

register("predict-needs-interventions", _UsageError,
         "--predict needs --interventions (the network of an unseen condition comes from the interventional model)",
         cause="--predict was given without --interventions.",
         fix="Add --interventions FILE (the tasks' targets), or leave out --predict.")


register("predict-unknown-variable", _UsageError, "--predict: {variable!r} is not a variable of the tasks",
         cause="A variable to intervene on in the predicted condition is not a column of the tasks.",
         fix="Name the targets by their column names, separated by commas.")


register("predict-no-targets", _UsageError,
         "--predict names no variable; give the targets of the condition to predict (e.g. --predict raf,mek)",
         cause="--predict was given an empty list (only commas or spaces), which would write the causal network "
               "itself as the prediction.",
         fix="Name the targets by their column names, separated by commas, or leave out --predict.")


register("predict-children-needs-predict", _UsageError,
         "--predict-children says how a predicted condition acts on its targets' children: it needs --predict",
         cause="--predict-children was given without --predict.",
         fix="Add --predict TARGETS (the condition to predict), or leave out --predict-children.")


def children(args):
    """``--predict-children``, or the default of ``InterventionalModel.predict``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``mtbn learn`` options.

    Returns
    -------
    str
    """
    return args.predict_children or CHILDREN[0]


def predict_condition(args, model, targets):
    """``--predict``: the network of the condition with ``targets`` (None without), ``--predict-children`` passed on.
    ``--predict-children`` acts only on activity interventions; with another model (e.g. "auto" chose mechanism
    changes) a note says it changed nothing.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``mtbn learn`` options.
    model : InterventionalModel
        The learned model.
    targets : list of str or None
        :func:`predicted_targets`.

    Returns
    -------
    network or None
    """
    if targets is None:
        return None
    if args.predict_children is not None and model.type != "activity":
        print(f"note: --predict-children changes nothing here: the model is {model.type!r}, not activity "
              "interventions (only those change a target's children)")
    return model.predict(targets, children=children(args))


def _named(args):
    """The variables ``--predict`` names, each once, in order."""
    return list(dict.fromkeys(v.strip() for v in args.predict.split(",") if v.strip()))


def predicted_targets(args, variables):
    """``--predict V1,V2``: the targets of the condition to predict, checked before the work (None without).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``mtbn learn`` options.
    variables : sequence of str
        The tasks' variables.

    Returns
    -------
    list of str or None
    """
    if args.predict is None:
        if args.predict_children is not None:
            raise _usage_error("predict-children-needs-predict")
        return None
    if args.interventions is None:
        raise _usage_error("predict-needs-interventions")
    targets = _named(args)
    if not targets:
        raise _usage_error("predict-no-targets")
    for v in targets:
        if v not in variables:
            raise _usage_error("predict-unknown-variable", variable=v)
    return targets


def mechanism_lines(model):
    """The printed summary of an interventional fit: the causal DAG, and each task's changed mechanisms.

    Parameters
    ----------
    model : InterventionalModel

    Returns
    -------
    list of str
    """
    lines = [f"causal DAG shared by the tasks: {model.causal_graph.n_edges} arcs ({model.type} interventions)"]
    adjacencies = model.adjacency_line()
    if adjacencies:
        lines.append("  " + adjacencies)
    for task, per in model.changed.items():
        given = model.given[task]
        kind = "observational" if given == () else "targets unknown" if given is None else \
            f"targets {', '.join(given)}"
        if task == model.reference:
            kind += "; the reference regime"
        changed = ", ".join(f"{v} ({how})" for v, how in per.items()) or "none"
        lines.append(f"  {task} ({kind}): changed mechanisms {changed}")
    return lines


def summary_entry(args, model, log_score, files):
    """``summary.json``'s ``"interventions"`` entry.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``mtbn learn`` options.
    model : InterventionalModel
        The learned model.
    log_score : float
        The model's score.
    files : str
        What the ``interventions/`` folder holds.

    Returns
    -------
    dict
    """
    entry = {"type": model.type, "further_changes": bool(args.further_changes),
             "given": {t: None if g is None else list(g) for t, g in model.given.items()},
             "changed": model.records(), "causal_edges": [list(e) for e in model.causal_graph.edges(names=True)],
             "log_score": log_score, "adjacencies": model.adjacencies, "files": files}
    if args.predict is not None:
        entry["predicted_targets"] = _named(args)
        entry["predicted_children"] = children(args) if model.type == "activity" else None  # only those
    return entry


def write_interventions(out, model, predicted, write_network):
    """``interventions/``: the causal network, the changed-mechanism table, the predicted condition.

    Parameters
    ----------
    out : str
        The output folder.
    model : InterventionalModel
        The learned model.
    predicted : network or None
        The predicted condition's network (``--predict``).
    write_network : callable
        ``write_network(folder, stem, network)`` writes one network's files (its graph's ``.edges.csv`` among them).

    Returns
    -------
    None
    """
    folder = os.path.join(out, "interventions")
    os.makedirs(folder)
    write_network(folder, "causal", model.causal_network)
    with open(os.path.join(folder, "mechanisms.csv"), "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["task", "variable", "how"])
        writer.writeheader()
        writer.writerows(model.records())
    if predicted is not None:
        write_network(folder, "predicted", predicted)
