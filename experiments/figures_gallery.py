"""Every figure mtbn draws, on ASIA, ALARM and the Sachs conditions (issue 45): docs/img/gallery/ and
docs/guide/figures.rst.

Run: ``python experiments/figures_gallery.py`` (about 3 minutes on 2 cores). ``--check [--sets asia]`` draws
into a temporary folder and checks that the page lists exactly the figures and captions drawn (the slow tests
run it on ASIA).

The figures are the ones the reports embed, drawn by the same commands a
user runs (``mtbn learn --report``, ``relatedness``, ``select``, ``cluster``,
``bench``), taken out of each ``report.html`` with its caption:

* ASIA: three samples of the shipped network, 500 rows each;
* ALARM: three tasks of ``mtbn bench alarm`` (each edge deleted with
  probability 0.05), 500 rows each;
* Sachs: the nine shipped conditions, discretised with ``quantile:3``.

Every run is seeded, so the figures are the same from run to run.
"""

import base64
import html
import os
import re
import shutil
import tempfile

from _common import HERE

from mtbn.benchmarks import make_problem
from mtbn.cli import main as mtbn
from mtbn.data import load_sachs_conditions
from mtbn.networks import load_network, sample

DOCS = os.path.join(HERE, os.pardir, "docs")
GALLERY = os.path.join(DOCS, "img", "gallery")
#: The whole report of ``mtbn learn --report`` on ASIA, published at the site's root (docs/conf.py html_extra_path).
SAMPLE = os.path.join(DOCS, "_extra", "sample-report.html")
FAST = ["--restarts", "5", "--seed", "0"]


def _write_tasks(folder):
    """The three data sets as CSV files (one per task); ``{data set: (paths, options)}``."""
    sets = {}
    asia = load_network("asia")
    paths = []
    for i in range(3):
        path = os.path.join(folder, f"asia-{i + 1}.csv")
        sample(asia, 500, random_state=i).to_dataframe().to_csv(path, index=False)
        paths.append(path)
    sets["asia"] = (paths, [])
    paths = []
    for i, net in enumerate(make_problem("alarm", n_tasks=3, random_state=0)):
        path = os.path.join(folder, f"alarm-{i + 1}.csv")
        sample(net, 500, random_state=i).to_dataframe().to_csv(path, index=False)
        paths.append(path)
    sets["alarm"] = (paths, [])
    paths = []
    for name, frame in load_sachs_conditions().tasks.items():
        path = os.path.join(folder, f"{name}.csv")
        frame.to_csv(path, index=False)
        paths.append(path)
    sets["sachs"] = (paths, ["--discretize", "quantile:3"])
    return sets


def _figures(report):
    """``[(png bytes, alt text, caption)]`` of a report.html, in page order."""
    text = open(report, encoding="utf-8").read()
    found = []
    pattern = r'<img alt="([^"]*)" src="data:image/png;base64,([A-Za-z0-9+/=]+)">(?:<figcaption>(.*?)</figcaption>)?'
    for alt, data, caption in re.findall(pattern, text, flags=re.S):
        plain = html.unescape(re.sub(r"<[^>]+>", "", caption or ""))
        found.append((base64.b64decode(data), html.unescape(alt), " ".join(plain.split())))
    return found


def _run(args):
    status = mtbn(args)
    if status != 0:
        raise SystemExit(f"mtbn {' '.join(args)} exited with {status}")


def _generate(sets, gallery, sample=None):
    """Run the commands on the data sets ``sets`` (and ``mtbn bench`` when ALARM is among them), write their
    figures to ``gallery``; ``[(data set, command, file, alt, caption)]``."""
    work = tempfile.mkdtemp(prefix="mtbn-gallery-")
    entries = []
    try:
        for name, (paths, options) in _write_tasks(work).items():
            if name not in sets:
                continue
            principal = os.path.splitext(os.path.basename(paths[0]))[0]
            runs = {
                "learn": ["learn", "--report", *FAST, *options],
                "relatedness": ["relatedness", "--measure", "direct", *FAST, *options],
                "select": ["select", "--principal", principal, *FAST, *options],
                "cluster": ["cluster", *FAST, *options],
            }
            for command, args in runs.items():
                out = os.path.join(work, f"{name}-{command}")
                _run([*args, "--out", out, *paths])
                if name == "asia" and command == "learn" and sample is not None:
                    shutil.copy(os.path.join(out, "report.html"), sample)
                for i, (png, alt, caption) in enumerate(_figures(os.path.join(out, "report.html"))):
                    file = f"{name}-{command}-{i + 1}.png"
                    with open(os.path.join(gallery, file), "wb") as fh:
                        fh.write(png)
                    entries.append((name, command, file, alt, caption))
        if "alarm" in sets:
            bench = os.path.join(work, "bench")
            _run(["bench", "alarm", "--trials", "3", "--tasks", "3", "--train", "500", "--methods",
                  "stl,pooled,mtl", "--restarts", "5", "--out", bench])
            for metric in ("edit_distance", "kl"):
                file = f"alarm-bench-{metric}.png"
                shutil.copy(os.path.join(bench, f"{metric}.png"), os.path.join(gallery, file))
                entries.append(("alarm", "bench", file, f"{metric} per method",
                                f"mtbn bench alarm, 3 trials of 3 tasks x 500 rows: {metric.replace('_', ' ')} "
                                "per method, the mean over trials with its 95% t interval."))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return entries


