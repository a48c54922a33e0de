"""Shared helpers of the experiment scripts (not part of the package)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("MTBN_EXPERIMENTS_OUT", os.path.join(HERE, "out"))


def progress(message):
    print(message, file=sys.stderr, flush=True)


def jobs():
    return int(os.environ.get("MTBN_JOBS", "2"))


def write_out(relative, text):
    """Write ``text`` to ``OUT/relative`` (folders made as needed) and print it."""
    path = os.path.join(OUT, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(text)


def run_resumable(keys, path_of, compute, done=None):
    """``compute(key)`` (a DataFrame) for each key whose file ``path_of(key)`` is missing (or not ``done(path)``),
    in parallel (``MTBN_JOBS``), each written whole when it finishes, so a killed run resumes. Returns the keys
    run."""
    from mtbn.engine import job, parallel

    done = done or os.path.exists
    todo = [k for k in keys if not done(path_of(k))]

    def one(key):
        path = path_of(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        compute(key).to_csv(path + ".partial", index=False)
        os.replace(path + ".partial", path)
        return key

    for key in parallel(jobs(), len(todo), return_as="generator_unordered")(job(one)(k) for k in todo):
        progress(f"  {key} done")
    return todo
