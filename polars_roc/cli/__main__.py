"""``python -m polars_roc.cli``: the ``polars-roc`` command."""

import sys

from polars_roc.cli import main

sys.exit(main())
