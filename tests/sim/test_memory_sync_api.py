"""Memory management, cross-core synchronisation and DMA atomics of A2 Ascend C (issue 16).

Kernels in tests/sim/kernels/memsync/; each source has a clean version (BUG=0) and one bug per BUG value, with
the line of each fault marked `// FAULT n`. Every API is checked against numpy on random inputs, and every
check the simulator makes of it (ub-overflow, misaligned, queue-misuse, gm-race, deadlock) has a kernel that
triggers it, so each test can fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Scalar
from tuner.sim.run import SimResult, simulate

KERNELS = Path(__file__).resolve().parent / "kernels" / "memsync"
STATIC, POOL, ATOMIC, CROSS = (KERNELS / f for f in ("static_tensor.cpp", "bufpool.cpp", "atomic.cpp",
                                                     "crosscore.cpp"))
F32, F16, I32 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.int32)


def fault_line(source: Path, tag: int) -> int:
    """1-based line of the `// FAULT ...` marker naming BUG=tag (the last one when several do)."""
    found = 0
    for i, line in enumerate(source.read_text().splitlines(), 1):
        m = re.search(r"// FAULT ([\d ]+)$", line)
        if m and str(tag) in m[1].split():
            found = i
    assert found, f"no '// FAULT {tag}' marker in {source.name}"
    return found


def assert_fault(r: SimResult, cls: str, source: Path, tag: int, words: tuple[str, ...] = ()) -> None:
    """The run's faults are all of class `cls`, one of them at the marked line, its text holding `words`."""
    assert r.faults, "expected a fault"
    assert {f.cls for f in r.faults} == {cls}, [f.text for f in r.faults]
    line = fault_line(source, tag)
    hits = [f for f in r.faults if f"{source}:{line}" in f.text]
    assert hits, ([f.text for f in r.faults], line)
    for w in words:
        assert any(w in f.text for f in hits), (w, [f.text for f in hits])


# ---- static Tensor programming: InitSocState, LocalMemAllocator, LocalTensor(pos, addr, tileSize) -----------

@pytest.mark.parametrize("tile, blocks, seed", [(2048, 8, 0), (520, 3, 1)])
def test_allocator_add(tile, blocks, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(blocks * tile).astype(np.float32)
    y = rng.standard_normal(blocks * tile).astype(np.float32)
    r = simulate(STATIC, "alloc_add", blocks, [GmIn(x, "x"), GmIn(y, "y"), GmOut(F32, (blocks * tile,), "z"),
                                                GmOut(np.dtype(np.uint32), (8,), "info")], defines=[f"TILE={tile}"])
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0], x + y)
    tile_bytes = -(-tile * 4 // 32) * 32  # each Alloc rounded up to 32 bytes
    start, third, cur, ub, ub_rt, pos = r.outputs[1][:6]
    assert (start, third, cur) == (0, 2 * tile_bytes, 3 * tile_bytes)
    assert ub == ub_rt == 196608  # GetUBSizeInBytes / GetRuntimeUBSize on A2: the 192 KB UB
    assert pos == 10  # TPosition::VECOUT, as given to Alloc<TPosition::VECOUT, float, TILE>()
    assert all(b["ub_peak_bytes"] == 3 * tile_bytes for b in r.report["blocks"])


@pytest.mark.parametrize("blocks, length, seed", [(1, 2048, 0), (3, 5120, 1), (2, 1024, 2)])
def test_fixed_address_add(blocks, length, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(blocks * length).astype(np.float16)
    y = rng.standard_normal(blocks * length).astype(np.float16)
    r = simulate(STATIC, "fixed_add", blocks, [GmIn(x, "x"), GmIn(y, "y"), GmOut(F16, (blocks * length,), "z"),
                                                Scalar("u32", length)])
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0], (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16))


