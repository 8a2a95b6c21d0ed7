#!/usr/bin/env python3
"""Write zconsole/cli/help.txt: `zconsole --help` as argparse prints it at 80 columns, which
`zconsole.__main__` prints without importing argparse. Run after changing the command line;
tests/unit/test_cli_main.py fails while the file and the parser disagree.

    python tools/write_help.py
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zconsole.__main__ import HELP_COLUMNS, HELP_FILE  # noqa: E402
from zconsole.cli.main import render_help  # noqa: E402

if __name__ == "__main__":
    Path(HELP_FILE).write_text(render_help(HELP_COLUMNS), encoding="utf-8")
    print(HELP_FILE)
