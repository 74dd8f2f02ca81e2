"""`python -m kafka_tui.cli`: the same as the `kafka-tui` command."""

import sys

from .main import main

sys.exit(main())
