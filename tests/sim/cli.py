"""The `tuner` command run in this process (click's runner), as the CLI tests of the simulator use it; the
program itself, as a child, is run by test_build_and_cli.py."""

from __future__ import annotations

import contextlib
import traceback
from pathlib import Path

from click.testing import CliRunner, Result

from tuner.cli import main


def tuner(*args: str, cwd: Path) -> Result:
    """`tuner ARGS` from `cwd`; an exception that escaped the command (a traceback for the program's user) fails."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("the command raised:\n" + "".join(traceback.format_exception(result.exception)))
    return result
