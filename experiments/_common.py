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
