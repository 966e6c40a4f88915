"""The backend rewritten variants go through: the static screen, then the simulator's symbol check, each a
compile error that names the reason; ordinary kernels build as before, cached apart from trusted builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuner.backends import SimBackend
from tuner.errors import CompileError, UsageError
from tuner.mutate.sandbox import ScreenedBackend
from tuner.sandbox import jail, sandbox_problem
from tuner.sim.build import kernels_dir

from .test_screen import ENTRY, HEAD


@pytest.mark.parametrize(("body", "reason"), [
    ('#include <cstdlib>\n' + ENTRY + "{\n}\n", "rejected by the screen"),
    (ENTRY + "{\n    *(__gm__ uint8_t *)x = getenv(\"HOME\") != nullptr;\n}\n", "rejected by the symbol check"),
])
def test_untrusted_sources_are_compile_errors_with_their_reason(tmp_path: Path, body: str, reason: str):
    backend = ScreenedBackend(SimBackend("Ascend910B2"), "probe")
    path = tmp_path / "probe.cpp"
    path.write_text(HEAD + body)
    with pytest.raises(CompileError) as caught:
        backend.build(path, "probe")
    assert str(caught.value).startswith(reason)


def test_an_ordinary_kernel_builds_and_is_cached_apart(tmp_path: Path):
    inner = SimBackend("Ascend910B2")
    backend = ScreenedBackend(inner, "probe")
    path = tmp_path / "probe.cpp"
    path.write_text(HEAD + ENTRY + "{\n}\n")
    assert backend.build(path, "probe").path.exists()
    assert backend.version != inner.version and backend.name == inner.name and backend.soc == inner.soc


def _probe(tmp_path: Path) -> Path:
    path = tmp_path / "probe.cpp"
    path.write_text(HEAD + ENTRY + "{\n}\n")
    return path


def test_an_llm_kernel_is_built_for_the_sandbox_and_cached_apart(tmp_path: Path):
    if sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    inner = SimBackend("Ascend910B2")
    jailed = ScreenedBackend(inner, "probe", jailed=True)
    artifact = jailed.build(_probe(tmp_path), "probe")
    assert artifact.untrusted and artifact.path.parent.parent == kernels_dir(True)
    assert jailed.version not in (inner.version, ScreenedBackend(inner, "probe").version)
    with pytest.raises(UsageError, match="not built for the sandbox"):
        jailed.run(ScreenedBackend(inner, "probe").build(_probe(tmp_path), "probe"), [], 1)


def test_where_there_is_no_sandbox_an_llm_kernel_is_refused_never_run(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    jail.sandbox_problem.cache_clear()
    try:
        with pytest.raises(CompileError, match="runs only in the sandbox.*bubblewrap is not installed") as caught:
            ScreenedBackend(SimBackend("Ascend910B2"), "probe", jailed=True).build(_probe(tmp_path), "probe")
    finally:
        jail.sandbox_problem.cache_clear()
    assert not caught.value.cacheable  # installing bubblewrap is enough for the next run to take it


def test_a_backend_without_a_sandbox_refuses_llm_kernels(tmp_path: Path):
    class DeviceLike(SimBackend):  # the NPU backend's device worker has no sandbox
        sandboxes_untrusted = False

    with pytest.raises(CompileError, match="runs only in the sandbox") as caught:
        ScreenedBackend(DeviceLike("Ascend910B2"), "probe", jailed=True).build(_probe(tmp_path), "probe")
    assert not caught.value.cacheable
