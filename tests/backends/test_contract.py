"""The Backend contract, one set of tests run against every implementation: the simulator, the NPU backend on
the stand-in machine (tests/backends/standin), and the replay of a recorded simulator run."""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from tuner.backends import SimBackend, time_source
from tuner.backends.args import GmBytes, GmIn, GmOut, KernelArg
from tuner.backends.base import Artifact, Backend
from tuner.backends.npu.backend import NpuBackend, TimingPolicy
from tuner.backends.npu.detect import detect
from tuner.backends.replay import ReplayBackend
from tuner.errors import CompileError, UsageError
from tuner.ops import get_operator
from tuner.ops.base import to_numpy

from .standin import enter, import_module
from .standin_msprof import install_msprof
from .test_npu_msprof import CURRENT

SOC = "Ascend910B2"
SCALE = Path(__file__).parent / "kernels" / "scale.cpp"
BLOCKS, BLOCK_LEN, TILE_LEN = 4, 256, 64
X = np.linspace(-3.0, 3.0, BLOCKS * BLOCK_LEN, dtype=np.float32)
BROKEN = '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void scale(GM_ADDR x) { undefined_call(x); }\n'
PIPES = {"vec", "scalar", "mte2", "mte3"}


def scale_args(overrun: bool = False) -> list[KernelArg]:
    tiling = struct.pack("<3I", BLOCK_LEN, TILE_LEN, int(overrun))
    return [GmIn(X, "x"), GmOut(np.dtype(np.float32), X.shape, "y"), GmBytes(tiling, "tiling")]


@contextmanager
def npu_backend(root: Path) -> Iterator[NpuBackend]:
    """The NPU backend on a stand-in machine laid out under `root` (with msprof), this process on it while the
    block runs."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        install_msprof(enter(root, monkeypatch).bin, CURRENT)
        found = detect(import_module=import_module)
        assert found.npu_ready, found.to_json()
        npu = NpuBackend(SOC, detection=found, timing=TimingPolicy(min_launches=3, min_total_ms=1.0, flush=False),
                         timeout_s=30.0)
        try:
            yield npu
        finally:
            npu.close()


@pytest.fixture(scope="module", params=["sim", "npu", pytest.param("replay", marks=pytest.mark.replay)])
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    if request.param == "sim":
        yield SimBackend(SOC)
    elif request.param == "npu":
        with npu_backend(tmp_path_factory.mktemp("machine")) as npu:
            yield npu
    else:
        yield request.getfixturevalue("replayed")(SOC)


@pytest.fixture(scope="module")
def built(backend: Backend) -> Artifact:
    return backend.build(SCALE, "scale")


def test_build_gives_an_artifact_of_the_kernel(backend: Backend, built: Artifact) -> None:
    assert (built.kernel, built.backend, built.soc) == ("scale", backend.name, SOC)
    assert backend.soc == SOC and backend.version


def test_a_source_that_does_not_compile_is_a_compile_error_with_diagnostics(backend: Backend, tmp_path: Path) -> None:
    broken = tmp_path / "broken.cpp"
    broken.write_text(BROKEN)
    with pytest.raises(CompileError) as info:
        backend.build(broken, "scale")
    assert "undefined_call" in info.value.summary and "broken.cpp:2" in info.value.summary
    assert "undefined_call" in info.value.diagnostics


def test_run_gives_the_outputs(backend: Backend, built: Artifact) -> None:
    run = backend.run(built, scale_args(), BLOCKS)
    assert run.ok and run.faults == [] and len(run.outputs) == 1
    np.testing.assert_array_equal(run.outputs[0], 2 * X)


def test_profile_gives_a_time_its_source_the_pipes_and_the_outputs(backend: Backend, built: Artifact) -> None:
    profile = backend.profile(built, scale_args(), BLOCKS)
    assert profile.time_us > 0 and math.isfinite(profile.time_us)
    assert profile.source.startswith(time_source(backend.name, backend.soc))  # a replay's: the recorded one's
    assert profile.source.endswith("(replayed)") == isinstance(backend, ReplayBackend)
    assert set(profile.pipe_ratios) == PIPES and all(0 <= r <= 1 for r in profile.pipe_ratios.values())
    assert profile.pipe_ratios["mte2"] > 0 and profile.pipe_ratios["vec"] > 0
    assert profile.gm_to_ub_bytes == X.nbytes == profile.ub_to_gm_bytes
    assert profile.run.ok
    np.testing.assert_array_equal(profile.run.outputs[0], 2 * X)
    for later in (profile.after_timing,) if profile.after_timing is not None else ():
        np.testing.assert_array_equal(later.outputs[0], 2 * X)


def test_a_faulty_kernel_is_a_result_not_an_exception(backend: Backend, built: Artifact) -> None:
    profile = backend.profile(built, scale_args(overrun=True), BLOCKS)
    assert not profile.run.ok and profile.run.fault_classes == ["out-of-bounds"]
    assert "past the end of GM buffer 'y'" in profile.run.faults[0]
    assert math.isnan(profile.time_us) or profile.time_us > 0


def test_time_is_a_fresh_time_of_a_checked_kernel(backend: Backend, built: Artifact) -> None:
    first = backend.time(built, scale_args(), BLOCKS)
    assert first > 0 and math.isfinite(first)
    if backend.name != "npu":  # a model's time is the same each launch; a device's varies
        assert first == backend.profile(built, scale_args(), BLOCKS).time_us



def test_msprof_profiles_a_launch_on_a_device_only(backend: Backend, built: Artifact, tmp_path: Path) -> None:
    if backend.name != "npu":
        with pytest.raises(UsageError, match="msprof profiles kernels on an NPU; the sim backend has none"):
            backend.msprof(built, scale_args(), BLOCKS, tmp_path / "msprof")
        return
    report = backend.msprof(built, scale_args(), BLOCKS, tmp_path / "msprof")
    assert report["pipe_ratios"]["mte2"] == pytest.approx(0.9)  # the stand-in msprof's PipeUtilization.csv
    assert report["source"].startswith("msprof op")


def test_torch_is_timed_on_a_device_only(backend: Backend) -> None:
    op = get_operator("add")
    inputs = {name: to_numpy(t) for name, t in op.make_inputs((8, 64), "float16", 0).items()}
    timing = backend.time_torch(op, [inputs])
    if backend.name != "npu":
        assert timing is None  # the simulator runs Ascend C only
        return
    assert timing is not None and timing.source == f"measured on {SOC}" and timing.median_us > 0
    np.testing.assert_array_equal(timing.outputs[0]["z"], inputs["x"] + inputs["y"])
