"""The page of a multitask fit (``mtbn learn --report``).

Formats a :class:`~mtbn.learn.MultitaskResult`: the penalty used and the
negative-transfer guard's verdict (``result.transfer``), the tasks, the
penalty path with the chosen point, the structures and, with a
:class:`~mtbn.bootstrap.BootstrapResult`, the bootstrap frequencies.
"""

from mtbn._validation import format_penalty
from mtbn.report.document import _Document
from mtbn.report.figures import _png
from mtbn.report.formatting import _edge_text, format_number
from mtbn.report.structure_figures import plot_mechanisms, plot_tasks, task_strengths
from mtbn.report.structures import _tasks_with_edge

__all__ = []


def _learn_summary(doc, result):
    tr = result.transfer or {}
    items = [f"Penalty used: {format_penalty(result.penalty)}" + (" (independent learning)" if result.penalty == 0
                                                                  else "")]
    if tr.get("message"):
        items.append(tr["message"])
    rel = tr.get("relatedness")
    if rel:
        items.append(f"Relatedness test: mean rank correlation of the tasks' pairwise dependences "
                     f"{format_number(rel['statistic'], 3)} (about 0 for unrelated tasks), "
                     f"p = {format_number(rel['p_value'], 3)} over {rel['permutations']} relabellings")
    doc.box(items)


def _task_rows(result, names, graphs):
    """One row per task; a task whose held-out gain and relatedness test disagree says so in both cells."""
    tr = result.transfer or {}
    per_task = tr.get("tasks") or {}
    level = (tr.get("relatedness") or {}).get("level")
    rows = []
    for t, name in enumerate(names):
        v = per_task.get(name, {})
        r = v.get("relatedness") or {}
        verdict, p = v.get("verdict", ""), ""
        if r:
            p = format_number(r["p_value"], 3)
            if level is not None and not r["p_value"] < level:
                p += f" (not below {format_number(level, 3)}: not shown related)"
                if verdict == "helped":
                    verdict = "helped on held-out rows (regularisation: not shown related)"
        rows.append([name, str(graphs[name].n_edges), format_number(result.task_log_likelihoods[t], 8),
                     "" if v.get("gain") is None else format_number(v["gain"], 4),
                     "" if v.get("se") is None else format_number(v["se"], 2), verdict, p])
    return rows


def _penalty_path_section(doc, result):
    """The grid of penalties with the one the rule selected highlighted (``result.transfer``)."""
    if not result.penalty_path:
        return
    tr = result.transfer or {}
    selected = tr.get("selected_penalty")
    doc.heading("Penalty path")
    doc.para("Each penalty of the grid, learned on the training folds and scored on the held-out rows. The row "
             f"marked chosen is the penalty that rule {tr.get('rule', 'n/a')!r} selected "
             f"({format_penalty(selected) if selected is not None else 'n/a'}); the negative-transfer guard then compared it with penalty 0 (its "
             "verdict is in the summary above).")
    rows = [[format_penalty(p.penalty), format_number(p.validation_log_likelihood, 6),
             "" if p.se_vs_best is None else format_number(p.se_vs_best, 2), str(sum(g.n_edges for g in p.graphs)),
             "chosen" if p.penalty == selected else ""] for p in result.penalty_path]
    doc.table(["penalty", "held-out log-likelihood per row", "SE vs best", "edges (all tasks)", ""], rows,
              numeric=(0, 1, 2, 3),
              row_classes={i: "chosen" for i, p in enumerate(result.penalty_path) if p.penalty == selected})