def _page_entries(sets):
    """The figures the page lists for the data sets ``sets``: ``[(file, alt, caption)]``."""
    text = open(os.path.join(DOCS, "guide", "figures.rst"), encoding="utf-8").read()
    found = re.findall(r"\.\. figure:: \.\./img/gallery/(\S+)\n   :alt: (.*)\n   :width: 100%\n\n   ``mtbn \w+``: (.*)\n",
                       text)
    return [f for f in found if f[0].split("-")[0] in sets]


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=list(TITLES), choices=list(TITLES))
    ap.add_argument("--check", action="store_true",
                    help="draw into a temporary folder and check that the page lists exactly these figures, "
                    "with these captions (the stored images are not compared: matplotlib versions differ in bytes)")
    args = ap.parse_args(argv)
    if not args.check and args.sets != list(TITLES):
        ap.error("--sets is for --check: the page lists every data set")
    if args.check:
        folder = tempfile.mkdtemp(prefix="mtbn-gallery-check-")
        try:
            entries = _generate(args.sets, folder)
            drawn = sorted(os.listdir(folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        got = [(file, alt, caption) for _, _, file, alt, caption in entries]
        listed = _page_entries(args.sets)
        if got != listed or drawn != sorted(f for f, _, _ in got):
            print("docs/guide/figures.rst differs from what the commands draw: run experiments/figures_gallery.py")
            for a, b in zip(got, listed):
                if a != b:
                    print("  drawn:", a, "\n  page: ", b)
            return 1
        if not os.path.isfile(SAMPLE):
            print(f"{SAMPLE} is missing: run experiments/figures_gallery.py")
            return 1
        print(f"{len(got)} figures drawn as the page lists them")
        return 0
    shutil.rmtree(GALLERY, ignore_errors=True)
    os.makedirs(GALLERY)
    os.makedirs(os.path.dirname(SAMPLE), exist_ok=True)
    entries = _generate(args.sets, GALLERY, SAMPLE)
    _write_page(entries)
    print(f"{len(entries)} figures in {GALLERY}")
    return 0


TITLES = {"asia": "ASIA (3 samples, 500 rows each)",
          "alarm": "ALARM (3 perturbed tasks of mtbn bench alarm, 500 rows each)",
          "sachs": "The nine Sachs conditions (quantile:3)"}


def _write_page(entries):
    lines = [".. Generated by experiments/figures_gallery.py; do not edit by hand.", "",
             "The figures mtbn draws", "======================", "",
             "Every figure of the reports (``mtbn learn --report``, ``relatedness``, ``select``, ``cluster``) and of",
             "``mtbn bench``, drawn on three data sets by ``python experiments/figures_gallery.py``, with the",
             "caption the report gives it. Structures are drawn on one layered layout per page (sources on top,",
             "the spacing set by the longest name, so labels do not overlap); curves that compare estimates carry",
             "their standard errors or intervals; axes show their values without an offset.", "",
             "The figure functions are public (:mod:`mtbn.report`); each structure figure takes the graphs of",
             "any learner:", "",
             ">>> from mtbn.graph import DAG",
             ">>> from mtbn.report import plot_tasks",
             ">>> graphs = {\"north\": DAG.from_edges([\"rain\", \"wet\"], [(\"rain\", \"wet\")]),",
             "...           \"south\": DAG.empty([\"rain\", \"wet\"])}",
             ">>> fig = plot_tasks(graphs, title=\"two tasks\")",
             ">>> [ax.get_title() for ax in fig.axes]",
             "['north (1 edges)', 'south (0 edges)']",
             ">>> fig.savefig(\"tasks.png\")", "",
             "A whole report, as ``mtbn learn --report`` writes it (ASIA, three samples of 500 rows):",
             "`sample report <../sample-report.html>`_.", ""]
    for name, title in TITLES.items():
        lines += [title, "-" * len(title), ""]
        for data, command, file, alt, caption in entries:
            if data != name:
                continue
            lines += [f".. figure:: ../img/gallery/{file}", f"   :alt: {alt}", "   :width: 100%", "",
                      f"   ``mtbn {command}``: {caption}", ""]
    with open(os.path.join(DOCS, "guide", "figures.rst"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
