"""How the tuner runs other processes and sizes itself against the machine: every compiler, simulator and device
worker runs under time and memory limits in a process group of its own (`run_limited`), reachable by
`stop_children`; `pid_alive` tells a dead owner from a live one; `check_memory` refuses what would not fit."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from tuner.errors import UsageError
from tuner.sandbox import Jail, seccomp_fd


@dataclass(frozen=True)
class Limits:
    """What one child process may use: wall-clock seconds, CPU seconds (each process of it, all its threads
    together) and address space; kernel sources and kernels are untrusted code."""

    wall_s: float
    cpu_s: int
    memory_bytes: int


# SIGXCPU comes at the CPU limit; a process that survives it is killed this many seconds later.
CPU_KILL_AFTER_S = 5
# What a child may print that the tuner keeps in memory, per stream: the start and the end (where the error is).
OUTPUT_HEAD_BYTES = 4 << 20
OUTPUT_TAIL_BYTES = 64 << 10
# A jailed child's processes and threads (the simulator runs at most a wave of blocks as threads at a time).
JAIL_MAX_PROCESSES = 512
# Largest file a jailed compiler may write (a kernel object or executable; a 256 MB static array is refused).
JAIL_COMPILE_FILE_BYTES = 64 << 20


@dataclass(frozen=True)
class Finished:
    """How a limited child ended: exit status (negative: the signal), output, and the limit that stopped it."""

    returncode: int
    stdout: str
    stderr: str
    limit: str | None  # "wall" (killed by us) or "cpu" (SIGXCPU), else None


_GROUPS: set[int] = set()  # process groups of the children running now
_GROUPS_LOCK = threading.Lock()


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone (its id may be reused)
        os.killpg(pgid, sig)


def track_child_group(pgid: int) -> None:
    """Count a child started elsewhere in its own session (the NPU device worker) among those `stop_children`
    reaches."""
    with _GROUPS_LOCK:
        _GROUPS.add(pgid)


def forget_child_group(pgid: int) -> None:
    with _GROUPS_LOCK:
        _GROUPS.discard(pgid)


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists (one of another user's counts too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_children(sig: int = signal.SIGTERM) -> None:
    """Send `sig` to every compiler and simulator child running now. Each runs in a session of its own, so the
    terminal's Ctrl-C does not reach it: a caller that takes Ctrl-C as a flag forwards it with this. SIGTERM,
    not SIGINT: a tuner started in the background of a non-interactive shell has SIGINT ignored, and its
    children inherit that."""
    with _GROUPS_LOCK:
        groups = list(_GROUPS)
    for pgid in groups:
        _signal_group(pgid, sig)


def _capped(value: int, which: int) -> int:
    """`value`, or the hard limit this process already has for `which` when that is lower."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


class _Drain(threading.Thread):
    """Reads one pipe to its end, keeping its first OUTPUT_HEAD_BYTES and last OUTPUT_TAIL_BYTES."""

    def __init__(self, pipe) -> None:
        super().__init__(daemon=True)
        self.pipe, self.head, self.tail, self.dropped = pipe, bytearray(), bytearray(), 0

    def run(self) -> None:
        while chunk := self.pipe.read1(1 << 16):
            room = OUTPUT_HEAD_BYTES - len(self.head)
            self.head += chunk[:room]
            rest = chunk[room:] if room < len(chunk) else b""
            if rest:
                self.tail += rest
                if len(self.tail) > OUTPUT_TAIL_BYTES:
                    self.dropped += len(self.tail) - OUTPUT_TAIL_BYTES
                    del self.tail[:-OUTPUT_TAIL_BYTES]

    def text(self) -> str:
        gap = f"\n[... {self.dropped} bytes of output not kept ...]\n".encode() if self.dropped else b""
        return (bytes(self.head) + gap + bytes(self.tail)).decode("utf-8", errors="replace")


