"""The `tuner` command as tests run it: in this process with click's runner (`tuner_here`: what the command
decides and prints, without paying a child's imports), or as a child process (`tuner_child`: the installed
entry point, with real signals, exit statuses and a separate memory). Importable from every test package
(pytest puts tests/ on the path)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner, Result


def tuner_here(*args: str, cwd: Path) -> Result:
    """`tuner ARGS` from `cwd` in this process; an exception that escaped the command (a traceback for the
    program's user) fails the test."""
    from tuner.cli import main

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("the command raised:\n" + "".join(traceback.format_exception(result.exception)))
    return result


def tuner_child(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
                timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m tuner.cli ARGS` as a child process of `cwd` (this process's environment unless `env`)."""
    return subprocess.run([sys.executable, "-m", "tuner.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ if env is None else env), check=False)


def one_line_error(result: Result | subprocess.CompletedProcess[str], code: int, *fragments: str) -> str:
    """Assert that a command ended with exit status `code` and one line `error: ...` holding every fragment
    on stderr, and no traceback; return that line."""
    status = result.exit_code if isinstance(result, Result) else result.returncode
    assert status == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]
