"""Exceptions of the tuner, one per way a candidate or a command can fail."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CompileError", "ErrorClass", "TunerError", "ToolchainError", "UsageError"]


class ErrorClass(StrEnum):
    """Why a trial did not give a time, as its `error_class` attribute records it (the value is the string kept).

    PRUNED trials carry a kernel's failure (infeasible up to interrupted) or a candidate not launched because the
    simulator predicted it slow (`predicted_slow`, on a device); FAIL trials the tuner's own (`tuner_error`) or a
    worker that died with the trial (`abandoned`)."""

    INFEASIBLE = "infeasible"
    RENDER_ERROR = "render_error"
    COMPILE_ERROR = "compile_error"
    FAULT = "fault"
    WRONG_RESULT = "wrong_result"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"
    PREDICTED_SLOW = "predicted_slow"
    TUNER_ERROR = "tuner_error"
    ABANDONED = "abandoned"

    @classmethod
    def of(cls, text: object) -> ErrorClass | None:
        """The class a recorded `error_class` attribute names, None for none or an unknown one."""
        try:
            return cls(text)
        except ValueError:
            return None

    @property
    def deterministic(self) -> bool:
        """A repeat of the same point gives the same verdict: a duplicate copies it instead of running again."""
        return self in _DETERMINISTIC

    @property
    def repairable(self) -> bool:
        """The kernel's own code is at fault, so an LLM may be asked to repair it."""
        return self in _REPAIRABLE


# a prediction is deterministic, and the gate mostly falls as the best improves: a point kept off the device stays off
_DETERMINISTIC = frozenset({ErrorClass.INFEASIBLE, ErrorClass.RENDER_ERROR, ErrorClass.COMPILE_ERROR,
                            ErrorClass.FAULT, ErrorClass.WRONG_RESULT, ErrorClass.TIMEOUT, ErrorClass.PREDICTED_SLOW})
_REPAIRABLE = frozenset({ErrorClass.COMPILE_ERROR, ErrorClass.RENDER_ERROR, ErrorClass.WRONG_RESULT,
                         ErrorClass.FAULT})


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


class ReplayMiss(BaseException):
    """A request a replayed backend's recording does not hold (tuner/backends/replay.py). Like pytest's own outcomes
    it is a BaseException, so that no `except Exception` in the code under test turns a missing answer into a
    trial's failure; the CLI reports it in one line."""
