"""The seccomp filter of an untrusted kernel's simulator process, compiled to classic BPF for bubblewrap's
`--seccomp FD`.

The policy and the system call numbers are data (`tuner/data/syscalls.yaml`): every call the simulator needs is
allowed with its reason, a few that glibc probes fail with an errno (opening a file, asking for a terminal), two
are allowed with a condition on their arguments (`clone` for threads only, `prlimit64` to read a limit), and
every other call kills the process with SIGSYS. The program is a straight list of compare-and-return pairs, so
no jump is longer than a few instructions whatever the policy's size.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from tuner.errors import TunerError

__all__ = ["Policy", "SandboxPolicyError", "compile_filter", "load_policy", "machine_arch"]

SYSCALLS_FILE = Path(__file__).resolve().parent.parent / "data" / "syscalls.yaml"

# linux/filter.h and linux/bpf_common.h
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K
# linux/seccomp.h
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (little-endian halves)
_NR, _ARCH = 0, 4


def _arg_low(i: int) -> int:
    return 16 + 8 * i


def _arg_high(i: int) -> int:
    return 20 + 8 * i


# linux/sched.h
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


class SandboxPolicyError(TunerError):
    """Raised when the seccomp policy cannot be built for this machine (an architecture the table lacks)."""


@dataclass(frozen=True)
class Policy:
    """The filter's rules for one architecture, by system call number."""

    arch: str
    audit_arch: int
    x32_bit: int | None
    allow: tuple[int, ...]
    errno: tuple[tuple[int, int], ...]  # (number, errno)
    threads_only: int | None  # clone
    read_only_limits: int | None  # prlimit64


def machine_arch() -> str:
    """This machine's architecture as the syscall table names it."""
    machine = platform.machine().lower()
    if machine not in _MACHINES:
        raise SandboxPolicyError(f"the sandbox's seccomp filter knows x86_64 and aarch64, not {machine}")
    return _MACHINES[machine]


@cache
def load_policy(arch: str | None = None) -> Policy:
    """The policy of `syscalls.yaml` for `arch` (default: this machine's)."""
    arch = arch or machine_arch()
    data = yaml.safe_load(SYSCALLS_FILE.read_text())
    if arch not in data:
        raise SandboxPolicyError(f"tuner/data/syscalls.yaml has no system call table for {arch}")
    table, policy = data[arch], data["policy"]
    numbers: dict[str, int] = table["numbers"]

    def present(names) -> list[str]:  # a call this architecture does not have (open on aarch64) needs no rule
        return [n for n in names if n in numbers]

    conditional = policy["conditional"]
    return Policy(
        arch=arch,
        audit_arch=int(table["audit_arch"]),
        x32_bit=table.get("x32_bit"),
        allow=tuple(numbers[n] for n in present(policy["allow"])),
        errno=tuple((numbers[n], getattr(errno, policy["errno"][n][0])) for n in present(policy["errno"])),
        threads_only=numbers["clone"] if conditional["clone"][0] == "threads" else None,
        read_only_limits=numbers["prlimit64"] if conditional["prlimit64"][0] == "read-only" else None,
    )


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def compile_filter(policy: Policy | None = None) -> bytes:
    """The classic-BPF program of `policy` (default: this machine's), as `struct sock_filter[]` bytes."""
    policy = policy or load_policy()
    kill = _insn(_RET_K, RET_KILL_PROCESS)
    program = [_insn(_LD_W_ABS, _ARCH), _insn(_JEQ_K, policy.audit_arch, 1, 0), kill, _insn(_LD_W_ABS, _NR)]
    if policy.x32_bit is not None:
        program += [_insn(_JGE_K, policy.x32_bit, 0, 1), kill]
    for number in policy.allow:
        program += [_insn(_JEQ_K, number, 0, 1), _insn(_RET_K, RET_ALLOW)]
    for number, code in policy.errno:
        program += [_insn(_JEQ_K, number, 0, 1), _insn(_RET_K, RET_ERRNO | code)]
    # The conditional rules come last: they load an argument into the accumulator and never give it back.
    if policy.read_only_limits is not None:
        program += [
            _insn(_JEQ_K, policy.read_only_limits, 0, 6),
            _insn(_LD_W_ABS, _arg_low(2)),
            _insn(_JEQ_K, 0, 0, 3),
            _insn(_LD_W_ABS, _arg_high(2)),
            _insn(_JEQ_K, 0, 0, 1),
            _insn(_RET_K, RET_ALLOW),
            kill,
        ]
    if policy.threads_only is not None:
        program += [
            _insn(_JEQ_K, policy.threads_only, 0, 5),
            _insn(_LD_W_ABS, _arg_low(0)),
            _insn(_JSET_K, CLONE_NAMESPACES, 2, 0),
            _insn(_JSET_K, CLONE_THREAD, 0, 1),
            _insn(_RET_K, RET_ALLOW),
            kill,
        ]
    program.append(kill)
    return b"".join(program)