def _differing_edges_section(doc, names, graphs, strength):
    """The edges some tasks have and others do not, rarest first, with their bootstrap frequencies."""
    having = _tasks_with_edge({n: graphs[n].edges(names=True) for n in names})
    differ = sorted((e for e, ts in having.items() if len(ts) < len(names)), key=lambda e: (len(having[e]), e))
    doc.heading("Edges that differ between tasks")
    if not differ:
        doc.para("Every task has the same edges.")
        return
    rows = [[_edge_text(e), ", ".join(having[e])]
            + ([format_number(strength[n].get(e, 0.0), 3) for n in names] if strength else []) for e in differ]
    doc.para(f"{len(differ)} edge(s) are in some tasks but not all"
             + (" (bootstrap columns: how often each task's replicates have the adjacency)." if strength else "."))
    doc.table(["edge", "tasks that have it"] + ([f"bootstrap: {n}" for n in names] if strength else []), rows,
              numeric=tuple(range(2, 2 + (len(names) if strength else 0))))


def _sharing_section(doc, result, names, top=20):
    """The parameter-sharing strength and, per shared family, how far each task's own CPT is from the pooled one."""
    doc.heading("Parameter sharing")
    strength = result.sharing_strength
    doc.para(f"Each task's CPTs were shrunk toward the pooled CPT of the tasks that share the family, with strength "
             f"{format_number(strength, 4)} (pseudo-counts of the pooled estimate per parent configuration; 0 is "
             "each task alone, inf the pooled table). Per family shared by two or more tasks: the KL divergence "
             "(nats) of the pooled table from the task's own, weighted by the task's parent configurations; the "
             "largest first. A large value is a family where this task differs from the others.")
    chosen = (result.transfer or {}).get("sharing")
    if chosen:
        doc.para(chosen["message"][0].upper() + chosen["message"][1:] + ".")
    per = {}
    for r in result.sharing_distances or []:
        per.setdefault((r["child"], tuple(r["parents"])), {})[r["task"]] = r["kl"]
    if not per:
        doc.para("No family is shared by two or more tasks.")
        return
    order = sorted(per, key=lambda f: (-max(per[f].values()), f))
    rows = [[f"{child} ← {', '.join(parents)}" if parents else child]
            + [format_number(per[(child, parents)][n], 4) if n in per[(child, parents)] else ""
               for n in names] for child, parents in order[:top]]
    doc.table(["family (child ← parents)"] + list(names), rows, numeric=tuple(range(1, 1 + len(names))))
    if len(order) > top:
        doc.para(f"{len(order) - top} more shared families (all in summary.json's sharing_distances).")


def _bootstrap_section(doc, bootstrap):
    doc.heading("Bootstrap")
    what = {True: "each learning one structure from the tasks' rows pooled, as the learner did",
            False: "each at the learner's penalty",
            None: "each rerunning the learner, its decisions its own"}[bootstrap.pooled]
    if bootstrap.alone:
        what += f"; {', '.join(bootstrap.alone)} learned alone"
    doc.para(f"{bootstrap.edges.shape[0]} bootstrap replicates (rows resampled within every task; {what}). "
             "Per adjacency: in "
             "how many replicates it is in every task, in exactly one task, or in none; the adjacencies most often "
             "task-specific first. High frequencies are well calibrated; middle ones overstate (docs/results.md).")
    top = bootstrap.edge_table().sort_values(["one_task", "all_tasks"], ascending=[False, False]).head(30)
    doc.table(["x", "y", "in all tasks", "in one task", "in none"],
              [[r.x, r.y, format_number(r.all_tasks, 3), format_number(r.one_task, 3), format_number(r.none, 3)]
               for r in top.itertuples()], numeric=(2, 3, 4))


