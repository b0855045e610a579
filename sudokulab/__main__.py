"""``python -m sudokulab``: the command line."""

import sys

from .cli import main

if __name__ == "__main__":  # a spawned worker process re-imports this module
    sys.exit(main())
