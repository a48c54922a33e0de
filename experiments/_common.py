"""Shared helpers of the experiment scripts (not part of the package)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("MTBN_EXPERIMENTS_OUT", os.path.join(HERE, "out"))


def progress(message):
    print(message, file=sys.stderr, flush=True)


def jobs():
    return int(os.environ.get("MTBN_JOBS", "2"))
