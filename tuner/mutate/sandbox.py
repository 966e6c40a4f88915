"""The backend a rewritten variant is built and run through: every source is screened before it is compiled, on
the simulator the compiled object may reference only the simulator's own symbols, and a kernel an LLM wrote is
built and run in the OS sandbox (tuner/sandbox/), or refused where there is none."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tuner.backends.args import KernelArg
from tuner.backends.base import Artifact, Backend, Profile, RunResult
from tuner.errors import CompileError, UsageError
from tuner.mutate.screen import ScreenError, check_symbols, screen_source
from tuner.sandbox import SandboxUnavailable


class ScreenedBackend(Backend):
    """Wraps a backend for rewritten kernels; a source the screen rejects is a compile error that never built,
    and its builds are cached apart from the packaged templates' (`version` differs). `jailed`: the kernel is
    untrusted (an LLM wrote some of it) and is built and run only in the sandbox; a backend that cannot do that
    (the NPU's device worker needs the driver) refuses it, as does a machine without a sandbox."""

    def __init__(self, inner: Backend, kernel: str, *, jailed: bool = False) -> None:
        self.inner, self.kernel, self.jailed = inner, kernel, jailed
        self.name, self.soc = inner.name, inner.soc
        self.version = f"{inner.version}+{'jailed' if jailed else 'screened'}"

    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = ()) -> Artifact:
        try:
            screen_source(Path(source).read_text(), kernel)
        except ScreenError as exc:
            raise CompileError(f"rejected by the screen: {exc}", str(exc)) from None
        if self.jailed and not getattr(self.inner, "sandboxes_untrusted", False):
            why = f"the {self.name} backend has no sandbox for it"
            raise CompileError(f"refused: a kernel an LLM wrote runs only in the sandbox; {why}", why,
                               cacheable=False)
        if getattr(self.inner, "screens_objects", False):  # builds a host object the symbol check can read
            try:
                check = partial(check_symbols, jailed=self.jailed)
                jailed = {"untrusted": True} if self.jailed else {}  # only a backend that sandboxes takes it
                return self.inner.build(source, kernel, defines, check_object=check, **jailed)
            except ScreenError as exc:
                raise CompileError(f"rejected by the symbol check: {exc}", str(exc)) from None
            except SandboxUnavailable as exc:
                raise CompileError(f"refused: a kernel an LLM wrote runs only in the sandbox; {exc}", str(exc),
                                   cacheable=False) from None
        return self.inner.build(source, kernel, defines)

    def _checked(self, artifact: Artifact) -> Artifact:
        if self.jailed and not artifact.untrusted:
            raise UsageError("an untrusted kernel's artifact was not built for the sandbox")
        return artifact

    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        return self.inner.run(self._checked(artifact), args, block_dim)

    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None,
                gate_us: float | None = None) -> Profile:
        return self.inner.profile(self._checked(artifact), args, block_dim, trace, gate_us)

    def time(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> float:
        return self.inner.time(self._checked(artifact), args, block_dim)

    def msprof(self, artifact: Artifact, args: list[KernelArg], block_dim: int, output: Path) -> dict:
        return self.inner.msprof(self._checked(artifact), args, block_dim, output)
