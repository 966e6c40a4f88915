"""The OS sandbox every untrusted build and run goes through: bubblewrap (Debian's `bubblewrap`).

A `Jail` turns a command into a bubblewrap command line: new user, PID, network, IPC, UTS and cgroup
namespaces (no network at all; nothing outlives the command, since the PID namespace ends with it), no
capabilities, a new session (no terminal to inject into), an empty environment, a file system that holds only
the paths named read-only plus one writable scratch directory, and optionally the seccomp filter of
`seccomp.py`. Resource limits (CPU, address space, file size, processes) are set by the caller's limited runner
before bubblewrap starts, and bubblewrap passes them on.

Where bubblewrap is missing or user namespaces are off, `sandbox_problem()` says why in one line, and untrusted
kernels are refused with it: they never run outside the sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tuner.errors import TunerError
from tuner.sandbox.seccomp import compile_filter

__all__ = ["Jail", "SandboxUnavailable", "require_sandbox", "sandbox_problem", "seccomp_fd"]

# What a compiler needs of the host: its binaries, libraries and headers (never /home, /root, /etc, /tmp).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/alternatives",
                "/etc/ld.so.cache")
SANDBOX_UID = 65534  # nobody
SCRATCH = "/scratch"
PROBE_TIMEOUT_S = 20


class SandboxUnavailable(TunerError):
    """Raised when untrusted code would have to run but the sandbox cannot be set up here."""


@dataclass(frozen=True)
class Jail:
    """Where an untrusted command runs: `readable` paths bound read-only at the same place, `scratch` (a host
    directory, writable) bound at the same place and made the working directory, or an empty private one;
    `system` adds the host's compiler paths; `seccomp` the syscall filter (passed as a descriptor)."""

    readable: tuple[Path, ...] = ()
    scratch: Path | None = None
    system: bool = False
    seccomp: bool = False
    proc: bool = False

    def command(self, cmd: list[str], seccomp_fd: int | None = None) -> list[str]:
        """`cmd` wrapped in bubblewrap; `seccomp_fd` (see `seccomp_fd()`) when `self.seccomp`."""
        args = [_bwrap(), "--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID),
                "--gid", str(SANDBOX_UID), "--hostname", "sandbox", "--cap-drop", "ALL", "--new-session",
                "--die-with-parent", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LC_ALL", "C"]
        if self.system:
            args += _system_binds()
            args += ["--dev", "/dev", "--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"]
        if self.proc:
            args += ["--proc", "/proc"]
        for path in _unique(self.readable):
            args += ["--ro-bind", str(path), str(path)]
        if self.scratch is not None:
            args += ["--bind", str(self.scratch), str(self.scratch), "--chdir", str(self.scratch)]
        else:
            args += ["--dir", SCRATCH, "--chdir", SCRATCH]
        if self.seccomp:
            if seccomp_fd is None:
                raise ValueError("a seccomp jail needs the filter's descriptor")
            args += ["--seccomp", str(seccomp_fd)]
        return [*args, "--", *cmd]


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: list[Path] = []
    for path in paths:
        resolved = Path(path).resolve()
        if resolved not in seen:
            seen.append(resolved)
    return seen


def _system_binds() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_PATHS:
        path = Path(name)
        if path.is_symlink():  # merged /usr: /lib -> usr/lib
            args += ["--symlink", os.readlink(path), name]
        elif path.exists():
            args += ["--ro-bind", name, name]
    return args


def _bwrap() -> str:
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable("rewritten kernels run only in a sandbox, and bubblewrap is not installed "
                                 "(apt-get install bubblewrap)")
    return found


def seccomp_fd() -> int:
    """A new descriptor holding the compiled filter, at offset 0, for one bubblewrap start (it reads and closes
    its copy; the caller closes this one)."""
    fd = os.memfd_create("tuner-seccomp", 0)
    os.write(fd, compile_filter())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot be set up on this machine, in one line; None when it works (tried once a process:
    a jailed `true` with the seccomp filter)."""
    try:
        true = shutil.which("true") or "/bin/true"
        fd = seccomp_fd()
        try:
            jail = Jail(system=True, seccomp=False)
            proc = subprocess.run(jail.command([true]), capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                                  env={}, pass_fds=(fd,))
            if proc.returncode != 0:
                last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
                return f"bubblewrap cannot create a sandbox here ({last}); user namespaces may be disabled"
            seccomp_jail = Jail(system=True, seccomp=True)
            proc = subprocess.run(seccomp_jail.command(["/bin/sh", "-c", "exit 0"], fd), capture_output=True,
                                  text=True, timeout=PROBE_TIMEOUT_S, env={}, pass_fds=(fd,))
        finally:
            os.close(fd)
    except SandboxUnavailable as exc:
        return str(exc)
    except (OSError, subprocess.SubprocessError, TunerError) as exc:
        return f"the sandbox cannot be set up here: {exc}"
    # /bin/sh is dynamic: under the filter its loader cannot open its libraries, so it must die or fail.
    if proc.returncode == 0:
        return "the seccomp filter did not take effect (a dynamic program ran under it)"
    return None


def require_sandbox() -> None:
    """Raise SandboxUnavailable (one line) where untrusted code cannot be confined."""
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxUnavailable(problem)
