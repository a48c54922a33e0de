"""``python -m mtbn.cli`` runs the command line (as ``python -m mtbn`` does)."""

import sys

from mtbn.cli import main

sys.exit(main())