def _interventions_page(result, bootstrap=None):
    """The page of an interventional fit: the causal DAG, each task's changed mechanisms, the bootstrap."""
    model = result.interventions
    names = [str(n) for n in result.task_names]
    doc = _Document("Interventional conditions: one causal DAG")
    mechanism = "CPT" if hasattr(result, "task_log_likelihoods") else "linear regression"
    doc.para(f"mtbn learned one causal DAG shared by {len(names)} experimental conditions of one system, each family's "
             f"{mechanism} tied across the conditions except where a condition changes its mechanism ({model.type} "
             "interventions; docs/guide/interventions.rst).", lead=True)
    adjacencies = model.adjacency_line()
    doc.box([f"Causal DAG: {model.causal_graph.n_edges} arcs; score of the model on all rows pooled "
             f"{format_number(result.log_score, 8)}",
             f"Changed mechanisms: {sum(1 for r in model.records() if r['how'] == 'given')} given, "
             f"{sum(1 for r in model.records() if r['how'] == 'learned')} found by the search"
             + (f", {sum(1 for r in model.records() if r['how'] == 'activity')} children of targets (activity)"
                if model.type == "activity" else "")]
            + ([adjacencies[0].upper() + adjacencies[1:]] if adjacencies else []))
    doc.heading("Changed mechanisms")
    table = model.table()
    rows = [[t, "observational" if model.given[t] == () else "unknown" if model.given[t] is None
             else ", ".join(model.given[t]), ", ".join(f"{v} ({how})" for v, how in model.changed[t].items())
             or "none"] for t in table.index]
    doc.table(["task", "targets given", "changed mechanisms"], rows)
    doc.figure(lambda: _png(plot_mechanisms(model.causal_graph, model.changed)),
               "the causal DAG with each task's changed mechanisms",
               "The causal DAG once per task: orange, a given target's mechanism; blue, a mechanism the search "
               "found changed in that task.")
    doc.heading("Causal DAG")
    doc.table(["from", "to"], [[u, v] for u, v in model.causal_graph.edges(names=True)])
    if bootstrap is not None:
        _bootstrap_section(doc, bootstrap)
        frequency = bootstrap.mechanism_frequency()
        if frequency is not None:
            doc.para("How often each mechanism changes in each task over the replicates (every replicate runs the "
                     "interventional learner on rows drawn within every task); variables that never change left out.")
            kept = [c for c in frequency.columns if frequency[c].any()]
            doc.table(["task"] + kept, [[t] + [format_number(frequency.loc[t, c], 3) for c in kept]
                                        for t in frequency.index], numeric=tuple(range(1, 1 + len(kept))))
    return doc


def _gaussian_page(result, options=None, top=40, bootstrap=None):
    """The page of a :class:`~mtbn.learn.gaussian.GaussianResult` (linear Gaussian networks): the verdict, the
    tasks, the penalty path, the structures, the edges that differ, each variable's regression per task and (with
    ``bootstrap``) the replicates' frequencies."""
    names = [str(n) for n in result.task_names]
    graphs = dict(zip(names, result.graphs))
    score = (options or {}).get("score", "bge")
    doc = _Document("Multitask structure learning: Gaussian networks")
    doc.para(f"mtbn learned one linear Gaussian network for each of {len(names)} continuous task(s) jointly: the "
             f"{score} score per task and a prior that penalises edges that differ between tasks, with penalty "
             "delta between 0 (independent learning) and 1 (one shared structure).", lead=True)
    tr = result.transfer or {}
    items = [f"Penalty used: {format_penalty(result.penalty)}" + (" (independent learning)" if result.penalty == 0
                                                                  else "")]
    if tr.get("message"):
        items.append(tr["message"])
    if result.sharing_strength is not None:
        items.append(f"Regression coefficients shrunk toward the tasks' pooled within-task regression with "
                     f"{format_number(result.sharing_strength, 4)} pseudo-rows")
    doc.box(items)
    doc.heading("Tasks")
    per_task = tr.get("tasks") or {}
    rows = []
    for name in names:
        v = per_task.get(name, {})
        rows.append([name, str(graphs[name].n_edges), "" if v.get("gain") is None else format_number(v["gain"], 4),
                     "" if v.get("se") is None else format_number(v["se"], 2), v.get("verdict", "")])
    doc.para("Per task: its edges and, on held-out rows (cross-validation), how much the chosen penalty gained over "
             "independent learning (nats per row, with its paired standard error).")
    doc.table(["task", "edges", "held-out gain", "SE", "transfer"], rows, numeric=(1, 2, 3))
    if result.penalty_path:
        doc.heading("Penalty path")
        doc.para("Each penalty of the grid, learned on the training folds and scored on the held-out rows (Gaussian "
                 "log-likelihood per row); the row marked chosen is the one the selection rule chose, which the "
                 "negative-transfer guard then checked (the penalty used and its verdict are in the summary above).")
        selected = tr.get("selected_penalty", result.penalty)
        doc.table(["penalty", "held-out log-likelihood per row", "SE vs best", ""],
                  [[format_penalty(p), format_number(m, 6), format_number(e, 2), "chosen" if p == selected else ""]
                   for p, m, e in result.penalty_path], numeric=(0, 1, 2),
                  row_classes={i: "chosen" for i, (p, _, _) in enumerate(result.penalty_path) if p == selected})
    _structures_section(doc, names, graphs, bootstrap)
    doc.heading("Regressions")
    doc.para("Each variable as its network fits it in each task: its parents' coefficients and the residual "
             "standard deviation (sd).")
    variables = list(result.networks[0].names)
    cells = []
    for v in variables[:top]:
        row = [v]
        for net in result.networks:
            i = list(net.names).index(v) if v in net.names else None
            if i is None:
                row.append("")
                continue
            terms = ", ".join(f"{net.names[p]} {format_number(b, 3)}" for p, b in zip(net.parents[i],
                                                                                      net.coefficients[i]))
            row.append((terms + "; " if terms else "") + f"sd {format_number(float(net.variances[i]) ** 0.5, 3)}")
        cells.append(row)
    doc.table(["variable"] + names, cells)
    if len(variables) > top:
        doc.para(f"{len(variables) - top} more variables (every coefficient is in DIR/<task>.gaussian.json, pgmpy's JSON).")
    if bootstrap is not None:
        _bootstrap_section(doc, bootstrap)
    return doc


