"""The backend a rewritten variant is built and run through: every source is screened before it is compiled,
and on the simulator the compiled object may reference only the simulator's own symbols."""

from __future__ import annotations

from pathlib import Path

from tuner.backends.base import Artifact, Backend, Profile, RunResult
from tuner.errors import CompileError
from tuner.mutate.screen import ScreenError, check_symbols, screen_source
from tuner.sim.args import KernelArg


class ScreenedBackend(Backend):
    """Wraps a backend for untrusted kernels; a source the screen rejects is a compile error that never built,
    and its builds are cached apart from the packaged templates' (`version` differs)."""

    def __init__(self, inner: Backend, kernel: str) -> None:
        self.inner, self.kernel = inner, kernel
        self.name, self.soc = inner.name, inner.soc
        self.version = f"{inner.version}+screened"

    def build(self, source: Path, kernel: str, defines: tuple[str, ...] = ()) -> Artifact:
        try:
            screen_source(Path(source).read_text(), kernel)
        except ScreenError as exc:
            raise CompileError(f"rejected by the screen: {exc}", str(exc)) from None
        if getattr(self.inner, "screens_objects", False):  # builds a host object the symbol check can read
            try:
                return self.inner.build(source, kernel, defines, check_object=check_symbols)
            except ScreenError as exc:
                raise CompileError(f"rejected by the symbol check: {exc}", str(exc)) from None
        return self.inner.build(source, kernel, defines)

    def run(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> RunResult:
        return self.inner.run(artifact, args, block_dim)

    def profile(self, artifact: Artifact, args: list[KernelArg], block_dim: int, trace: Path | None = None) -> Profile:
        return self.inner.profile(artifact, args, block_dim, trace)

    def time(self, artifact: Artifact, args: list[KernelArg], block_dim: int) -> float:
        return self.inner.time(artifact, args, block_dim)

    def msprof(self, artifact: Artifact, args: list[KernelArg], block_dim: int, output: Path) -> dict:
        return self.inner.msprof(artifact, args, block_dim, output)
