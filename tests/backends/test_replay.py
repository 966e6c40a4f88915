"""The replay backend: a recording made from a real run answers the same requests with the same answers, says
that its times are replayed, and fails loudly on any request it does not hold."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tuner.backends import RECORD_ENV, REPLAY_ENV, Choice, SimBackend, choose_backend, make_backend
from tuner.backends.args import GmBytes
from tuner.backends.replay import RecordingBackend, ReplayBackend, ReplayMiss, capabilities
from tuner.errors import CompileError, UsageError
from tuner.mutate.screen import ScreenError, check_symbols
from tuner.ops import get_operator
from tuner.ops.base import to_numpy

from .test_contract import BLOCKS, BROKEN, SCALE, SOC, npu_backend, scale_args

FOREIGN = SCALE.read_text().replace("extern \"C\"", 'extern "C" int getpid();\nextern "C"', 1).replace(
    "const bool last", "if (getpid() == 0) return;\n    const bool last", 1)


@pytest.fixture(scope="module")
def contract() -> ReplayBackend:
    """The committed recording of the contract test on the simulator."""
    return ReplayBackend(Path(__file__).parents[1] / "data" / "replays" / "backends-test_contract-Ascend910B2.npz")


def test_a_replay_is_the_recorded_backend_and_says_its_times_are_replayed(contract: ReplayBackend) -> None:
    assert (contract.name, contract.soc) == ("sim", SOC)
    assert contract.version.startswith("sim-")
    assert contract.time_source == f"simulated, {SOC} model (replayed)"
    assert contract.screens_objects and contract.sandboxes_untrusted  # the simulator's, as recorded


def test_a_launch_the_recording_lacks_is_a_miss_that_names_it(contract: ReplayBackend) -> None:
    artifact = contract.build(SCALE, "scale")
    with pytest.raises(ReplayMiss) as miss:
        contract.run(artifact, scale_args(), BLOCKS // 2)
    text = str(miss.value)
    assert f"holds no run of build {artifact.key} at block_dim {BLOCKS // 2}" in text  # type: ignore[attr-defined]
    assert "backends-test_contract-Ascend910B2.npz" in text and "; for the same build it holds: " in text
    assert f"run of build {artifact.key} at block_dim {BLOCKS} with" in text  # type: ignore[attr-defined]
    other = scale_args()[:2] + [GmBytes(struct.pack("<3I", 128, 64, 0), "tiling")]
    with pytest.raises(ReplayMiss, match="holds no profile .* bytes 800000004000000000000000"):
        contract.profile(artifact, other, BLOCKS)


def test_a_miss_is_not_caught_as_an_error_of_the_code_under_test(contract: ReplayBackend) -> None:
    artifact = contract.build(SCALE, "scale")
    with pytest.raises(ReplayMiss):
        try:
            contract.time(artifact, scale_args(), 1)
        except Exception:  # what a loop does with a kernel's or its own failure
            pytest.fail("a ReplayMiss was caught by `except Exception`")


def test_a_build_the_recording_lacks_is_a_miss(contract: ReplayBackend, tmp_path: Path) -> None:
    edited = tmp_path / "scale.cpp"
    edited.write_text(SCALE.read_text() + "// edited\n")
    with pytest.raises(ReplayMiss, match="holds no build of scale .*; for the same kernel it holds: build of scale"):
        contract.build(edited, "scale")
    with pytest.raises(ReplayMiss, match="holds nothing for the same kernel"):
        contract.build(SCALE, "other_kernel")


def test_record_then_replay_gives_the_same_answers(tmp_path: Path) -> None:
    """Builds (with the object check, a compile error and a refused object), a traced profile, two recorders
    merged into one file; the replay runs the real check on the recorded object."""
    sources = {name: tmp_path / f"{name}.cpp" for name in ("scale", "broken", "foreign")}
    for source, text in zip(sources.values(), (SCALE.read_text(), BROKEN, FOREIGN), strict=True):
        source.write_text(text)
    path = tmp_path / "recording.npz"
    recorder = RecordingBackend(SimBackend(SOC), path)
    artifact = recorder.build(sources["scale"], "scale", check_object=check_symbols)
    traced = recorder.profile(artifact, scale_args(), BLOCKS, trace=tmp_path / "trace.json")
    with pytest.raises(CompileError) as recorded_error:
        recorder.build(sources["broken"], "scale")
    with pytest.raises(ScreenError):
        recorder.build(sources["foreign"], "scale", check_object=check_symbols)
    recorder.close()
    second = RecordingBackend(SimBackend(SOC), path)  # another process's run into the same file
    run = second.run(second.build(sources["scale"], "scale"), scale_args(overrun=True), BLOCKS)
    second.close()

    replay = ReplayBackend(path)
    checked: list[Path] = []

    def check(obj: Path) -> None:
        checked.append(obj)
        check_symbols(obj)

    replayed = replay.build(sources["scale"], "scale", check_object=check)
    assert checked and checked[0].read_bytes()[:4] == b"\x7fELF"
    profile = replay.profile(replayed, scale_args(), BLOCKS, trace=tmp_path / "replayed.json")
    assert (profile.time_us, profile.pipe_ratios, profile.report) == (traced.time_us, traced.pipe_ratios,
                                                                      traced.report)
    assert profile.source == traced.source + " (replayed)"
    np.testing.assert_array_equal(profile.run.outputs[0], traced.run.outputs[0])
    assert json.loads((tmp_path / "replayed.json").read_text()) == json.loads((tmp_path / "trace.json").read_text())
    with pytest.raises(CompileError) as replayed_error:
        replay.build(sources["broken"], "scale")
    assert (replayed_error.value.summary, replayed_error.value.diagnostics, replayed_error.value.cacheable) == \
        (recorded_error.value.summary, recorded_error.value.diagnostics, recorded_error.value.cacheable)
    with pytest.raises(ScreenError, match="getpid"):
        replay.build(sources["foreign"], "scale", check_object=check_symbols)
    unchecked = replay.build(sources["scale"], "scale")
    again = replay.run(unchecked, scale_args(overrun=True), BLOCKS)
    assert (again.faults, again.fault_classes) == (run.faults, run.fault_classes)
    with pytest.raises(ReplayMiss, match="holds no build of scale .* untrusted=True"):
        replay.build(sources["scale"], "scale", untrusted=True)
    replay.close()


def test_make_and_choose_replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    recording = Path(__file__).parents[1] / "data" / "replays" / "backends-test_contract-Ascend910B2.npz"
    monkeypatch.delenv(REPLAY_ENV, raising=False)
    with pytest.raises(UsageError, match=f"set {REPLAY_ENV}=PATH"):
        make_backend("replay", SOC)
    assert make_backend("replay", SOC, recording=recording).soc == SOC
    monkeypatch.setenv(REPLAY_ENV, str(recording))  # every backend made answers from it, as the recorded one
    for asked in ("replay", "auto", "sim"):
        assert choose_backend(asked, None) == Choice("sim", SOC, f"replayed from the recording {recording}")
    replay = make_backend("sim", SOC)
    assert isinstance(replay, ReplayBackend) and replay.name == "sim"
    with pytest.raises(UsageError, match="is of the sim backend, not npu"):
        make_backend("npu", SOC)
    with pytest.raises(UsageError, match=f"is of {SOC}, not Ascend310P3"):
        choose_backend("sim", "Ascend310P3")
    monkeypatch.delenv(REPLAY_ENV)
    (tmp_path / "bad.npz").write_bytes(b"not a recording")
    (tmp_path / "cut.npz").write_bytes(recording.read_bytes()[:3000])
    for bad in ("bad.npz", "cut.npz"):
        with pytest.raises(UsageError, match=f"cannot read the recording .*{bad}"):
            make_backend("replay", SOC, recording=tmp_path / bad)
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "new.npz"))
    recorder = make_backend("sim", SOC)
    assert isinstance(recorder, RecordingBackend) and recorder.name == "sim"
    recorder.close()
    assert ReplayBackend(tmp_path / "new.npz").name == "sim"


def test_a_device_run_replays_its_times_in_order_and_torchs_timing(tmp_path: Path) -> None:
    """A device's times differ launch by launch (the stand-in NPU's are wall-clock times of the simulator): the
    replay gives them in the order they were measured, then round robin; torch's own op timed on the device
    comes back with its outputs."""
    op = get_operator("add")
    input_sets = [{k: to_numpy(v) for k, v in op.make_inputs((8, 64), "float16", i).items()} for i in range(2)]
    path = tmp_path / "npu.npz"
    with npu_backend(tmp_path / "machine") as npu:
        recorder = RecordingBackend(npu, path)
        artifact = recorder.build(SCALE, "scale")
        times = [recorder.time(artifact, scale_args(), BLOCKS) for _ in range(3)]
        torch_timing = recorder.time_torch(op, input_sets)
        recorder.save()
        declared = capabilities(npu)
    assert len(set(times)) == 3 and torch_timing is not None
    replay = ReplayBackend(path)
    assert (replay.name, replay.time_source) == ("npu", f"measured on {SOC} (replayed)")
    assert declared["screens_objects"] and all(getattr(replay, k) == v for k, v in declared.items())
    artifact = replay.build(SCALE, "scale")
    assert [replay.time(artifact, scale_args(), BLOCKS) for _ in range(4)] == [*times, times[0]]
    replayed = replay.time_torch(op, input_sets)
    assert replayed is not None and replayed.source == f"measured on {SOC} (replayed)"
    assert (replayed.median_us, replayed.launches) == (torch_timing.median_us, torch_timing.launches)
    for got, want in zip(replayed.outputs, torch_timing.outputs, strict=True):
        assert got.keys() == want.keys() and all(np.array_equal(got[k], want[k]) for k in got)
    with pytest.raises(ReplayMiss, match="holds no torch timing of add .* for the same operator it holds"):
        replay.time_torch(op, input_sets[:1])


def test_a_miss_at_the_command_line_is_one_line(tmp_path: Path) -> None:
    recording = Path(__file__).parents[1] / "data" / "replays" / "backends-test_contract-Ascend910B2.npz"
    env = {**os.environ, REPLAY_ENV: str(recording)}
    env.pop(RECORD_ENV, None)
    proc = subprocess.run([sys.executable, "-m", "tuner.cli", "optimize", "add", "--shape", "4x64", "--budget", "2",
                           "--jobs", "1", "--runs-dir", str(tmp_path / "runs")], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and "holds no build of add_custom" in errors[0] and "record it again" in errors[0]