def _structures_section(doc, names, graphs, bootstrap):
    """The tasks' structures on one layout (edge widths: the bootstrap's frequencies) and the edges that differ."""
    doc.heading("Structures")
    strength = task_strengths(bootstrap, names)  # None without a bootstrap
    doc.figure(lambda: _png(plot_tasks(graphs, strength=strength)), "the tasks' structures",
               "Every task on one layout; an edge's colour says how many tasks have it (grey: all, red: one)"
               + ("; its width, how often the bootstrap replicates have it." if strength else "."))
    _differing_edges_section(doc, names, graphs, strength)


def _learn_page(result, bootstrap=None, options=None):
    """The page of a :class:`~mtbn.learn.MultitaskResult` (``options`` is shown as provenance only), or of a
    :class:`~mtbn.learn.gaussian.GaussianResult`."""
    if getattr(result, "interventions", None) is not None:  # interventional conditions, discrete or continuous
        return _interventions_page(result, bootstrap)
    if not hasattr(result, "task_log_likelihoods"):  # linear Gaussian networks
        return _gaussian_page(result, options, bootstrap=bootstrap)
    names = [str(n) for n in result.task_names]
    graphs = dict(zip(names, result.graphs))
    doc = _Document("Multitask structure learning")
    doc.para(f"mtbn learned one Bayesian network for each of {len(names)} task(s) jointly: BDeu per task and a prior "
             "that penalises edges that differ between tasks, with penalty delta between 0 (independent learning) "
             "and 1 (one shared structure).", lead=True)
    _learn_summary(doc, result)
    doc.heading("Tasks")
    doc.para("Per task: its edges, its BDeu score, and on held-out rows (cross-validation) how much the chosen "
             "penalty gained over independent learning (nats per row, with its paired standard error), and the "
             "relabelling test of that task against the others (small p: its dependences are like the others').")
    doc.table(["task", "edges", "BDeu", "held-out gain", "SE", "transfer", "relatedness p"],
              _task_rows(result, names, graphs), numeric=(1, 2, 3, 4, 6))
    _penalty_path_section(doc, result)
    _structures_section(doc, names, graphs, bootstrap)
    if result.sharing_strength is not None:
        _sharing_section(doc, result, names)
    if bootstrap is not None:
        _bootstrap_section(doc, bootstrap)
    return doc