def test_fixed_address_whole_ub():
    """Six 32 KB tiles fill A2's UB exactly (add_high_performance's ping-pong layout): the last one fits."""
    x = np.random.default_rng(3).standard_normal(16384).astype(np.float16)
    r = simulate(STATIC, "whole_ub", 1, [GmIn(x, "x"), GmOut(F16, (16384,), "z")])
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0], x)
    assert r.report["blocks"][0]["ub_peak_bytes"] == 196608


def _fixed(bug: int) -> SimResult:
    x = np.ones(2048, np.float16)
    return simulate(STATIC, "fixed_add", 1, [GmIn(x, "x"), GmIn(x, "y"), GmOut(F16, (2048,), "z"),
                                             Scalar("u32", 2048)], defines=[f"BUG={bug}"])


def test_fixed_address_past_ub_is_ub_overflow():
    assert_fault(_fixed(1), "ub-overflow", STATIC, 1, ("LocalTensor(pos, addr, tileSize)", "past the 196608 bytes"))


def test_fixed_address_misaligned():
    assert_fault(_fixed(2), "misaligned", STATIC, 2, ("not 32-byte aligned", "address % 32 = 16"))


def test_fixed_address_missing_flag_is_sync_hazard():
    assert_fault(_fixed(4), "sync-hazard", STATIC, 4, ("V reads",))


def test_allocator_past_ub_is_ub_overflow():
    x = np.ones(2048, np.float32)
    r = simulate(STATIC, "alloc_add", 1, [GmIn(x, "x"), GmIn(x, "y"), GmOut(F32, (2048,), "z"),
                                          GmOut(np.dtype(np.uint32), (8,), "info")], defines=["BUG=3"])
    assert_fault(r, "ub-overflow", STATIC, 3, ("LocalMemAllocator::Alloc", "at UB address 24576"))


# ---- TBufPool ---------------------------------------------------------------------------------------------

