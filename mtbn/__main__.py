"""``python -m mtbn`` runs the command line."""

import sys

from mtbn.cli import main

sys.exit(main())
