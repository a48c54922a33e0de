"""What the commands share: progress, the options recorded in a summary, and the skeleton every command that
writes ``--out`` runs in (:func:`_run_in_out_folder`: check the folder, do the work, write the outputs into a
staged folder published only on success, print a summary). The library makes every decision; a command only
passes the options on and prints or writes the result.
"""

import sys
import time

from mtbn.cli import files, runs
from mtbn.cli.files import claimed_out, read_named_tasks, staged_output


def progress_for(args, *, always=False):
    """Progress for a command: bars and lines on a terminal, lines with --progress (or ``always``), else log
    records only."""
    from mtbn.progress import Reporter, stderr_reporter

    tty = sys.stderr.isatty()
    if not (tty or always or getattr(args, "progress", False)):
        return Reporter()
    return stderr_reporter(bars=tty)


def _options_of(args):
    """The options of a run as recorded in its outputs (summary.json, the reports)."""
    return {k: v for k, v in vars(args).items() if k not in ("func", "csv", "command")}


def _run_in_out_folder(args, work, write, summarise, *, plots=False):
    """The skeleton of every command that writes --out.

    ``work(progress)`` does the work and returns what ``write(done, folder,
    progress)`` writes into the staged folder and ``summarise(done, seconds,
    written)`` prints; nothing is written when ``--out`` is not writable or
    holds another run (see :mod:`mtbn.cli.files`), and nothing is computed
    when the outputs need plots (``plots``) and matplotlib is missing.
    """
    with claimed_out(args.out, overwrite=args.overwrite):
        if plots:
            from mtbn.report.figures import check_matplotlib

            check_matplotlib(f"mtbn {args.command}" + (" --report" if args.command == "learn" else ""))
        t0 = time.perf_counter()
        progress = progress_for(args)
        done = work(progress)
        with staged_output(args.out, args.command) as out:
            written = write(done, out, progress)
    summarise(done, time.perf_counter() - t0, written)
    return 0


def _short(value):
    from mtbn.report import format_number

    return format_number(value, 4)


def _task_command(args, compute, write, summarise):
    """The skeleton of ``relatedness``, ``select`` and ``cluster``: read one task per CSV file (and with
    ``--from``, the distances of an earlier run), ``compute(tasks, progress, relatedness or None)``,
    ``write(result, folder, options, stems)`` the report (``stems``: each task's file stem), ``summarise``."""
    options = dict(_options_of(args), inputs=list(args.csv))
    stems, discretization = {}, []

    def work(progress):
        tasks = _continuous_tasks(args, progress) if files.discretize_option(args) is None else None
        if tasks is None:
            tasks, cuts = read_named_tasks(args.csv, args.dropna, progress, files.discretize_option(args))
            stems.update(files.writable_tasks(tasks))  # refuses clashing names and unwritable labels before the work
        else:  # continuous tasks: linear Gaussian networks
            cuts = None
            stems.update(files.task_file_stems([t.name for t in tasks]))
        discretization.append(cuts)
        options["task_rows"] = {t.name: t.n_samples for t in tasks}
        options["task_fingerprints"] = runs.fingerprints(tasks)
        rel = None
        if args.from_dir is not None:
            rel, note = runs.read_from(args.from_dir, tasks)
            print(note, flush=True)
        return compute(tasks, progress, rel)

    def write_report(res, out, progress):
        progress("writing the report")
        files.write_discretization(out, discretization[0])
        return write(res, out, options, stems)

    return _run_in_out_folder(args, work, write_report, summarise, plots=True)


def _continuous_tasks(args, progress):
    """The tasks of ``relatedness``, ``select`` and ``cluster`` as ContinuousData (one per file, named by its stem)
    when the Gaussian kind claims the files (:func:`mtbn.cli.kinds.kind_frames`), their incomplete rows dropped
    with ``--dropna`` or refused by file line as ``mtbn learn`` does; None for other files (the discrete reader's).
    Another registered kind of data is left to the relatedness functions, which refuse it."""
    from mtbn.cli.kinds import complete_frames, kind_frames

    claimed = kind_frames(args.csv, progress)
    if claimed is None:
        return None
    kind, frames = claimed
    data = kind.task_data(complete_frames(frames, args.csv, bool(args.dropna)))
    return None if data is None else list(data.values())