def _pool(scenario: int, bug: int, blocks: int = 4, seed: int = 0) -> tuple[SimResult, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(blocks * 512).astype(np.float16)
    y = rng.standard_normal(blocks * 512).astype(np.float16)
    r = simulate(POOL, "bufpool_stages", blocks, [GmIn(x, "x"), GmIn(y, "y"), GmOut(F16, (blocks * 512,), "z1"),
                                                  GmOut(F16, (blocks * 512,), "z2")],
                 defines=[f"BUG={bug}", f"SCENARIO={scenario}"])
    return r, x, y


@pytest.mark.parametrize("scenario, seed", [(1, 0), (2, 1)])
def test_bufpool_stages(scenario, seed):
    """Two stages in one UB region (a shared pool, or one carved in an outer pool); Reset orders them."""
    r, x, y = _pool(scenario, 0, seed=seed)
    assert r.faults == [], [f.text for f in r.faults]
    f32 = np.float32
    np.testing.assert_array_equal(r.outputs[0], (x.astype(f32) + y.astype(f32)).astype(np.float16))
    np.testing.assert_array_equal(r.outputs[1], (x.astype(f32) - y.astype(f32)).astype(np.float16))
    # The pools reuse UB: scenario 1 carves 3 buffers, scenario 2 four (an outer pool of 4).
    assert r.report["blocks"][0]["ub_peak_bytes"] == (3 if scenario == 1 else 4) * 1024


def test_bufpool_over_allocation_is_ub_overflow():
    r, _, _ = _pool(1, 1)
    assert_fault(r, "ub-overflow", POOL, 1, ("TBufPool InitBuffer(queue)", "in a pool of 3072 bytes"))


def test_bufpool_too_many_buffers_is_queue_misuse():
    r, _, _ = _pool(1, 2)
    assert_fault(r, "queue-misuse", POOL, 2, ("bufIDSize allows 3",))


def test_bufpool_shared_longer_than_its_pool():
    r, _, _ = _pool(1, 3)
    assert_fault(r, "ub-overflow", POOL, 3, ("4096 bytes shared with a pool of 3072 bytes",))


def test_bufpool_without_reset_is_sync_hazard():
    r, _, _ = _pool(1, 4)
    assert_fault(r, "sync-hazard", POOL, 4)


# ---- DMA atomics --------------------------------------------------------------------------------------------

DTYPES = {"float": np.float32, "half": np.float16, "bfloat16_t": ml_dtypes.bfloat16, "int32_t": np.int32,
          "int16_t": np.int16, "int8_t": np.int8}


def _atomic(dtype: str, op: int, pad: int, blocks: int, n: int, seed: int, bug: int = 0):
    rng = np.random.default_rng(seed)
    npdt = DTYPES[dtype]
    if dtype == "float":
        x = rng.standard_normal(blocks * n).astype(np.float32)
    else:  # small integers: every sum is exact in the type, whatever order the blocks add in
        x = rng.integers(-8, 9, blocks * n).astype(npdt)
    r = simulate(ATOMIC, "atomic_reduce", blocks, [GmIn(x, "x"), GmOut(np.dtype(npdt), (n,), "z"), Scalar("u32", n)],
                 defines=[f"DTYPE={dtype}", f"OP={op}", f"PAD={pad}", f"BUG={bug}"])
    return r, x.reshape(blocks, n)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("op", [0, 1, 2])
def test_atomic_datacopy(dtype, op):
    """SetAtomicAdd/Max/Min: 16 blocks write the same bytes of z (zeroed), which ends as the sum/max/min."""
    n = 256 if dtype != "int8_t" else 512
    r, xs = _atomic(dtype, op, 0, 16, n, seed=op)
    assert r.faults == [], [f.text for f in r.faults]  # concurrent atomic writes are not a gm-race
    z = r.outputs[0]
    zero = np.zeros(n, xs.dtype)
    if op == 0:
        want = xs.astype(np.float64).sum(0)
        if dtype == "float":
            np.testing.assert_allclose(z, want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(z.astype(np.float64), want)
    else:
        fn = np.maximum if op == 1 else np.minimum
        np.testing.assert_array_equal(z, fn.reduce(np.vstack([xs, zero]), axis=0))


@pytest.mark.parametrize("dtype", ["float", "half", "int32_t"])
def test_atomic_datacopypad(dtype):
    """DataCopyPad UB->GM (an unaligned byte count) under SetAtomicAdd."""
    r, xs = _atomic(dtype, 0, 1, 5, 253, seed=7)
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_allclose(r.outputs[0].astype(np.float64), xs.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


def test_atomic_strided_and_none():
    """A strided atomic copy adds to its blocks only; after SetAtomicNone a copy overwrites."""
    x = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    r = simulate(ATOMIC, "atomic_strided", 1, [GmIn(x, "x"), GmOut(F32, (128,), "z")])
    assert r.faults == [], [f.text for f in r.faults]
    want = np.zeros(128, np.float32)
    for k in range(4):
        want[32 * k: 32 * k + 16] = x[16 * k: 16 * k + 16]
    want[96:128] = x[:32]
    np.testing.assert_array_equal(r.outputs[0], want)


def test_plain_overlapping_write_is_still_gm_race():
    r, _ = _atomic("float", 0, 0, 4, 256, seed=1, bug=1)
    assert [f.cls for f in r.faults] == ["gm-race"], [f.text for f in r.faults]
    assert "both write the same GM bytes" in r.faults[0].text
    assert f"{ATOMIC}:{fault_line(ATOMIC, 1)}" in r.faults[0].text


def test_plain_write_against_atomic_writes_is_gm_race():
    r, _ = _atomic("float", 0, 0, 4, 256, seed=1, bug=2)
    assert [f.cls for f in r.faults] == ["gm-race"], [f.text for f in r.faults]


def test_atomic_type_mismatch_is_unsupported():
    r, _ = _atomic("half", 0, 0, 2, 256, seed=1, bug=3)
    assert_fault(r, "unsupported", ATOMIC, 3, ("2-byte elements", "4-byte elements"))


# ---- cross-core synchronisation ---------------------------------------------------------------------------

N = 256  # floats per slice (crosscore.cpp)


def _ib(bug: int = 0, work: int = 0, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(2 * N).astype(np.float32)
    y = rng.standard_normal(2 * N).astype(np.float32)
    r = simulate(CROSS, "ib_pair", 2, [GmIn(x, "x"), GmIn(y, "y"), GmOut(I32, (256,), "sync"),
                                       GmOut(F32, (2 * N,), "z")], defines=[f"BUG={bug}", f"WORK={work}"],
                 timeout_s=30)
    return r, x, y


@pytest.mark.parametrize("seed", [0, 1])
def test_ibset_ibwait(seed):
    r, x, y = _ib(seed=seed)
    assert r.faults == [], [f.text for f in r.faults]  # ordered by the flag: no gm-race
    z = r.outputs[1]
    np.testing.assert_array_equal(z[:N], x[:N] + y[:N])
    np.testing.assert_array_equal(z[N:], (x[:N] + y[:N]) + y[N:])


def test_without_ibset_the_read_is_a_gm_race():
    r, _, _ = _ib(bug=1)
    assert [f.cls for f in r.faults] == ["gm-race"], [f.text for f in r.faults]
    assert "block 1 reads" in r.faults[0].text and "that block 0 writes" in r.faults[0].text


def test_ibwait_never_set_is_deadlock():
    r, _, _ = _ib(bug=2)
    assert_fault(r, "deadlock", CROSS, 2, ("eventID 1", "never comes"))


def test_wait_charges_the_setters_time():
    """Block 1 waits for block 0's IBSet: its timeline cannot end before block 0 reached the set, and grows
    with block 0's work before it."""
    times = {}
    for work in (0, 200):
        r, _, _ = _ib(work=work)
        assert r.faults == []
        t = {b["block_id"]: b["aiv_time_us"] for b in r.report["blocks"]}
        assert t[1] > t[0]
        times[work] = t
    assert times[200][0] > times[0][0] + 1.0
    assert times[200][1] - times[0][1] > 0.9 * (times[200][0] - times[0][0])


def _ring(bug: int = 0, blocks: int = 8, seed: int = 0):
    x = np.random.default_rng(seed).standard_normal(blocks * N).astype(np.float32)
    r = simulate(CROSS, "ring", blocks, [GmIn(x, "x"), GmOut(F32, (blocks * N,), "z"), GmOut(F32, (blocks * N,), "w")],
                 defines=[f"BUG={bug}"], timeout_s=30)
    return r, x


@pytest.mark.parametrize("blocks", [2, 8])
def test_crosscore_flags(blocks):
    r, x = _ring(blocks=blocks, seed=blocks)
    assert r.faults == [], [f.text for f in r.faults]
    z = 2 * x.reshape(blocks, N)
    np.testing.assert_array_equal(r.outputs[1], np.roll(2 * z, -1, axis=0).ravel())


def test_crosscore_wait_never_set_is_deadlock():
    r, _ = _ring(bug=3)
    assert_fault(r, "deadlock", CROSS, 3, ("CrossCoreWaitFlag<0>(4)", "never comes"))


def test_without_crosscore_flags_is_gm_race():
    r, _ = _ring(bug=4)
    assert [f.cls for f in r.faults] == ["gm-race"], [f.text for f in r.faults]


def test_crosscore_flags_in_waves_is_deadlock():
    r, _ = _ring(blocks=49)  # A2 (Ascend910B1) has 48 vector cores: the second wave cannot start
    assert [f.cls for f in r.faults] == ["deadlock"], [f.text for f in r.faults]
    assert "waves" in r.faults[0].text


def _ordered(bug: int = 0, blocks: int = 8, seed: int = 0):
    x = np.random.default_rng(seed).standard_normal(blocks * 2 * N).astype(np.float32)
    r = simulate(CROSS, "ordered", blocks, [GmIn(x, "x"), GmOut(F32, (2 * N,), "z"), GmOut(I32, (blocks * 8,), "ws")],
                 defines=[f"BUG={bug}"], timeout_s=30)
    return r, x.reshape(blocks, 2 * N)


@pytest.mark.parametrize("blocks, seed", [(8, 0), (3, 1)])
def test_wait_pre_block_orders_the_blocks(blocks, seed):
    """WaitPreBlock / NotifyNextBlock: the atomic adds happen in blockIdx order, so the float sum is exactly the
    one added in that order (any other order would differ in the last bits)."""
    r, xs = _ordered(blocks=blocks, seed=seed)
    assert r.faults == [], [f.text for f in r.faults]
    want = np.zeros(2 * N, np.float32)
    for b in range(blocks):
        want = (want + xs[b]).astype(np.float32)
    np.testing.assert_array_equal(r.outputs[0], want)
    t = [b["aiv_time_us"] for b in sorted(r.report["blocks"], key=lambda b: b["block_id"])]
    assert t == sorted(t)  # each block ends after the one before it


def test_wait_pre_block_without_notify_is_deadlock():
    r, _ = _ordered(bug=5)
    assert_fault(r, "deadlock", CROSS, 5, ("NotifyNextBlock number 2", "never comes"))


def _group(bug: int = 0, seed: int = 0):
    x = np.random.default_rng(seed).standard_normal(8 * N).astype(np.float32)
    r = simulate(CROSS, "group", 6, [GmIn(x, "x"), GmOut(F32, (8 * N,), "z"), GmOut(F32, (8 * N,), "w"),
                                     GmOut(I32, (4 * 512,), "ws")], defines=[f"BUG={bug}"], timeout_s=30)
    return r, x


def test_group_barrier():
    r, x = _group()
    assert r.faults == [], [f.text for f in r.faults]
    z0 = x[:N] + x[:N]
    for _ in range(20):  # block 0's extra work: z = (z + x) - x, rounded each time
        z0 = (z0 + x[:N]) - x[:N]
    np.testing.assert_array_equal(r.outputs[0][:2 * N], np.concatenate([z0, 2 * x[N:2 * N]]))
    np.testing.assert_array_equal(r.outputs[1][:4 * N], np.tile(z0 + 2 * x[N:2 * N], 4))


def test_group_barrier_missing_arrive_is_deadlock():
    r, _ = _group(bug=6)
    assert_fault(r, "deadlock", CROSS, 6, ("GroupBarrier::Wait",))


def test_syncall_used_cores():
    """SyncAll(gm, ub, usedCores): blocks 0..usedCores-1 meet, the others never call it and are not waited for."""
    x = np.random.default_rng(4).standard_normal(4 * N).astype(np.float32)
    r = simulate(CROSS, "some_sync", 4, [GmIn(x, "x"), GmOut(F32, (4 * N,), "z"), GmOut(F32, (4 * N,), "w"),
                                         GmOut(I32, (4 * 8,), "ws")], timeout_s=30)
    assert r.faults == [], [f.text for f in r.faults]
    xs = x.reshape(4, N)
    w = r.outputs[1].reshape(4, N)
    np.testing.assert_array_equal(w[0], 2 * xs[1] + xs[0])
    np.testing.assert_array_equal(w[1], 2 * xs[0] + xs[1])
    np.testing.assert_array_equal(w[2:], 3 * xs[2:])


# ---- DataCopy with SliceInfo, SetPadValue, Copy -----------------------------------------------------------

COPIES = KERNELS / "copies.cpp"


@pytest.mark.parametrize("seed", [0, 1])
def test_datacopy_slice_2d(seed):
    """data_copy_gm2ub_slice's case: rows 0 and 2 of a 3 x 87 source, slices 16..39 and 47..70 of each."""
    x = np.random.default_rng(seed).standard_normal(3 * 87).astype(np.float32)
    r = simulate(COPIES, "slice2d", 1, [GmIn(x, "x"), GmOut(F32, (96,), "z")])
    assert r.faults == [], [f.text for f in r.faults]
    xr = x.reshape(3, 87)
    want = np.concatenate([np.concatenate([xr[row, 16:40], xr[row, 47:71]]) for row in (0, 2)])
    np.testing.assert_array_equal(r.outputs[0], want)


def test_datacopy_slice_1d_strided():
    x = np.random.default_rng(2).standard_normal(96).astype(np.float32)
    r = simulate(COPIES, "slice1d", 1, [GmIn(x, "x"), GmOut(F32, (64,), "z")])
    assert r.faults == [], [f.text for f in r.faults]
    want = np.zeros(64, np.float32)
    for k in range(4):
        want[16 * k: 16 * k + 8] = x[24 * k: 24 * k + 8]
    np.testing.assert_array_equal(r.outputs[0], want)


def test_datacopy_slice_misaligned_ub():
    x = np.zeros(3 * 87, np.float32)
    r = simulate(COPIES, "slice2d", 1, [GmIn(x, "x"), GmOut(F32, (96,), "z")], defines=["BUG=1"])
    assert_fault(r, "misaligned", COPIES, 1, ("not on a 32-byte boundary",))


@pytest.mark.parametrize("rows, cols", [(5, 11), (3, 1)])
def test_set_pad_value(rows, cols):
    x = np.random.default_rng(cols).standard_normal(rows * cols).astype(np.float16)
    r = simulate(COPIES, "pad_value", 1, [GmIn(x, "x"), GmOut(F16, (rows * 16,), "z"), Scalar("u32", rows),
                                          Scalar("u32", cols)])
    assert r.faults == [], [f.text for f in r.faults]
    want = np.full((rows, 16), 7, np.float16)
    want[:, :cols] = x.reshape(rows, cols)
    np.testing.assert_array_equal(r.outputs[0], want.ravel())


def ref_masked_copy(x: np.ndarray, lanes_on: list[int], repeat: int, dstb: int, srcb: int, dstr: int,
                    srcr: int) -> np.ndarray:
    per = 32 // x.dtype.itemsize  # elements per 32-byte block
    z = np.zeros_like(x)
    for r in range(repeat):
        for lane in lanes_on:
            blk, i = divmod(lane, per)
            z[(r * dstr + blk * dstb) * per + i] = x[(r * srcr + blk * srcb) * per + i]
    return z


COPY_CASES = [  # dtype, defines, lanes on (of 128 / 64), repeat, dstB, srcB, dstR, srcR
    ("float", {}, list(range(64)), 2, 1, 1, 8, 8),
    ("half", {"MASK": 100, "REPEAT": 3}, list(range(100)), 3, 1, 1, 8, 8),
    ("int32_t", {"MASK": 13, "DSTB": 2, "SRCB": 1, "DSTR": 16, "SRCR": 8}, list(range(13)), 2, 2, 1, 16, 8),
    ("bfloat16_t", {"DSTB": 1, "SRCB": 2, "DSTR": 8, "SRCR": 16, "REPEAT": 3, "MASK": 128}, list(range(128)), 3, 1,
     2, 8, 16),
    ("float", {"BITS": 1, "MASK_LO": 0x00FF00F0F0F0F0FF}, [i for i in range(64) if 0x00FF00F0F0F0F0FF >> i & 1],
     2, 1, 1, 8, 8),
    ("uint16_t", {"BITS": 1, "MASK_LO": 0x00FF00F0F0F0F0FF, "MASK_HI": 0xF000000000000001},
     [i for i in range(128) if (0xF000000000000001 << 64 | 0x00FF00F0F0F0F0FF) >> i & 1], 2, 1, 1, 8, 8),
]


@pytest.mark.parametrize("dtype, defs, lanes, repeat, dstb, srcb, dstr, srcr", COPY_CASES)
def test_masked_copy(dtype, defs, lanes, repeat, dstb, srcb, dstr, srcr):
    npdt = {"float": np.float32, "half": np.float16, "int32_t": np.int32, "bfloat16_t": ml_dtypes.bfloat16,
            "uint16_t": np.uint16}[dtype]
    rng = np.random.default_rng(len(lanes))
    n = 2048
    if np.issubdtype(npdt, np.integer):
        x = rng.integers(0, 30000, n).astype(npdt)
    else:
        x = (rng.standard_normal(n) * 100).astype(npdt)
    defines = [f"DTYPE={dtype}"] + [f"{k}={v}" for k, v in defs.items()]
    r = simulate(COPIES, "masked_copy", 1, [GmIn(x, "x"), GmOut(np.dtype(npdt), (n,), "z"), Scalar("u32", n)],
                 defines=defines)
    assert r.faults == [], [f.text for f in r.faults]
    want = ref_masked_copy(x, lanes, repeat, dstb, srcb, dstr, srcr)
    np.testing.assert_array_equal(r.outputs[0].view(np.uint8), want.view(np.uint8))


def test_init_soc_state_turns_atomics_off():
    x = np.random.default_rng(8).standard_normal(64).astype(np.float32)
    r = simulate(ATOMIC, "init_clears_atomic", 1, [GmIn(x, "x"), GmOut(F32, (64,), "z"), GmOut(F32, (64,), "w")])
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0], x + x)  # two atomic adds onto zeros
    np.testing.assert_array_equal(r.outputs[1], x)  # an atomic add, then a plain overwrite


def test_gm_flag_through_bypass_accesses_orders_the_blocks():
    x = np.random.default_rng(9).standard_normal(64).astype(np.float32)
    r = simulate(ATOMIC, "bypass_flag", 2, [GmIn(x, "x"), GmOut(F32, (64,), "z"), GmOut(F32, (64,), "w"),
                                            GmOut(I32, (16,), "sync")], timeout_s=30)
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0], x)
    np.testing.assert_array_equal(r.outputs[1], x)
    assert list(r.outputs[2][:2]) == [1, 42] and r.outputs[2][8] == 84


