"""profile_kernel runs `msprof op` (a stand-in here) on a real application and parses its PipeUtilization.csv."""

import json
import os
import sys
import time
from pathlib import Path

import pytest

from tuner.backends.npu.msprof import profile_from_report
from tuner.backends.npu.profiler import MsprofError, find_pipe_utilization, msprof_command, profile_kernel
from tuner.errors import TunerError

from .standin_msprof import install_msprof
from .test_npu_msprof import CURRENT


def _app(tmp_path: Path) -> list[str]:
    """A program that leaves a file behind, so a test can see it really ran."""
    return [sys.executable, "-c", f"open({str(tmp_path / 'ran')!r}, 'w').write('1')"]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TOOL_LOG": str(tmp_path / "tool.log")}


def _log(tmp_path: Path) -> list[list[str]]:
    return [json.loads(line) for line in (tmp_path / "tool.log").read_text().splitlines()]


def test_command_line_is_the_documented_msprof_op_form():
    cmd = msprof_command("msprof", "add_custom", Path("/o"), ["./app", "-n", "3"], ("--launch-count=5",))
    assert cmd == ["msprof", "op", "--kernel-name=add_custom", "--output=/o", "--launch-count=5", "./app", "-n", "3"]


def test_profile_kernel_runs_the_app_and_parses_the_csv(tmp_path):
    msprof = install_msprof(tmp_path / "bin", CURRENT)
    out = tmp_path / "prof"
    app = _app(tmp_path)
    report = profile_kernel(str(msprof), "add_custom", app, out, env=_env(tmp_path))
    assert (tmp_path / "ran").read_text() == "1"
    assert _log(tmp_path) == [[str(msprof), "op", "--kernel-name=add_custom", f"--output={out}", *app]]
    csv = out / "OPPROF_20261130000000_ABCDEF" / "PipeUtilization.csv"
    assert report["csv"] == str(csv)
    assert report["source"] == "msprof op (OPPROF_20261130000000_ABCDEF)"
    assert report["layout"] == "per_block" and report["block_dim"] == 3 and report["missing_columns"] == []
    assert profile_from_report(report) == {"vec": 0.2, "scalar": 0.4, "mte2": 0.9, "mte3": 0.3}


def test_extra_and_missing_columns_still_parse(tmp_path):
    text = ("block_id,aiv_time(us),aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,"
            "aiv_mte2_time(us),aiv_mte2_ratio,aiv_future_metric\n"
            "0,10.0,2.0,0.2,1.0,0.1,8.0,0.8,42\n")
    msprof = install_msprof(tmp_path / "bin", text)
    report = profile_kernel(str(msprof), "k", _app(tmp_path), tmp_path / "prof", env=_env(tmp_path))
    assert report["unknown_columns"] == ["aiv_future_metric"]
    assert report["missing_columns"] == ["aiv_mte3_time(us)", "aiv_mte3_ratio"]
    assert profile_from_report(report) == {"vec": 0.2, "scalar": 0.1, "mte2": 0.8, "mte3": 0.0}


def test_missing_executable_is_one_line(tmp_path):
    with pytest.raises(MsprofError) as info:
        profile_kernel(str(tmp_path / "no-msprof"), "k", _app(tmp_path), tmp_path / "prof")
    assert isinstance(info.value, TunerError)
    assert str(info.value) == f"msprof executable not found: {tmp_path / 'no-msprof'}"
    assert not (tmp_path / "ran").exists()


def test_failing_msprof_names_its_last_line(tmp_path):
    msprof = install_msprof(tmp_path / "bin", CURRENT, fail=True)
    out = tmp_path / "prof"
    with pytest.raises(MsprofError) as info:
        profile_kernel(str(msprof), "k", _app(tmp_path), out, env=_env(tmp_path))
    message = str(info.value)
    assert "\n" not in message
    assert message.endswith("exited 1: msprof: error: the device is busy with another collection")
    assert not list(out.rglob("*.csv"))


def test_failing_app_fails_the_profile(tmp_path):
    msprof = install_msprof(tmp_path / "bin", CURRENT)
    with pytest.raises(MsprofError, match="the application exited with 3"):
        profile_kernel(str(msprof), "k", [sys.executable, "-c", "raise SystemExit(3)"], tmp_path / "prof",
                       env=_env(tmp_path))


def test_timeout_kills_msprof_and_the_app(tmp_path):
    msprof = install_msprof(tmp_path / "bin", CURRENT)
    pid_file = tmp_path / "app.pid"
    app = [sys.executable, "-c", f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
           "time.sleep(60)"]
    start = time.monotonic()
    with pytest.raises(MsprofError, match=r"^msprof op on k timed out after 2 s: msprof op: collecting kernel k$"):
        profile_kernel(str(msprof), "k", app, tmp_path / "prof", timeout_s=2, env=_env(tmp_path))
    assert time.monotonic() - start < 30  # not left waiting on the app, which holds msprof's output pipe
    if not pid_file.exists():
        return  # the app had not started yet; nothing else to check
    status = Path(f"/proc/{pid_file.read_text()}/status")
    for _ in range(50):  # the orphaned app is reaped by init shortly after the kill
        if not status.exists() or "State:\tZ" in status.read_text():
            break
        time.sleep(0.1)
    assert not status.exists() or "State:\tZ" in status.read_text()


def test_no_csv_written_names_the_directory(tmp_path):
    out = tmp_path / "prof"
    with pytest.raises(MsprofError) as info:
        profile_kernel("true", "k", _app(tmp_path), out)  # exits 0 and writes nothing
    assert str(info.value) == f"msprof op wrote no PipeUtilization.csv under {out}"
    with pytest.raises(MsprofError, match="under"):
        find_pipe_utilization(tmp_path / "absent")


def test_newest_csv_wins(tmp_path):
    old = tmp_path / "OPPROF_1_A" / "PipeUtilization.csv"
    new = tmp_path / "OPPROF_2_B" / "device0" / "PipeUtilization.csv"
    for i, path in enumerate((old, new)):
        path.parent.mkdir(parents=True)
        path.write_text("x")
        os.utime(path, ns=(i * 10**9, i * 10**9))
    assert find_pipe_utilization(tmp_path) == new


def test_unreadable_csv_becomes_msprof_error(tmp_path):
    msprof = install_msprof(tmp_path / "bin", "a,b\n1,2\n")
    with pytest.raises(MsprofError, match="PipeUtilization.csv: not a PipeUtilization CSV"):
        profile_kernel(str(msprof), "k", _app(tmp_path), tmp_path / "prof", env=_env(tmp_path))
