"""Exceptions of the tuner, one per way a candidate or a command can fail."""

from __future__ import annotations


class TunerError(Exception):
    """Base of every error the tuner reports to a user as one line."""


class UsageError(TunerError):
    """Raised when a command's input is wrong (unknown SoC, bad --arg, missing file); exit code 2."""


class CompileError(TunerError):
    """Raised when a kernel does not compile; carries the compiler's diagnostics; exit code 3. `cacheable` is
    False for a verdict that may not hold next time (a compiler stopped by its time limit)."""

    def __init__(self, summary: str, diagnostics: str, *, cacheable: bool = True) -> None:
        super().__init__(summary)
        self.summary = summary
        self.diagnostics = diagnostics
        self.cacheable = cacheable


class ToolchainError(TunerError):
    """Raised when the host toolchain (g++) needed by the simulator is missing or broken."""
