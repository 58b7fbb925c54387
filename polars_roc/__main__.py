"""``python -m polars_roc``: the ``polars-roc`` command, as ``python -m polars_roc.cli``."""

import sys

from polars_roc.cli import main

sys.exit(main())
