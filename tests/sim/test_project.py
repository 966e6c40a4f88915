"""CANN custom-operator projects (msopgen layout) on the simulator: op_host's OpDef, InferShape and tiling run on
the inputs, the kernel gets its generated TilingData, DTYPE_* and tiling key, and the outputs match numpy; what
is wrong in a project is one `project` fault line."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.sandbox import sandbox_problem
from tuner.sim.project import kernel_keys, lib_workspace_bytes, simulate_project, snake_case

PROJECTS = Path(__file__).parent / "projects"
SOC = "Ascend910B2"


def _project_faults(result) -> list[str]:
    return [f.text for f in result.faults if f.cls == "project"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_add_custom_two_dtypes_by_cores_and_tiles(dtype):
    rng = np.random.default_rng(0)
    for shape in [(8, 2048), (32, 1024), (4, 4096)]:
        x = rng.standard_normal(shape).astype(dtype)
        y = rng.standard_normal(shape).astype(dtype)
        r = simulate_project(PROJECTS / "add_custom", {"x": x, "y": y}, {}, SOC)
        assert r.ok, [f.text for f in r.faults]
        assert r.kernel == "add_custom" and r.block_dim == 8 and r.tiling_key == 0
        assert r.outputs["z"].dtype == dtype and r.outputs["z"].shape == shape
        np.testing.assert_array_equal(r.outputs["z"], (x + y).astype(dtype))
        assert r.task_duration_us and r.task_duration_us > 0


def test_tiling_bytes_follow_the_declared_fields_with_natural_alignment():
    x = np.ones((8, 2048), np.float16)
    r = simulate_project(PROJECTS / "add_custom", {"x": x, "y": x}, {}, SOC)
    # uint32 totalLength, uint32 tileNum, uint8 flag + 7 bytes of padding, uint64 blockLength: 24 bytes, as the
    # kernel's generated struct (checked there by a static_assert against the host's sizeof).
    assert len(r.tiling) == 24
    total, tiles, flag = struct.unpack_from("<IIB", r.tiling)
    (block_length,) = struct.unpack_from("<Q", r.tiling, 16)
    assert (total, tiles, flag, block_length) == (16384, 8, 1, 2048)
    assert r.tiling[9:16] == bytes(7)


def test_outputs_written_by_name(tmp_path):
    x = np.full((8, 2048), 2, np.float32)
    r = simulate_project(PROJECTS / "add_custom", {"x": x, "y": x}, {}, SOC, output_dir=tmp_path / "out")
    assert r.ok
    assert r.written == [tmp_path / "out" / "z.npy"]
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "z.npy"), x + x)


def _softmax(x, scale):
    z = x * scale
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("shape, attrs, key", [
    ((20, 64), {"scale": "0.5"}, 2),                           # several rows per tile: key 2
    ((7, 128), {"max_rows_per_tile": "1"}, 1),                 # one row per tile: key 1
    ((96, 32), {"scale": "2", "max_rows_per_tile": "3"}, 2),
])
def test_softmax_attrs_and_tiling_keys(shape, attrs, key):
    rng = np.random.default_rng(1)
    for _ in range(2):
        x = rng.standard_normal(shape).astype(np.float32)
        r = simulate_project(PROJECTS / "scaled_softmax", {"x": x}, attrs, SOC)
        assert r.ok, [f.text for f in r.faults]
        assert r.tiling_key == key
        scale = float(attrs.get("scale", 1.0))
        assert r.attrs == {"scale": scale, "max_rows_per_tile": int(attrs.get("max_rows_per_tile", 4))}
        np.testing.assert_allclose(r.outputs["y"], _softmax(x, scale), rtol=1e-5, atol=1e-6)
        # no InferShape in this op: said, and y is shaped like x
        assert any("no InferShape" in w for w in r.warnings)


def test_a_high_level_api_tiling_struct_inside_the_tiling_data():
    """TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...) filled by SoftMaxTilingFunc(ge::Shape, ...) on the host,
    read by SoftMax in the kernel."""
    rng = np.random.default_rng(5)
    for rows, cols in [(32, 64), (8, 128)]:
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        r = simulate_project(PROJECTS / "softmax_adv", {"x": x}, {}, SOC)
        assert r.ok, [f.text for f in r.faults]
        np.testing.assert_allclose(r.outputs["y"], _softmax(x, 1.0), rtol=1e-5, atol=1e-6)


def test_workspace_user_part_after_the_library_share():
    rng = np.random.default_rng(2)
    for rows, cols in [(50, 64), (9, 128), (100, 8)]:
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        r = simulate_project(PROJECTS / "column_sum", {"x": x}, {}, SOC)
        assert r.ok, [f.text for f in r.faults]
        blocks = min(rows, 48)
        assert r.block_dim == blocks
        assert r.workspace_bytes == lib_workspace_bytes(get_soc(SOC)) + blocks * cols * 4
        assert r.outputs["y"].shape == (cols,)  # from InferShape (IMPL_OP_INFERSHAPE)
        np.testing.assert_allclose(r.outputs["y"], x.sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_optional_input_attrs_of_each_type_and_a_key_struct(dtype):
    """An absent OPTIONAL input is a nullptr; Float/String/ListInt/Bool attrs; TilingParse's compile info; the
    key-7 struct read with GET_TILING_DATA_WITH_STRUCT / _MEMBER; TILING_KEY_LIST; ORIG_DTYPE_X and FORMAT_Y."""
    rng = np.random.default_rng(4)
    for _ in range(2):
        x = rng.standard_normal(4096).astype(dtype)
        bias = rng.standard_normal(4096).astype(dtype)
        r = simulate_project(PROJECTS / "axpy_optional", {"x": x}, {"alpha": "1.5", "pad": "3,4"}, SOC)
        assert r.ok, [f.text for f in r.faults]
        assert r.tiling_key == (1 if dtype == np.float16 else 2)
        assert r.attrs == {"alpha": 1.5, "mode": "plain", "pad": [3, 4], "use_bias": True}
        np.testing.assert_allclose(r.outputs["y"], (x * dtype(1.5)).astype(dtype), rtol=1e-3)
        r = simulate_project(PROJECTS / "axpy_optional", {"x": x, "bias": bias}, {"alpha": "1.5", "mode": "negate"},
                             SOC)
        assert r.ok and r.tiling_key == 7, [f.text for f in r.faults]
        want = ((x * dtype(-1.5)).astype(dtype) + (bias * dtype(2)).astype(dtype)).astype(dtype)
        np.testing.assert_allclose(r.outputs["y"], want, rtol=1e-3, atol=1e-3)


def test_required_attr_without_default_must_be_given():
    with pytest.raises(UsageError, match="missing required attr 'alpha'"):
        simulate_project(PROJECTS / "axpy_optional", {"x": np.ones(4096, np.float32)}, {}, SOC)


@pytest.mark.parametrize("length, mode, words", [
    (100, 0, "the tiling function of FaultyTiling returned failure (ge::GRAPH_FAILED)"),
    (128, 1, "set no block dim"),
    (128, 2, "set tiling key 5, but the kernel has no TILING_KEY_IS(5) branch (its keys: 1, 3)"),
    (128, 3, "the tiling data (HugeTilingData, 80004 bytes) is bigger than the tiling buffer"),
])
def test_project_faults_are_one_line_each(length, mode, words):
    x = np.ones(length, np.float16)
    r = simulate_project(PROJECTS / "faulty_tiling", {"x": x}, {"mode": str(mode)}, SOC)
    faults = _project_faults(r)
    assert len(faults) == 1 and len(r.faults) == 1, faults
    assert faults[0].startswith("error: [project] ") and words in faults[0], faults[0]
    assert "\n" not in faults[0] and r.sim is None and not r.outputs


def test_faulty_project_runs_when_its_tiling_is_right():
    x = np.arange(128, dtype=np.float16)
    r = simulate_project(PROJECTS / "faulty_tiling", {"x": x}, {"mode": "0"}, SOC)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs["y"], x)


@pytest.mark.parametrize("inputs, attrs, message", [
    ({"x": np.ones(8, np.float16)}, {}, "missing required input 'y'"),
    ({"x": np.ones(8, np.float16), "y": np.ones(8, np.float16), "w": np.ones(8, np.float16)}, {},
     "the op has no input named 'w'"),
    ({"x": np.ones(8, np.int32), "y": np.ones(8, np.int32)}, {}, "match no column of the OpDef's DataType lists"),
    ({"x": np.ones(8, np.float16), "y": np.ones(8, np.float16)}, {"alpha": "1"}, "no attr named 'alpha'"),
])
def test_usage_errors(inputs, attrs, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        simulate_project(PROJECTS / "add_custom", inputs, attrs, SOC)


def test_attr_of_the_wrong_type_is_a_usage_error():
    with pytest.raises(UsageError, match="attr 'scale' takes a number, not 'big'"):
        simulate_project(PROJECTS / "scaled_softmax", {"x": np.ones((2, 8), np.float32)}, {"scale": "big"}, SOC)


@pytest.mark.skipif(sandbox_problem() is not None, reason="no sandbox on this machine")
def test_untrusted_project_runs_in_the_sandbox():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 2048)).astype(np.float32)
    r = simulate_project(PROJECTS / "add_custom", {"x": x, "y": x}, {}, SOC, untrusted=True)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs["z"], x + x)


def test_kernel_keys_and_names():
    assert kernel_keys(["if (TILING_KEY_IS(1)) {} else if (TILING_KEY_IS(2UL)) {}"]) == {1, 2}
    assert kernel_keys(["#define KEY_FP16 10\nif (TILING_KEY_IS(KEY_FP16)) {}", "TILING_KEY_LIST(3, 0x4)"]) == {
        3, 4, 10}
    assert kernel_keys(["// TILING_KEY_IS(9)\nint main() {}"]) == set()
    assert kernel_keys(["if (TILING_KEY_IS(key_of(x))) {}"]) is None
    assert snake_case("AddCustom") == "add_custom"
    assert snake_case("LayerNormV2Custom") == "layer_norm_v2_custom"
    assert snake_case("ScaledSoftmax") == "scaled_softmax"


# ---- the CLI ------------------------------------------------------------------------------------------------

def _cli(*args: str, cwd: Path):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "tuner.cli", "simulate", *args], cwd=cwd, capture_output=True,
                          text=True)


def test_the_cli_runs_a_project_and_writes_each_output_by_name(tmp_path):
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(4096).astype(np.float16) for _ in range(2))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    proc = _cli("--project", str(PROJECTS / "add_custom"), "--input", "x=x.npy", "--input", "y=y.npy", "--soc",
                "Ascend910B2", "--output-dir", "out", "--json", "r.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "simulated, Ascend910B2 model" in proc.stdout
    assert np.array_equal(np.load(tmp_path / "out" / "z.npy"), x + y)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["project"]["op"] == "AddCustom" and report["faults"] == []


def test_the_cli_names_a_missing_input_and_a_project_fault_in_one_line(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(4096, np.float16))
    proc = _cli("--project", str(PROJECTS / "add_custom"), "--input", "x=x.npy", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: missing required input 'y'"
    proc = _cli("--project", str(PROJECTS / "add_custom"), "add.asc", cwd=tmp_path)
    assert proc.returncode == 2 and "give no SOURCE" in proc.stderr
    np.save(tmp_path / "ones.npy", np.ones(100, np.float16))
    proc = _cli("--project", str(PROJECTS / "faulty_tiling"), "--input", "x=ones.npy", "--attr", "mode=0",
                cwd=tmp_path)
    assert proc.returncode == 1
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")] == [
        "error: [project] the tiling function of FaultyTiling returned failure (ge::GRAPH_FAILED)"], proc.stderr
