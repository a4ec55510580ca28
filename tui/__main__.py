"""`python -m tui`: the same entry point as the `watchdeck` command."""

import sys

from tui.cli.launch import main

sys.exit(main())
