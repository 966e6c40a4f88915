"""One kernel per fault class, each triggering exactly that class, reported at the right API and line.

The kernels live in tests/sim/kernels/faults/; each source holds a clean version (BUG=0, checked here too,
so every fault test can fail) and one bug per BUG value. A line marked `// FAULT n` is where the fault of
BUG=n must be reported. The CLI is checked for its exit codes: 0 clean, 1 fault (one kernel of every class),
2 usage error, 3 compile error (with a first line naming the API or construct).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from commands import tuner_here as tuner

from tuner.backends.args import GmIn, GmOut, Scalar
from tuner.errors import CompileError, UsageError
from tuner.sim.run import SimResult, simulate

FAULTS = Path(__file__).resolve().parent / "kernels" / "faults"
MEMORY, QUEUE, SYNC, MULTI, CERR = (FAULTS / f for f in
                                    ("memory.cpp", "queue.cpp", "sync.cpp", "multicore.cpp", "compile_errors.cpp"))

rng = np.random.default_rng(7)


def fault_line(source: Path, tag: str | int) -> int:
    """1-based line of the `// FAULT <tag...>` marker naming BUG=tag."""
    for i, line in enumerate(source.read_text().splitlines(), 1):
        m = re.search(r"// FAULT ([\w ]+)$", line)
        if m and str(tag) in m[1].split():
            return i
    raise AssertionError(f"no '// FAULT {tag}' marker in {source.name}")


def classes(r: SimResult) -> list[str]:
    return sorted({f.cls for f in r.faults})


def assert_only(r: SimResult, cls: str, api: str | None, source: Path, tag: str | int) -> None:
    """Exactly one fault of class `cls`, at `api` on the marked line (api None: the text names the line)."""
    assert [f.cls for f in r.faults] == [cls], [f.text for f in r.faults]
    f = r.faults[0]
    line = fault_line(source, tag)
    assert f.text.startswith(f"error: [{cls}] ")
    if r.block_dim == 1:  # a fault repeated in a loop is one block, not several
        assert "more block" not in f.text, f.text
    if api is not None:
        assert (f.api, Path(f.file).name, f.line) == (api, source.name, line), f.text
        assert f"{api} at {source}:{line}" in f.text
    else:
        assert f"{source}:{line}" in f.text, f.text


# ---- memory: ub-overflow, misaligned, out-of-bounds -------------------------------------------------

N_MEM = 1024
X_MEM = rng.standard_normal(N_MEM).astype(np.float32)


def run_memory(bug: int) -> SimResult:
    return simulate(MEMORY, "mem_fault", 1, [GmIn(X_MEM, "x"), GmOut(np.dtype(np.float32), (N_MEM,), "z"),
                                             Scalar("u32", N_MEM)], defines=[f"BUG={bug}"])


def test_memory_clean():
    r = run_memory(0)
    assert r.faults == []
    np.testing.assert_array_equal(r.outputs[0], X_MEM + 1)


@pytest.mark.parametrize("bug, cls, api, words", [
    (1, "ub-overflow", "TPipe::InitBuffer", ["198656 more bytes", "may allocate 196608 bytes"]),
    (2, "misaligned", "DataCopy", ["40 bytes, not a multiple of 32"]),
    (3, "misaligned", "DataCopy", ["UB offset 12", "not 32-byte aligned"]),
    (4, "misaligned", "Adds", ["src0", "UB offset 4"]),
    (5, "out-of-bounds", "DataCopy", ["GM buffer 'x' holds 4096 bytes", "[3328, 4352)"]),
    (6, "out-of-bounds", "Adds", ["dst", "past the end of its buffer by 32 bytes"]),
    (8, "out-of-bounds", "LocalTensor::GetValue", ["element 256"]),
])
def test_memory_faults(bug, cls, api, words):
    r = run_memory(bug)
    assert_only(r, cls, api, MEMORY, bug)
    for w in words:
        assert w in r.faults[0].text


RESERVED_UB = FAULTS / "reserved_ub.cpp"


@pytest.mark.parametrize("mode", [1, 2])
def test_select_scratch_in_the_reserved_ub(mode):
    """A2's TPipe may take the whole 192 KB; Select's modes 1 and 2 then overwrite the block at 184 KB."""
    x = rng.standard_normal(64).astype(np.float32)
    expected = np.where(np.unpackbits(np.full(8, 0x55, np.uint8), bitorder="little").astype(bool), x, 2.0)
    args = [GmIn(x, "x"), GmOut(np.dtype(np.float32), (64,), "z")]
    for ub_bytes, faulty in ((196608, True), (188416, False)):
        r = simulate(RESERVED_UB, "reserved_ub", 1, args, defines=[f"UB_BYTES={ub_bytes}", f"MODE={mode}"])
        if faulty:
            assert_only(r, "ub-overflow", "Select", RESERVED_UB, mode)
            assert "scratch at UB offset 188416" in r.faults[0].text and "reach 196608 bytes" in r.faults[0].text
        else:
            assert r.faults == [], [f.text for f in r.faults]
            np.testing.assert_array_equal(r.outputs[0], expected.astype(np.float32))


def test_raw_gm_pointer_past_the_end_hits_the_guard_page():
    r = run_memory(7)
    assert [f.cls for f in r.faults] == ["out-of-bounds"]
    text = r.faults[0].text
    assert "raw __gm__ access past the end of GM buffer 'z' (4096 bytes)" in text
    assert "after TQue::FreeTensor at" in text  # the last Ascend C call before the bad write


# ---- queue misuse ------------------------------------------------------------------------------------

N_Q = 1024
X_Q = rng.standard_normal(N_Q).astype(np.float16)


def run_queue(bug: int) -> SimResult:
    return simulate(QUEUE, "queue_fault", 1, [GmIn(X_Q, "x"), GmOut(np.dtype(np.float16), (N_Q,), "z"),
                                              Scalar("u32", N_Q)], defines=[f"BUG={bug}"])


def test_queue_clean():
    r = run_queue(0)
    assert r.faults == []
    np.testing.assert_array_equal(r.outputs[0], np.maximum(X_Q, 0))


@pytest.mark.parametrize("bug, api, words", [
    (1, "TQue::DeQue", ["DeQue on an empty VECOUT queue"]),
    (2, "TQue::EnQue", ["EnQue past the queue depth", "depth 1"]),
    (3, "TQue::AllocTensor", ["9 tensors allocated and not freed on position VECIN", "at most 8"]),
    (5, "TQue::FreeTensor", ["already free"]),
])
def test_queue_faults(bug, api, words):
    r = run_queue(bug)
    assert_only(r, "queue-misuse", api, QUEUE, bug)
    for w in words:
        assert w in r.faults[0].text


def test_a_tensor_never_freed_is_a_warning_not_a_fault():
    """Harmless on the NPU (Huawei's own layernorm example leaves one allocated): the run is clean, the report
    says where it was allocated."""
    r = run_queue(4)
    assert r.faults == [], [f.text for f in r.faults]
    line = fault_line(QUEUE, 4)
    assert any("are never freed" in w and f"queue.cpp:{line}" in w for w in r.warnings), r.warnings


# ---- intra-core synchronisation ----------------------------------------------------------------------

N_S = 1024
X_S = rng.standard_normal(N_S).astype(np.float32)


def run_sync(bug: int, auto_sync: bool = True) -> SimResult:
    return simulate(SYNC, "sync_fault", 1, [GmIn(X_S, "x"), GmOut(np.dtype(np.float32), (N_S,), "z"),
                                            GmOut(np.dtype(np.float32), (8,), "last"), Scalar("u32", N_S)],
                    defines=[f"BUG={bug}"], auto_sync=auto_sync)


@pytest.mark.parametrize("auto_sync", [True, False])
def test_sync_clean(auto_sync):
    r = run_sync(0, auto_sync)
    assert r.faults == []
    np.testing.assert_array_equal(r.outputs[0], X_S + 1)
    assert r.outputs[1][0] == X_S[-256] + 1


@pytest.mark.parametrize("auto_sync", [True, False])
@pytest.mark.parametrize("bug, cls, api, words", [
    (1, "sync-hazard", "Adds", ["V reads", "that MTE2 wrote at"]),
    (3, "sync-hazard", "SetFlag", ["SetFlag V->MTE3 (event id 1) is never waited for"]),
    (4, "deadlock", "WaitFlag", ["WaitFlag<MTE2_V>(1)", "never set"]),
    (5, "sync-hazard", "DataCopy", ["MTE3 reads", "that V wrote at"]),
    (6, "sync-hazard", "DataCopy", ["MTE2 overwrites", "that V reads at"]),
])
def test_sync_faults(bug, cls, api, words, auto_sync):
    r = run_sync(bug, auto_sync)
    assert_only(r, cls, api, SYNC, bug)
    for w in words:
        assert w in r.faults[0].text


def test_getvalue_without_v_s_flag_is_a_hazard_only_without_auto_sync():
    assert run_sync(2, auto_sync=True).faults == []  # bisheng's auto-sync inserts the V->S wait
    r = run_sync(2, auto_sync=False)
    assert_only(r, "sync-hazard", "LocalTensor::GetValue", SYNC, 2)
    assert "S reads" in r.faults[0].text and f"that V wrote at {SYNC}:{fault_line(SYNC, 1)}" in r.faults[0].text


def test_dma_read_of_gm_setvalue_without_cache_write_back_is_a_hazard():
    idiom = FAULTS.parent / "idioms" / "gm_scalar.cpp"
    r = simulate(idiom, "gm_scalar", 1, [GmOut(np.dtype(np.float32), (16,)), GmOut(np.dtype(np.float32), (24,)),
                                         Scalar("f32", 0.5)], defines=["NO_DCCI=1"])
    assert [f.cls for f in r.faults] == ["sync-hazard"]
    f = r.faults[0]
    assert (f.api, f.file) == ("DataCopy", str(idiom))
    assert "the DMA read of the table" in idiom.read_text().splitlines()[f.line - 1]
    assert "left in the scalar data cache; a DataCacheCleanAndInvalid on them is missing" in f.text
    assert "GlobalTensor::SetValue at" in f.text


# ---- between blocks: gm-race, deadlock, timeout ---------------------------------------------------------

TILE_MC = 64


def run_multi(bug: int, blocks: int, timeout_s: float = 60.0) -> tuple[SimResult, np.ndarray]:
    x = rng.standard_normal(TILE_MC * blocks).astype(np.float32)
    r = simulate(MULTI, "mc_fault", blocks, [GmIn(x, "x"), GmOut(np.dtype(np.float32), x.shape, "z"),
                                             GmOut(np.dtype(np.int32), (8,), "flag")],
                 defines=[f"BUG={bug}"], timeout_s=timeout_s)
    return r, x


@pytest.mark.parametrize("blocks", [1, 8, 48])
def test_multicore_clean(blocks):
    r, x = run_multi(0, blocks)
    assert r.faults == []
    np.testing.assert_allclose(r.outputs[0], 2 * x + 1, rtol=1e-6)


def test_gm_race():
    r, _ = run_multi(1, 8)
    assert [f.cls for f in r.faults] == ["gm-race"]
    text = r.faults[0].text
    line = fault_line(MULTI, 1)
    assert re.search(rf"blocks 0 \(DataCopy at {re.escape(str(MULTI))}:{line}\) and \d+ \(DataCopy at ", text)
    assert "GM buffer 'z'" in text and "[0, 256)" in text


@pytest.mark.parametrize("blocks", [2, 8, 48])
def test_gm_race_found_whatever_the_schedule(blocks):
    # The last block writes block 0's slice long after block 0 has finished: never at the same time.
    for _ in range(3):
        r, _ = run_multi(4, blocks)
        assert [f.cls for f in r.faults] == ["gm-race"]
        assert f"blocks 0 (DataCopy at {MULTI}:{fault_line(MULTI, 4)}) and {blocks - 1} " in r.faults[0].text


@pytest.mark.parametrize("blocks", [2, 8])
def test_reading_what_another_block_writes_without_sync_all_is_a_gm_race(blocks):
    r, _ = run_multi(5, blocks)
    assert [f.cls for f in r.faults] == ["gm-race"]
    read, write = fault_line(MULTI, 5), fault_line(MULTI, 1)
    assert re.search(rf"block \d+ reads \(DataCopy at {re.escape(str(MULTI))}:{read}\) GM bytes that block \d+ "
                     rf"writes \(DataCopy at {re.escape(str(MULTI))}:{write}\) with no SyncAll", r.faults[0].text)


def test_sync_all_on_some_blocks_is_a_deadlock():
    r, _ = run_multi(2, 8)
    assert_only(r, "deadlock", "SyncAll", MULTI, 2)
    assert "7 blocks wait at the barrier while 1 blocks ended" in r.faults[0].text


def test_sync_all_beyond_the_vector_cores_is_a_deadlock():
    # Ascend910B1 has 48 vector cores: 49 blocks run in two waves and the first never leaves the barrier.
    r, _ = run_multi(0, 49)
    assert_only(r, "deadlock", "SyncAll", MULTI, "W")
    assert "49 blocks" in r.faults[0].text and "48 vector cores" in r.faults[0].text


def test_endless_loop_times_out():
    r, _ = run_multi(3, 2, timeout_s=1.5)
    assert [f.cls for f in r.faults] == ["timeout"]
    text = r.faults[0].text
    assert "longer than 1.5 s" in text
    assert f"was last in GlobalTensor::GetValue at {MULTI}:{fault_line(MULTI, 3)}" in text


# ---- compile errors through the Python API -------------------------------------------------------------

def run_cerr(err: int, soc: str = "Ascend910B1") -> SimResult:
    x = rng.standard_normal(64).astype(np.float32)
    return simulate(CERR, "cerr_kernel", 1, [GmIn(x), GmOut(np.dtype(np.float32), (64,)), GmIn(x)], soc=soc,
                    defines=[f"ERR={err}"])


def test_compile_error_source_is_clean_without_errors():
    assert run_cerr(0).faults == []
    assert run_cerr(4).faults == []  # DataCopyPad exists on A2


def test_compile_error_is_raised_with_a_summary():
    with pytest.raises(CompileError) as exc:
        run_cerr(1)
    assert exc.value.summary == (f"{CERR}:{fault_line(CERR, 1)}: error: GroupNorm is not supported by the tuner "
                                 "simulator: this high-level API is not provided yet (docs/simulator.md lists those "
                                 "that are)")


@pytest.mark.parametrize("err, words", [
    (6, ["‘AllocMutexID’ was not declared", "not provided by the tuner simulator, or misspelt"]),
    (7, ["no matching function for call to ‘Muls(", "must have the tensor's element type: write (float)value"]),
])
def test_compile_error_hints(err, words):
    with pytest.raises(CompileError) as exc:
        run_cerr(err)
    assert exc.value.summary.startswith(f"{CERR}:{fault_line(CERR, err)}: error: ")
    for w in words:
        assert w in exc.value.summary


def test_undeclared_name_in_a_file_named_after_the_kernel_is_not_a_missing_kernel(tmp_path):
    src = tmp_path / "cerr_kernel.cpp"  # the path contains the kernel's name
    src.write_text(CERR.read_text())
    with pytest.raises(CompileError) as exc:
        simulate(src, "cerr_kernel", 1, [], defines=["ERR=6"])
    assert "AllocMutexID" in exc.value.summary and "no kernel function" not in exc.value.summary
    with pytest.raises(CompileError, match="no kernel function named 'no_such_kernel'"):
        simulate(src, "no_such_kernel", 1, [], defines=["ERR=0"])


def test_usage_error_is_raised():
    with pytest.raises(UsageError, match="takes 3 parameters, 2 --arg given"):
        simulate(CERR, "cerr_kernel", 1, [GmIn(np.zeros(64, np.float32)), GmOut(np.dtype(np.float32), (64,))],
                 defines=["ERR=0"])


# ---- the CLI: exit codes 0/1/2/3 -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def npy(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cli")
    np.save(d / "x1024.npy", X_MEM)
    np.save(d / "h1024.npy", X_Q)
    np.save(d / "x64.npy", rng.standard_normal(64).astype(np.float32))
    np.save(d / "x512.npy", rng.standard_normal(512).astype(np.float32))
    return d


def test_cli_exit_0_on_a_clean_kernel(npy):
    p = tuner("simulate", str(MEMORY), "--kernel", "mem_fault", "--block-dim", "1", "--define", "BUG=0",
              "--arg", "in=x1024.npy", "--arg", "out=z.npy:float32:1024", "--arg", "u32=1024", cwd=npy)
    assert p.exit_code == 0, p.stderr
    assert "mem_fault: 1 block(s) on Ascend910B1: ok" in p.stdout
    np.testing.assert_array_equal(np.load(npy / "z.npy"), X_MEM + 1)


CLI_FAULTS = [
    # (class, source, kernel, block_dim, defines, args, extra options)
    ("ub-overflow", MEMORY, "mem_fault", 1, "BUG=1", ["in=x1024.npy", "out=z.npy:float32:1024", "u32=1024"], []),
    ("misaligned", MEMORY, "mem_fault", 1, "BUG=2", ["in=x1024.npy", "out=z.npy:float32:1024", "u32=1024"], []),
    ("out-of-bounds", MEMORY, "mem_fault", 1, "BUG=7", ["in=x1024.npy", "out=z.npy:float32:1024", "u32=1024"],
     []),
    ("queue-misuse", QUEUE, "queue_fault", 1, "BUG=5", ["in=h1024.npy", "out=z.npy:float16:1024", "u32=1024"], []),
    ("sync-hazard", SYNC, "sync_fault", 1, "BUG=2",
     ["in=x1024.npy", "out=z.npy:float32:1024", "out=l.npy:float32:8", "u32=1024"], ["--no-auto-sync"]),
    ("gm-race", MULTI, "mc_fault", 8, "BUG=1", ["in=x512.npy", "out=z.npy:float32:512", "out=f.npy:int32:8"], []),
    ("deadlock", MULTI, "mc_fault", 8, "BUG=2", ["in=x512.npy", "out=z.npy:float32:512", "out=f.npy:int32:8"], []),
    ("timeout", MULTI, "mc_fault", 8, "BUG=3", ["in=x512.npy", "out=z.npy:float32:512", "out=f.npy:int32:8"],
     ["--timeout", "1"]),
]


@pytest.mark.parametrize("cls, source, kernel, blocks, define, args, extra", CLI_FAULTS,
                         ids=[c[0] for c in CLI_FAULTS])
def test_cli_exit_1_on_each_fault_class(npy, cls, source, kernel, blocks, define, args, extra):
    argv = [str(source), "--kernel", kernel, "--block-dim", str(blocks), "--define", define, "--json", "r.json",
            *extra]
    for a in args:
        argv += ["--arg", a]
    p = tuner("simulate", *argv, cwd=npy)
    assert p.exit_code == 1, p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("error: [")]
    assert errors and all(line.startswith(f"error: [{cls}] ") for line in errors), p.stderr
    report = json.loads((npy / "r.json").read_text())
    assert {f["class"] for f in report["faults"]} == {cls}


@pytest.mark.parametrize("args, message", [
    (["in=x1024.npy", "out=z.npy:float32:1024"], "kernel 'mem_fault' takes 3 parameters, 2 --arg given"),
    (["in=x1024.npy", "u32=5", "u32=1024"], "parameter 2 of 'mem_fault' is a pointer (GM_ADDR)"),
    (["in=x1024.npy", "out=z.npy:float32:1024", "in=x1024.npy"], "parameter 3 of 'mem_fault' is passed by value"),
    (["in=x1024.npy", "out=z.npy:float32:1024", "u64=1024"], "parameter 3 of 'mem_fault' is a 4-byte integral"),
])
def test_cli_exit_2_on_usage_errors(npy, args, message):
    argv = [str(MEMORY), "--kernel", "mem_fault", "--block-dim", "1", "--define", "BUG=0"]
    for a in args:
        argv += ["--arg", a]
    p = tuner("simulate", *argv, cwd=npy)
    assert p.exit_code == 2, p.stderr
    assert p.stderr.splitlines()[0].startswith("error: ") and message in p.stderr.splitlines()[0], p.stderr


@pytest.mark.parametrize("err, soc, words", [
    (1, "Ascend910B1", ["GroupNorm is not supported by the tuner simulator"]),
    (2, "Ascend910B1", ["GET_TILING_DATA is not supported by the tuner simulator"]),
    (3, "Ascend910B1", ["Exp: this element type is not supported on Ascend910B1", "T = bfloat16_t"]),
    (4, "Ascend310P3", ["DataCopyPad is not available on Ascend310P3"]),
    (5, "Ascend910B1", ["Mmad is not supported by the tuner simulator", "cube (matrix) APIs are out of scope"]),
], ids=["GroupNorm", "GET_TILING_DATA", "Exp-bf16", "DataCopyPad-310P", "cube"])
def test_cli_exit_3_on_compile_errors(npy, err, soc, words):
    p = tuner("simulate", str(CERR), "--kernel", "cerr_kernel", "--block-dim", "1", "--soc", soc, "--define",
              f"ERR={err}", "--arg", "in=x64.npy", "--arg", "out=z.npy:float32:64", "--arg", "in=x64.npy", cwd=npy)
    assert p.exit_code == 3, p.stderr
    first = p.stderr.splitlines()[0]
    # One line, in the user's file at the offending line, naming the API or construct.
    assert first.startswith(f"{CERR}:{fault_line(CERR, err)}: error: "), first
    for w in words:
        assert w in first, first


# ---- mask-form extents -------------------------------------------------------------------------------------

MASKED = FAULTS / "masked_extent.cpp"


@pytest.mark.parametrize("lanes, fault", [(40, None), (32, None), (48, "out-of-bounds")])
def test_a_mask_form_instruction_reaches_only_its_enabled_lanes(lanes, fault):
    x = rng.standard_normal(40).astype(np.float32)
    r = simulate(MASKED, "masked_extent", 1, [GmIn(x), GmOut(np.dtype(np.float32), (40,))], defines=[f"LANES={lanes}"])
    assert [f.cls for f in r.faults] == ([fault] if fault else []), [f.text for f in r.faults]
    if fault is None:
        expected = x.copy()
        expected[:lanes] += 1
        assert np.array_equal(r.outputs[0], expected)
