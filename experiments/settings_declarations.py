"""How many places declare each learner setting (issue 33): run on a checkout, before and after a change.

Run: ``python experiments/settings_declarations.py [CHECKOUT]`` (default: this one)

Counts, over ``mtbn/``: function and method parameters with a default named
as one of the 33 settings of ``learn_structures`` (``scoring`` counts as
``score``), dataclass fields with a default of those names, command-line
options with the setting's flag, and ``Setting(...)`` declarations; and
lists the largest explicit signatures. A crude count (the ``random_state``
of ``mtbn.networks.sample`` is counted although it is that function's own
seed), meant for before/after comparison.
"""
import ast, pathlib, sys, collections
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1]) / "mtbn"
NAMES = {"prior": "--prior", "penalty": "--penalty", "reversal": "--reversal", "score": "--score",
         "equivalent_sample_size": "--ess", "max_parents": "--max-parents", "start": "--start", "cv": "--cv",
         "validation": "--validation", "selection_rule": None, "force_transfer": "--force-transfer",
         "penalty_grid": None, "warm_start": None, "penalty_search": "--penalty-search", "solver": None,
         "pair_weights": None, "edge_penalty": None, "structure_log_prior": None, "required_edges": None,
         "forbidden_edges": None, "tiers": None, "knowledge": None, "n_restarts": "--restarts", "tabu_length": None,
         "max_tabu_iter": None, "n_joint_restarts": "--joint-restarts", "max_iter": None, "random_state": "--seed",
         "n_jobs": "--jobs", "task_column": None, "progress": None, "parameter_sharing": "--share-parameters",
         "transfer_per_task": "--transfer-per-task"}
count = collections.Counter(); where = collections.defaultdict(list); sizes = []
for path in root.rglob("*.py"):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = [p.arg for p in a.args + a.kwonlyargs if p.arg != "self"]
            sizes.append((len(params), f"{path.relative_to(root.parent)}:{node.name}"))
            defaults = a.kw_defaults + [None] * 0
            kw = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
            pos = [p.arg for p in a.args[len(a.args) - len(a.defaults):]]
            for n in kw + pos:
                if n in NAMES or n == "scoring":
                    key = "score" if n == "scoring" else n
                    count[key] += 1; where[key].append(f"{path.name}:{node.name}")
        if isinstance(node, ast.ClassDef):
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None \
                        and st.target.id in NAMES:
                    count[st.target.id] += 1; where[st.target.id].append(f"{path.name}:{node.name} field")
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" and node.args \
                and isinstance(node.args[0], ast.Constant):
            for n, flag in NAMES.items():
                if flag and node.args[0].value == flag:
                    count[n] += 1; where[n].append(f"{path.name}:add_argument")
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Setting" and node.args \
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in NAMES:
            count[node.args[0].value] += 1; where[node.args[0].value].append(f"{path.name}:Setting")
tot = sum(count[n] for n in NAMES)
print(f"declarations of the {len(NAMES)} learn_structures settings: {tot} (mean {tot/len(NAMES):.2f}, max {max(count[n] for n in NAMES)})")
for n in ("penalty", "n_restarts", "n_joint_restarts", "equivalent_sample_size", "random_state", "n_jobs", "validation"):
    print(f"  {n}: {count[n]}  {sorted(where[n])}")
print("largest signatures:", sorted(sizes, reverse=True)[:6])
