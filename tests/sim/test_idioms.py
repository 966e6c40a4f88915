"""No false alarms: correct Ascend C idioms must run with ZERO faults and give the right numbers.

Kernels in tests/sim/kernels/idioms/ (plus the add sample). Where an idiom is written to be correct without
bisheng's auto-sync too, it is also run with auto_sync=False; a few negative controls (the same source with
its explicit synchronisation compiled out) show the checker is not simply silent.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Scalar, Struct
from tuner.sim.run import SimResult, simulate

KERNELS = Path(__file__).resolve().parent / "kernels"
IDIOMS = KERNELS / "idioms"

rng = np.random.default_rng(11)


def clean(r: SimResult) -> SimResult:
    assert r.faults == [], "\n".join(f.text for f in r.faults)
    assert r.warnings == [] or all("low-confidence" in w for w in r.warnings), r.warnings
    return r


BOTH = pytest.mark.parametrize("auto_sync", [True, False], ids=["auto-sync", "no-auto-sync"])


@BOTH
@pytest.mark.parametrize("blocks", [1, 8])
def test_queue_double_buffering(blocks, auto_sync):
    n = 8 * 2048
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    r = clean(simulate(KERNELS / "add_custom.cpp", "add_custom", blocks,
                       [GmIn(x, "x"), GmIn(y, "y"), GmOut(np.dtype(np.float16), (n,), "z"), Scalar("u32", n),
                        Scalar("u32", 8)], auto_sync=auto_sync))
    np.testing.assert_array_equal(r.outputs[0], x + y)


@BOTH
def test_explicit_flags_with_fetch_and_alloc_event_ids(auto_sync):
    n = 4 * 2048
    x = rng.standard_normal(n).astype(np.float32)
    r = clean(simulate(IDIOMS / "flags.cpp", "flags_idiom", 4,
                       [GmIn(x), GmOut(np.dtype(np.float32), (n,)), Scalar("u32", n)], auto_sync=auto_sync))
    np.testing.assert_allclose(r.outputs[0], 2 * np.exp(x), rtol=1e-5)


def _reduce_getvalue(auto_sync: bool, explicit: int) -> tuple[SimResult, np.ndarray]:
    rows, cols = 16, 96
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    r = simulate(IDIOMS / "reduce_getvalue.cpp", "reduce_getvalue", 1,
                 [GmIn(x), GmOut(np.dtype(np.float32), (rows, 8)), Scalar("u32", rows), Scalar("u32", cols)],
                 auto_sync=auto_sync, defines=[f"EXPLICIT={explicit}"])
    return r, x


@pytest.mark.parametrize("auto_sync, explicit", [(True, 0), (True, 1), (False, 1)],
                         ids=["auto-sync", "auto-sync+flags", "no-auto-sync+flags"])
def test_getvalue_after_reduce(auto_sync, explicit):
    r, x = _reduce_getvalue(auto_sync, explicit)
    clean(r)
    np.testing.assert_allclose(r.outputs[0][:, 0], x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(r.outputs[0][:, 1], x.max(axis=1))
    np.testing.assert_array_equal(r.outputs[0][:, 2:], 0)


def test_getvalue_after_reduce_without_flags_or_auto_sync_is_caught():
    r, _ = _reduce_getvalue(False, 0)
    assert {f.cls for f in r.faults} == {"sync-hazard"}
    assert any("S reads" in f.text and f.api == "LocalTensor::GetValue" for f in r.faults)


@pytest.mark.parametrize("blocks", [1, 8])
def test_tbuf_fp32_upcast_via_cast(blocks):
    n = 8 * 1024
    x = rng.standard_normal(n).astype(np.float16)
    r = clean(simulate(IDIOMS / "tbuf_cast.cpp", "tbuf_cast", blocks,
                       [GmIn(x), GmOut(np.dtype(np.float16), (n,)), Scalar("u32", n)]))
    np.testing.assert_array_equal(r.outputs[0], (x.astype(np.float32) ** 2 + 1).astype(np.float16))


@pytest.mark.parametrize("rows_per_block, cols, rows_per_tile", [(10, 19, 4), (7, 3, 7), (5, 33, 2)])
def test_datacopypad_tails(rows_per_block, cols, rows_per_tile):
    blocks = 4
    x = rng.standard_normal((blocks * rows_per_block, cols)).astype(np.float32)
    r = clean(simulate(IDIOMS / "pad_tail.cpp", "pad_tail", blocks,
                       [GmIn(x), GmOut(np.dtype(np.float32), x.shape),
                        Struct(struct.pack("<3I", rows_per_block, cols, rows_per_tile))]))
    np.testing.assert_array_equal(r.outputs[0], np.abs(x) + np.float32(0.5))


@BOTH
def test_in_place_count_form_ops(auto_sync):
    n = 1024
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    r = clean(simulate(IDIOMS / "inplace.cpp", "inplace_ops", 1,
                       [GmIn(x), GmIn(y), GmOut(np.dtype(np.float16), (n,)), Scalar("u32", n)],
                       auto_sync=auto_sync))
    ref = ((np.exp(x.astype(np.float32)).astype(np.float16) + y) * np.float16(0.5)).astype(np.float32)
    np.testing.assert_allclose(r.outputs[0].astype(np.float32), ref, rtol=2e-3, atol=1e-3)


@BOTH
def test_tquebind_vecin_vecout_pass_through(auto_sync):
    n = 8 * 1024
    x = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    r = clean(simulate(IDIOMS / "bind.cpp", "bind_copy", 8, [GmIn(x), GmOut(np.dtype(np.int32), (n,)),
                                                               Scalar("u32", n)], auto_sync=auto_sync))
    np.testing.assert_array_equal(r.outputs[0], x)


@pytest.mark.parametrize("workspace", [0, 1], ids=["hardware", "workspace"])
@pytest.mark.parametrize("blocks", [1, 8, 48])
def test_sync_all_done_right(blocks, workspace):
    n = blocks * 256
    x = rng.random(n).astype(np.float32)
    r = clean(simulate(IDIOMS / "syncall.cpp", "normalize_sum", blocks,
                       [GmIn(x), GmOut(np.dtype(np.float32), (n,)), GmOut(np.dtype(np.float32), (blocks * 8,)),
                        GmOut(np.dtype(np.int32), (blocks * 8,)), Scalar("u32", n)],
                       defines=[f"WORKSPACE={workspace}"]))
    np.testing.assert_allclose(r.outputs[0], x / x.sum(dtype=np.float64), rtol=1e-5)


def _softmax(auto_sync: bool, explicit: int, blocks: int = 4) -> tuple[SimResult, np.ndarray]:
    rows_per_block, cols, rows_per_tile = 16, 128, 4
    x = (rng.standard_normal((blocks * rows_per_block, cols)) * 3).astype(np.float32)
    r = simulate(IDIOMS / "softmax_rows.cpp", "softmax_rows", blocks,
                 [GmIn(x), GmOut(np.dtype(np.float32), x.shape),
                  Struct(struct.pack("<3I", rows_per_block, cols, rows_per_tile))],
                 auto_sync=auto_sync, defines=[f"EXPLICIT={explicit}"])
    return r, x


@pytest.mark.parametrize("auto_sync, explicit", [(True, 0), (False, 1)], ids=["auto-sync", "no-auto-sync+flags"])
def test_row_softmax_resident_in_ub(auto_sync, explicit):
    r, x = _softmax(auto_sync, explicit)
    clean(r)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(r.outputs[0], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_row_softmax_without_its_flags_and_no_auto_sync_is_caught():
    r, _ = _softmax(False, 0, blocks=1)
    assert {f.cls for f in r.faults} == {"sync-hazard"}
    texts = "\n".join(f.text for f in r.faults)
    assert "S reads" in texts and "V reads" in texts


def _gm_scalar(auto_sync: bool, explicit: int, no_dcci: int = 0) -> SimResult:
    return simulate(IDIOMS / "gm_scalar.cpp", "gm_scalar", 1,
                    [GmOut(np.dtype(np.float32), (16,)), GmOut(np.dtype(np.float32), (24,)), Scalar("f32", 0.5)],
                    auto_sync=auto_sync, defines=[f"EXPLICIT={explicit}", f"NO_DCCI={no_dcci}"])


@pytest.mark.parametrize("auto_sync, explicit", [(True, 0), (True, 1), (False, 1)],
                         ids=["auto-sync", "auto-sync+flags", "no-auto-sync+flags"])
def test_gm_setvalue_written_back_then_read_by_dma(auto_sync, explicit):
    r = clean(_gm_scalar(auto_sync, explicit))
    table = np.arange(16, dtype=np.float32) * np.float32(0.5)
    np.testing.assert_array_equal(r.outputs[0], table)
    np.testing.assert_array_equal(r.outputs[1][:16], table)
    assert r.outputs[1][16] == table[3]


def test_gm_scalar_access_without_flags_or_auto_sync_is_caught():
    r = _gm_scalar(False, 0)
    assert {f.cls for f in r.faults} == {"sync-hazard"}
    texts = "\n".join(f.text for f in r.faults)
    assert "SetFlag/WaitFlag<HardEvent::S_MTE2>" in texts and "SetFlag/WaitFlag<HardEvent::MTE3_S>" in texts


@BOTH
def test_strided_ub_copy_leaves_its_gaps_to_other_pipes(auto_sync):
    src = rng.standard_normal(32).astype(np.float16)
    middle = rng.standard_normal(16).astype(np.float16)
    r = clean(simulate(IDIOMS / "ub_gap_copy.cpp", "ub_gap_copy", 1,
                       [GmIn(src), GmIn(middle), GmOut(np.dtype(np.float16), (48,))], auto_sync=auto_sync))
    np.testing.assert_array_equal(r.outputs[0], np.concatenate([src[:16], middle, src[16:]]))


def test_debug_printing_reaches_the_user():
    x = np.arange(16, dtype=np.float32)
    r = clean(simulate(IDIOMS / "debug_print.cpp", "debug_print", 2, [GmIn(x), Scalar("u32", 16)]))
    lines = r.printed.splitlines()
    for block in (0, 1):
        assert f"[block {block}] n=16 half=1.50 grew=1" in lines
        assert f"[block {block}] done" in lines
        assert f"[block {block}] DumpTensor UB desc=7: 0 1 2 3" in lines
        assert f"[block {block}] DumpTensor GM desc=8: 0 1" in lines


@pytest.mark.parametrize(("soc", "ticks_per_us"), [("Ascend910B2", 50), ("Ascend950PR_9589", 1000)])
def test_get_system_cycle_counts_the_system_counters_ticks(soc: str, ticks_per_us: int):
    """GetSystemCycle reads a counter of its own rate (asc-devkit's GetSystemCycle(ISASI).md: time = cycles / 50 µs
    on A2 and A3, cycles / 1000 µs on 950), so a block's ticks are its modelled time at that rate."""
    x = np.full(2048, 0.1, dtype=np.float32)
    r = clean(simulate(IDIOMS / "system_counter.cpp", "system_counter", 1,
                       [GmIn(x), Scalar("u32", 2048), Scalar("u32", 40)], soc=soc))
    ticks = int(r.printed.strip().rsplit("ticks=", 1)[1])
    block_us = r.report["blocks"][0]["aiv_time_us"]
    assert ticks == pytest.approx(block_us * ticks_per_us, rel=0.05), (ticks, block_us)


def test_cann9_vector_and_mix_qualifiers():
    src = IDIOMS / "cann9_qualifiers.cpp"
    blocks = 4
    x = rng.standard_normal(256 * blocks).astype(np.float32)
    out = GmOut(np.dtype(np.float32), x.shape)
    r = clean(simulate(src, "vector_scale", blocks, [GmIn(x), out]))
    np.testing.assert_allclose(r.outputs[0], 3 * x, rtol=1e-6)
    r = clean(simulate(src, "mix_sync", blocks, [GmIn(x), out, out]))
    np.testing.assert_allclose(r.outputs[1], 4 * np.roll(x, -256), rtol=1e-6)