# ---- a GM flag set with SetValue and polled with GetValue around DataCacheCleanAndInvalid ---------------------

FLAG_POLL = KERNELS / "flag_poll.cpp"


def _flag_poll(blocks: int, bug: int, seed: int = 0) -> tuple[SimResult, np.ndarray]:
    x = np.random.default_rng(seed).standard_normal(blocks * 64).astype(np.float32)
    r = simulate(FLAG_POLL, "flag_poll", blocks,
                 [GmIn(x, "x"), GmOut(F32, (blocks * 64,), "partial"), GmOut(np.dtype(np.int32), (blocks * 16,),
                                                                         "flags"), GmOut(F32, (64,), "z")],
                 defines=[f"BUG={bug}"])
    return r, x


@pytest.mark.parametrize("blocks, seed", [(2, 0), (4, 1), (8, 2)])
def test_a_flag_cleaned_out_of_the_data_cache_orders_the_handover(blocks, seed):
    r, x = _flag_poll(blocks, 0, seed)
    assert r.faults == [], [f.text for f in r.faults]
    expected = x.reshape(blocks, 64).astype(np.float64).sum(axis=0)
    assert np.allclose(r.outputs[2], expected, rtol=1e-6, atol=1e-6)


def test_a_flag_left_in_the_data_cache_orders_nothing():
    r, _ = _flag_poll(4, 1)
    assert "gm-race" in {f.cls for f in r.faults}, [f.text for f in r.faults]
