"""The OS sandbox for untrusted kernels: bubblewrap namespaces (`jail.py`) and a seccomp filter (`seccomp.py`)."""

from tuner.sandbox.jail import Jail, SandboxUnavailable, require_sandbox, sandbox_problem, seccomp_fd
from tuner.sandbox.seccomp import SandboxPolicyError, compile_filter, load_policy

__all__ = [
    "Jail",
    "SandboxPolicyError",
    "SandboxUnavailable",
    "compile_filter",
    "load_policy",
    "require_sandbox",
    "sandbox_problem",
    "seccomp_fd",
]
