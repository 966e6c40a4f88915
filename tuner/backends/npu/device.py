"""The watchdog around device work: each NPU is driven by a worker process (worker.py) that the tuner kills
when a request outlives its timeout, and restarts for the next one. A kernel that hangs the device costs one
trial (pruned as `timeout`), never the run."""

from __future__ import annotations

import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from tuner.errors import TunerError
from tuner.processes import forget_child_group, track_child_group

STDERR_TAIL_BYTES = 4000


class DeviceError(TunerError):
    """The worker answered a request with an error (a failed launch, a torch_npu exception)."""


class DeviceTimeout(DeviceError):
    """A request did not finish in time; the worker was killed."""


class DeviceCrash(DeviceError):
    """The worker died during a request (a kernel that crashed the process, or a device error that ends it)."""


def pinned_env(device: str | None) -> dict[str, str]:
    """This process's environment, with only NPU `device` visible (the whole of it when None)."""
    env = dict(os.environ)
    if device is not None:
        env["ASCEND_RT_VISIBLE_DEVICES"] = device
    return env


class DeviceWorker:
    """One worker process pinned to one NPU (`ASCEND_RT_VISIBLE_DEVICES=device`), started on first use."""

    def __init__(self, device: str | None, startup_timeout_s: float = 300.0) -> None:
        self.device = device
        self.startup_timeout_s = startup_timeout_s
        self.info: dict[str, Any] = {}
        self._proc: subprocess.Popen | None = None
        self._stderr = None

    def _start(self) -> None:
        env = pinned_env(self.device)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker; closed by close())
        self._proc = subprocess.Popen([sys.executable, "-m", "tuner.backends.npu.worker"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._stderr, env=env, start_new_session=True)
        track_child_group(self._proc.pid)
        self.info = self._exchange({"op": "hello"}, self.startup_timeout_s)

    def request(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request and wait at most `timeout_s` for its reply."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        return self._exchange(message, timeout_s)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - STDERR_TAIL_BYTES))
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-5:])

    def _exchange(self, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        what = f"the device worker{'' if self.device is None else f' for NPU {self.device}'}"
        try:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died; reading below reports how
        deadline = time.monotonic() + timeout_s
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
                self.kill()
                raise DeviceTimeout(f"{what} did not answer '{message['op']}' within {timeout_s:g} s and was "
                                    "killed")
        line = proc.stdout.readline()
        if not line:
            code = proc.wait()
            tail = self._stderr_tail()
            self.kill()
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            raise DeviceCrash(f"{what} died ({how})" + (f": {tail}" if tail else ""))
        reply = json.loads(line)
        if "error" in reply:
            raise DeviceError(reply["error"])
        return reply

    def kill(self) -> None:
        """Stop the worker and anything it started; the next request starts a fresh one."""
        if self._proc is None:
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        forget_child_group(self._proc.pid)
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()
        self._proc = None

    def close(self) -> None:
        if self._proc is not None and self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                pass
        self.kill()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


class DevicePool:
    """One worker per NPU; a request takes whichever is free, so N devices serve N candidates at once."""

    def __init__(self, devices: list[str | None], startup_timeout_s: float = 300.0) -> None:
        self.workers = [DeviceWorker(d, startup_timeout_s) for d in devices]
        self._free: queue.Queue[DeviceWorker] = queue.Queue()
        for worker in self.workers:
            self._free.put(worker)

    @contextmanager
    def worker(self) -> Iterator[DeviceWorker]:
        worker = self._free.get()
        try:
            yield worker
        finally:
            self._free.put(worker)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
