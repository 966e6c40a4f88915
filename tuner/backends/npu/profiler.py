"""Running `msprof op` on one kernel of an application and reading its PipeUtilization.csv.

A measured launch is then read by the same parser, and ranked by the same code, as a simulated one (msprof.py).
Command line and output layout follow ../shared/research/ascendc.md §8 ("Profiling / timing on device"):
`msprof op [--output=DIR] [--kernel-name=NAME] [--launch-count=N] ... ./app [args]`, writing
`OPPROF_{timestamp}_XXX/PipeUtilization.csv` below DIR (also ascend_hw.md §5). Not yet run against a real msprof:
only against the stand-in in tests/backends/standin_msprof.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

from tuner.backends.npu.msprof import MsprofParseError, parse_pipe_utilization
from tuner.errors import TunerError


class MsprofError(TunerError):
    """msprof op is missing, failed, timed out, or left no readable PipeUtilization.csv; the message is one line."""


def msprof_command(msprof: str, kernel: str, output: Path, app: list[str], extra: tuple[str, ...] = ()) -> list[str]:
    """The `msprof op` argv that profiles kernel `kernel` of application `app`; `extra` goes before the app."""
    return [msprof, "op", f"--kernel-name={kernel}", f"--output={output}", *extra, *app]


def find_pipe_utilization(output: Path) -> Path:
    """The newest `*PipeUtilization.csv` below `output` (msprof op's `OPPROF_*` folders), by modification time."""
    found = [p for p in output.rglob("*PipeUtilization.csv") if p.is_file()] if output.is_dir() else []
    if not found:
        raise MsprofError(f"msprof op wrote no PipeUtilization.csv under {output}")
    return max(found, key=lambda p: p.stat().st_mtime_ns)


def _last_line(text: str | None) -> str:
    """The last non-empty line of a tool's output, or a placeholder when it printed nothing."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def profile_kernel(msprof: str, kernel: str, app: list[str], output: Path, timeout_s: float = 600.0,
                   env: Mapping[str, str] | None = None) -> dict:
    """Profile `kernel` in `app` with msprof op under `output`; the parsed PipeUtilization report plus `csv`, `source`.

    `env` is the tool's whole environment (None: inherit). Raises MsprofError (one line) on any failure; on a
    timeout msprof and the application it started are killed.
    """
    output.mkdir(parents=True, exist_ok=True)
    argv = msprof_command(msprof, kernel, output, app)
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", env=dict(env) if env is not None else None,
                                start_new_session=True)
    except FileNotFoundError:
        raise MsprofError(f"msprof executable not found: {msprof}") from None
    except OSError as exc:
        raise MsprofError(f"cannot run {msprof}: {exc.strerror or exc}") from None
    with proc:
        try:
            text, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # msprof and its application, which may hold the device
                os.killpg(proc.pid, signal.SIGKILL)
            text, _ = proc.communicate()
            raise MsprofError(f"msprof op on {kernel} timed out after {timeout_s:g} s: {_last_line(text)}") from None
    if proc.returncode != 0:
        raise MsprofError(f"msprof op on {kernel} exited {proc.returncode}: {_last_line(text)}")
    path = find_pipe_utilization(output)
    try:
        report = parse_pipe_utilization(path.read_text(encoding="utf-8", errors="replace"))
    except MsprofParseError as exc:
        raise MsprofError(f"{path}: {exc.reason}") from None
    report["csv"] = str(path)
    report["source"] = f"msprof op ({path.parent.name})"
    return report