def run_limited(cmd: list[str], limits: Limits, *, jail: Jail | None = None, pass_fds: tuple[int, ...] = (),
                file_bytes: int | None = None) -> Finished:
    """Run `cmd` under `limits` in a session of its own, and leave nothing of it running: its whole process group
    is killed at the wall-clock limit, on an exception here (Ctrl-C in the main thread), and after it exits.
    With `jail`, it runs in the sandbox (tuner/sandbox/: namespaces, an empty environment, the jail's files
    only, its seccomp filter), with at most `file_bytes` per file it writes and JAIL_MAX_PROCESSES processes and
    threads; `pass_fds` are the descriptors it is handed. What it prints is kept up to a bound."""
    cpu = _capped(limits.cpu_s, resource.RLIMIT_CPU)
    kill_at = _capped(limits.cpu_s + CPU_KILL_AFTER_S, resource.RLIMIT_CPU)
    memory_kib = _capped(limits.memory_bytes, resource.RLIMIT_AS) // 1024
    # The shell sets the limits and execs `cmd` (no Python runs between fork and exec, unlike a preexec_fn).
    script = (f"ulimit -c 0 && ulimit -S -t {cpu} && ulimit -H -t {kill_at} && ulimit -v {memory_kib} && "
              'exec "$@"')
    filter_fd = None
    env = None
    if jail is not None:
        if jail.seccomp:
            filter_fd = seccomp_fd()
            pass_fds = (*pass_fds, filter_fd)
        cmd = ["prlimit", f"--fsize={file_bytes or JAIL_COMPILE_FILE_BYTES}", f"--nproc={JAIL_MAX_PROCESSES}",
               "--", *jail.command(cmd, filter_fd)]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    limit = None
    try:
        with subprocess.Popen(["/bin/sh", "-c", script, "tuner-limited", *cmd], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                              pass_fds=pass_fds, env=env) as proc:
            track_child_group(proc.pid)
            drains = [_Drain(proc.stdout), _Drain(proc.stderr)]
            try:
                for drain in drains:
                    drain.start()
                try:
                    proc.wait(timeout=limits.wall_s)
                except subprocess.TimeoutExpired:
                    limit = "wall"
                    _signal_group(proc.pid, signal.SIGKILL)
                    proc.wait()
            finally:  # also on an exception here, before Popen's exit waits for the child
                _signal_group(proc.pid, signal.SIGKILL)  # the child, if it still runs, and whatever it left behind
                forget_child_group(proc.pid)
                for drain in drains:
                    drain.join()
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
    returncode = proc.returncode
    if jail is not None and 128 < returncode < 128 + signal.NSIG:  # bubblewrap exits 128+N for a signal N
        returncode = -(returncode - 128)
    if limit is None and returncode == -signal.SIGXCPU:
        limit = "cpu"
    return Finished(returncode, drains[0].text(), drains[1].text(), limit)


_UNLIMITED = 1 << 60  # cgroup v1 writes "no limit" as a number near 2**63


class MemoryLimitError(UsageError):
    """Raised before a command starts when what it would hold in memory exceeds what the machine has free."""


def _meminfo_available(meminfo: Path) -> int | None:
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_room(proc_cgroup: Path, cgroup_root: Path) -> int | None:
    """Bytes this process's memory cgroup (v2, or v1) may still take: its tightest limit less its usage."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    rooms = []
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, group = fields
        if controllers == "":
            base, limit_file, usage_file = cgroup_root, "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            base, limit_file, usage_file = cgroup_root / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        directory = base / group.lstrip("/")
        for level in (directory, *directory.parents):  # a limit on any ancestor binds too
            limit, usage = _read_int(level / limit_file), _read_int(level / usage_file)
            if limit is not None and limit < _UNLIMITED and usage is not None:
                rooms.append(max(0, limit - usage))
            if level == base:
                break
    return min(rooms) if rooms else None


def available_memory(meminfo: Path = Path("/proc/meminfo"), proc_cgroup: Path = Path("/proc/self/cgroup"),
                     cgroup_root: Path = Path("/sys/fs/cgroup")) -> tuple[int, str] | None:
    """Bytes of memory this process can still get, and where that number comes from: MemAvailable, or the
    room left under the memory cgroup's limit when that is lower. None when neither can be read."""
    found = [(n, "MemAvailable") for n in [_meminfo_available(meminfo)] if n is not None]
    found += [(n, "cgroup memory limit") for n in [_cgroup_room(proc_cgroup, cgroup_root)] if n is not None]
    return min(found) if found else None


def gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def check_memory(needed: int, what: str) -> None:
    """MemoryLimitError when `needed` bytes (for `what`) exceed the memory available now."""
    room = available_memory()
    if room is not None and needed > room[0]:
        raise MemoryLimitError(f"{what} needs about {gib(needed)} of memory; this machine has {gib(room[0])} "
                               f"available ({room[1]})")
