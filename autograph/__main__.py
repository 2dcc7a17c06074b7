"""`python -m autograph`: the command line (see autograph/cli/ or `--help`)."""

import sys

from autograph.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m autograph"))
