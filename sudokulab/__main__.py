"""``python -m sudokulab``: the command line."""

import sys

# Absolute: a worker process (multiprocessing's spawn, anyio's to_process) runs this file
# by its path, outside the package, before it takes any work.
from sudokulab.cli import main

if __name__ == "__main__":  # a spawned worker process re-imports this module
    sys.exit(main())
