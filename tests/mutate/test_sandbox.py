"""The backend rewritten variants go through: the static screen, then the simulator's symbol check, each a
compile error that names the reason; ordinary kernels build as before, cached apart from trusted builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuner.backends import SimBackend
from tuner.errors import CompileError
from tuner.mutate.sandbox import ScreenedBackend

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
