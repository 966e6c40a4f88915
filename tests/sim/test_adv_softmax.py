"""SoftMax's temporary-space rule, SoftmaxGrad, SoftmaxGradFront, SoftmaxFlashV2 and SoftmaxFlashV3
(tuner_sim/adv_rows.h) on real kernels (tests/sim/kernels/advanced/adv_softmax.cpp), compared with float64
references of the docs' formulas.

Tolerances as in test_advanced_api.py: float 2e-6 relative to max(1, |y|) (a few float roundings), half 1e-3
(computed in float, rounded once or twice to half).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Struct
from tuner.data.socs import get_soc
from tuner.sim.build import Executable, build_kernel
from tuner.sim.run import DEFAULT_SOC, SimResult, run_executable

KERNELS = Path(__file__).resolve().parent / "kernels" / "advanced"
NP = {"half": np.float16, "float": np.float32}
TOL = {"float": 2e-6, "half": 1e-3}
SOFTMAX, GRAD, GRAD_OWN, GRAD_IS_FRONT, GRAD_FRONT, SOFTMAX_MIXED, FLASH_V2, FLASH_V2_UPDATE = range(8)
FLASH_V3, FLASH_V3_UPDATE, FLASH_V3_UPDATE_OWN = 8, 9, 10
FLASH_V2_HALF_FLOAT, FLASH_V2_HALF_FLOAT_UPDATE, FLASH_V2_HALF, FLASH_V2_HALF_UPDATE = 11, 12, 13, 14
FLASH, FLASH_UPDATE, FLASH_MIXED, FLASH_MIXED_UPDATE, SOFTMAX_NO_OUTS, LOG_SOFTMAX = 15, 16, 17, 18, 19, 20
SIMPLE, SIMPLE_MIXED = 21, 22


class Driver:
    """Builds the driver once per element type and runs it on one block."""

    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(
        self,
        dtype: str,
        x: np.ndarray,
        g: np.ndarray,
        *,
        api: int,
        tmp: int,
        work: int,
        in1: np.ndarray | None = None,
        in2: np.ndarray | None = None,
        in3: np.ndarray | None = None,
        loop_cnt: int = 1,
        alpha: float = 0.9375,
    ) -> SimResult:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNELS / "adv_softmax.cpp", "adv_softmax", self._soc, [f"DTYPE={dtype}"])
        m, k = x.shape
        zeros = np.zeros((m, 8), np.float32)
        args = [GmIn(x), GmIn(g)] + [GmIn(zeros if a is None else a) for a in (in1, in2, in3)]
        args += [GmOut(np.dtype(NP[dtype]), (m, k))] + [GmOut(np.dtype(np.uint8), (m, 32)) for _ in range(4)]
        case = struct.pack("<6Qf4x", api, m, k, tmp, work, loop_cnt, alpha)
        return run_executable(self._exes[dtype], [*args, Struct(case)], 1)


@pytest.fixture(scope="module")
def drv() -> Driver:
    return Driver()


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def blocks(raw: np.ndarray, dtype) -> np.ndarray:
    """An [m, 32 bytes] output as [m, 32 / size] elements of dtype."""
    return raw.view(dtype).reshape(raw.shape[0], -1)


def check(got: np.ndarray, want: np.ndarray, rtol: float, what: str) -> None:
    got, want = got.astype(np.float64).ravel(), np.asarray(want, np.float64).ravel()
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    worst = int(np.argmax(err))
    assert err[worst] <= rtol, f"{what}: element {worst}: got {got[worst]}, want {want[worst]} (err {err[worst]:.2e})"


def ok(r: SimResult) -> SimResult:
    assert r.ok, [f.text for f in r.faults]
    return r


# ---- SoftMax: the temporary space a pass takes ------------------------------------------------------------


@pytest.mark.parametrize("m,k", [(32, 32), (5, 64), (17, 96)])
def test_float_softmax_with_outputs_needs_only_the_column_folds(drv, m, k):
    """asc-devkit's A2 float SoftMax with max and sum reduces straight into them: a pass of s rows takes s * 64
    floats, so GetSoftMaxMinTmpSize's one-row budget (8 + k + 64 floats) holds one row (the softmax example's
    416-byte buffer for k = 32); one byte less than s * 64 floats faults."""
    x = rng_for("sm", m, k).uniform(-4, 4, (m, k)).astype(np.float32)
    work = (8 + k + 64) * 4  # GetSoftMaxMinTmpSize: splitM = 1
    r = ok(drv.run("float", x, x, api=SOFTMAX, tmp=64 * 4, work=work))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    check(r.outputs[0], e / e.sum(axis=1, keepdims=True), TOL["float"], "SoftMax")
    np.testing.assert_array_equal(blocks(r.outputs[1], np.float32), np.repeat(x.max(axis=1)[:, None], 8, axis=1))
    bad = drv.run("float", x, x, api=SOFTMAX, tmp=64 * 4 - 32, work=work)
    assert not bad.ok and "SoftMax: sharedTmpBuffer holds 224 bytes" in bad.faults[0].text


@pytest.mark.parametrize("m,k", [(8, 64), (3, 160)])
def test_mixed_softmax_half_rows_float_max_and_sum(drv, m, k):
    """half rows with float max and sum: the widened rows and the folds, s * (k + 64) floats; one block less
    faults."""
    x = rng_for("mixed", m, k).uniform(-4, 4, (m, k)).astype(np.float16)
    need = m * (k + 64) * 4
    r = ok(drv.run("half", x, x, api=SOFTMAX_MIXED, tmp=need, work=m * (8 + k + 64) * 4))
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    check(r.outputs[0], e / e.sum(axis=1, keepdims=True), TOL["half"], "SoftMax half/float")
    np.testing.assert_array_equal(blocks(r.outputs[1], np.float32), np.repeat(xd.max(axis=1)[:, None], 8, axis=1))
    check(blocks(r.outputs[2], np.float32) / e.sum(axis=1, keepdims=True), np.ones((m, 8)), 2e-6, "sum")
    assert not drv.run("half", x, x, api=SOFTMAX_MIXED, tmp=need - 32, work=m * (8 + k + 64) * 4).ok


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", [(16, 128), (5, 64), (20, 32)])
def test_softmax_forms_at_exactly_what_a_pass_takes(drv, dtype, m, k):
    """SoftMax with max and sum of T, without them (row results of tiling.reduceK floats in the temporary space),
    and LogSoftMax (log10 of the softmax), each at exactly the floats its pass takes and one block below:
    (k for half) + (reduceK unless float outputs) + 64 a row."""
    x = rng_for("forms", dtype, m, k).uniform(-4, 4, (m, k)).astype(NP[dtype])
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    blk = 32 // np.dtype(NP[dtype]).itemsize
    widened = k if dtype == "half" else 0
    work = m * (blk + k + 64) * 4
    for api, red in ((SOFTMAX, blk if dtype == "half" else 0), (SOFTMAX_NO_OUTS, blk), (LOG_SOFTMAX, 0)):
        if api == LOG_SOFTMAX and dtype == "half":
            red = blk
        need = m * (widened + red + 64) * 4
        r = ok(drv.run(dtype, x, x, api=api, tmp=need, work=work))
        ref = np.log10(want) if api == LOG_SOFTMAX else want
        check(r.outputs[0], ref, TOL[dtype] * (4 if api == LOG_SOFTMAX else 1), f"api {api} {dtype} {m}x{k}")
        if api != SOFTMAX_NO_OUTS:
            np.testing.assert_array_equal(
                blocks(r.outputs[1], NP[dtype]), np.repeat(x.max(axis=1)[:, None], blk, axis=1)
            )
        assert not drv.run(dtype, x, x, api=api, tmp=need - 32, work=work).ok, f"api {api} {dtype} below"


@pytest.mark.parametrize("form", ["float", "half", "half/float"])
@pytest.mark.parametrize("m,k", [(16, 128), (5, 64), (12, 32)])
def test_simple_softmax_takes_what_asc_devkit_takes(drv, form, m, k):
    """SimpleSoftMax: float needs no temporary space; half rows take k floats a row, and half statistics 16
    more (widened in turn); one block less faults."""
    dtype, st = ("float", np.float32) if form == "float" else ("half", np.float16 if form == "half" else np.float32)
    rng = rng_for("simple", form, m, k)
    x = rng.uniform(-4, 4, (m, k)).astype(NP[dtype])
    blk = 32 // np.dtype(st).itemsize
    in_max = (x.astype(np.float64).max(axis=1, keepdims=True) + rng.uniform(0, 1, (m, 1))).astype(st)
    in_sum = rng.uniform(1, 50, (m, 1)).astype(st)
    as_bytes = [np.repeat(v, blk, axis=1).view(np.uint8) for v in (in_max, in_sum)]
    want = np.exp(x.astype(np.float64) - in_max.astype(np.float64)) / in_sum.astype(np.float64)
    need = 0 if dtype == "float" else m * (k + (16 if form == "half" else 0)) * 4
    api = SIMPLE_MIXED if form == "half/float" else SIMPLE
    work = m * (blk + k + 64) * 4
    r = ok(drv.run(dtype, x, x, api=api, tmp=need, work=work, in1=as_bytes[0], in2=as_bytes[1]))
    check(r.outputs[0], want, TOL[dtype], f"SimpleSoftMax {form} {m}x{k}")
    if need:
        bad = drv.run(dtype, x, x, api=api, tmp=need - 32, work=work, in1=as_bytes[0], in2=as_bytes[1])
        assert not bad.ok and "SimpleSoftMax: sharedTmpBuffer holds" in bad.faults[0].text


# ---- SoftmaxGrad / SoftmaxGradFront ---------------------------------------------------------------------


def grad_inputs(dtype: str, m: int, k: int):
    rng = rng_for("grad", dtype, m, k)
    return rng.uniform(-1, 1, (m, k)).astype(NP[dtype]), rng.uniform(-1, 1, (m, k)).astype(NP[dtype])


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", [(16, 128), (3, 32), (40, 96), (2, 2048)])
def test_softmax_grad_matches_reference(drv, dtype, m, k):
    src, grad = grad_inputs(dtype, m, k)
    s, g = src.astype(np.float64), grad.astype(np.float64)
    d = (g * s).sum(axis=1, keepdims=True)
    blk = 32 // np.dtype(NP[dtype]).itemsize
    per_row = (2 * blk + (3 * k if dtype == "half" else k) + 64) * 4  # GetSoftMaxGradMinTmpSize
    for api, tmp in ((GRAD, 65536), (GRAD, per_row * min(m, 8)), (GRAD_OWN, 0)):
        r = ok(drv.run(dtype, src, grad, api=api, tmp=tmp, work=tmp or 65536))
        check(r.outputs[0], (g - d) * s, TOL[dtype] * 2, f"SoftmaxGrad {api} {dtype} {m}x{k} tmp {tmp}")
    front_row = (blk + (3 * k + blk if dtype == "half" else k) + 64) * 4
    for api in (GRAD_IS_FRONT, GRAD_FRONT):
        r = ok(drv.run(dtype, src, grad, api=api, tmp=front_row * m, work=front_row * m))
        got = blocks(r.outputs[1], NP[dtype])
        check(got, np.repeat(d, blk, axis=1), TOL[dtype] * 4, f"SoftmaxGradFront {api} {dtype} {m}x{k}")


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_softmax_grad_below_what_a_pass_takes_faults(drv, dtype):
    """A pass of s rows takes, in floats, s * (k + 8 + 64) for float and s * (3k + 16 + 64) for half (the product
    rows, the row sums, the column folds; the widened inputs for half): within GetSoftMaxGradMinTmpSize's per-row
    budget, which SoftMaxGradTilingFunc divides the buffer by. One block less faults."""
    m, k = 8, 64
    src, grad = grad_inputs(dtype, m, k)
    blk = 32 // np.dtype(NP[dtype]).itemsize
    minimum = (2 * blk + (3 * k if dtype == "half" else k) + 64) * 4
    need = m * ((3 * k if dtype == "half" else k) + blk + 64) * 4
    ok(drv.run(dtype, src, grad, api=GRAD, tmp=need, work=m * minimum))
    r = drv.run(dtype, src, grad, api=GRAD, tmp=need - 32, work=m * minimum)
    assert not r.ok and "SoftmaxGrad: sharedTmpBuffer holds" in r.faults[0].text


# ---- SoftmaxFlashV2 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("m,k", [(16, 128), (5, 64), (24, 40), (2, 1024)])
def test_softmax_flash_v2_matches_the_docs_reference(drv, m, k):
    rng = rng_for("flash", m, k)
    x = rng.uniform(-3, 3, (m, k)).astype(np.float32)
    xd = x.astype(np.float64)
    # isUpdate false: max, exp(x - max) (not normalised), its row sum
    r = ok(drv.run("float", x, x, api=FLASH_V2, tmp=65536, work=65536))
    mx = xd.max(axis=1, keepdims=True)
    e = np.exp(xd - mx)
    check(r.outputs[0], e, TOL["float"], "FlashV2 dst")
    np.testing.assert_array_equal(blocks(r.outputs[1], np.float32), np.repeat(mx.astype(np.float32), 8, axis=1))
    check(blocks(r.outputs[2], np.float32) / e.sum(axis=1, keepdims=True), np.ones((m, 8)), 2e-6, "FlashV2 sum")
    # isUpdate true, the outputs in place of inMax and inExpSum (as asc-devkit's example passes them)
    in_max = rng.uniform(-3, 3, (m, 1)).astype(np.float32)
    in_sum = rng.uniform(1, 50, (m, 1)).astype(np.float32)
    r = ok(
        drv.run(
            "float",
            x,
            x,
            api=FLASH_V2_UPDATE,
            tmp=m * 72 * 4,
            work=m * 72 * 4,
            in1=np.repeat(in_max, 8, axis=1),
            in2=np.repeat(in_sum, 8, axis=1),
        )
    )
    new_max = np.maximum(mx, in_max.astype(np.float64))
    e = np.exp(xd - new_max)
    exp_max = np.exp(in_max.astype(np.float64) - new_max)
    check(r.outputs[0], e, TOL["float"], "FlashV2 update dst")
    np.testing.assert_array_equal(blocks(r.outputs[1], np.float32), np.repeat(new_max.astype(np.float32), 8, axis=1))
    check(blocks(r.outputs[3], np.float32), np.repeat(exp_max, 8, axis=1), TOL["float"], "FlashV2 expMax")
    want_sum = exp_max * in_sum.astype(np.float64) + e.sum(axis=1, keepdims=True)
    check(blocks(r.outputs[2], np.float32) / want_sum, np.ones((m, 8)), 4e-6, "FlashV2 update sum")


def test_softmax_flash_v2_below_its_tiling_faults(drv):
    """A pass of s rows takes (8 + 64) floats a row (SoftMaxFlashV2TilingFunc's float budget)."""
    m, k = 8, 64
    x = rng_for("flash-small", m, k).uniform(-3, 3, (m, k)).astype(np.float32)
    ok(drv.run("float", x, x, api=FLASH_V2, tmp=m * 72 * 4, work=m * 72 * 4))
    r = drv.run("float", x, x, api=FLASH_V2, tmp=m * 72 * 4 - 32, work=m * 72 * 4)
    assert not r.ok and "SoftmaxFlashV2: sharedTmpBuffer holds" in r.faults[0].text


@pytest.mark.parametrize("stats", ["float", "half"])
@pytest.mark.parametrize("m,k", [(16, 128), (5, 64), (24, 48), (3, 32), (1, 16)])
def test_half_softmax_flash_v2_matches_the_docs_reference(drv, stats, m, k):
    """half rows with float or half statistics, computed in float: dst and the half outputs rounded once."""
    rng = rng_for("flash-half", stats, m, k)
    x = rng.uniform(-3, 3, (m, k)).astype(np.float16)
    xd = x.astype(np.float64)
    st = NP[stats]
    blk = 32 // np.dtype(st).itemsize
    no_update, update = (
        (FLASH_V2_HALF_FLOAT, FLASH_V2_HALF_FLOAT_UPDATE) if stats == "float" else (FLASH_V2_HALF, FLASH_V2_HALF_UPDATE)
    )
    per_row = (2 * blk + k + 64) * 4  # GetSoftMaxFlashV2MinTmpSize
    r = ok(drv.run("half", x, x, api=no_update, tmp=m * per_row, work=m * per_row))
    mx = xd.max(axis=1, keepdims=True)
    e = np.exp(xd - mx)
    check(r.outputs[0], e, TOL["half"], "FlashV2 half dst")
    np.testing.assert_array_equal(blocks(r.outputs[1], st), np.repeat(mx.astype(st), blk, axis=1))
    check(blocks(r.outputs[2], st) / e.sum(axis=1, keepdims=True), np.ones((m, blk)), TOL[stats], "FlashV2 half sum")
    in_max = rng.uniform(-3, 3, (m, 1)).astype(st)
    in_sum = rng.uniform(1, 50, (m, 1)).astype(st)
    as_bytes = [np.repeat(v, blk, axis=1).view(np.uint8) for v in (in_max, in_sum)]
    r = ok(drv.run("half", x, x, api=update, tmp=m * per_row, work=m * per_row, in1=as_bytes[0], in2=as_bytes[1]))
    new_max = np.maximum(mx, in_max.astype(np.float64))
    e = np.exp(xd - new_max)
    exp_max = np.exp(in_max.astype(np.float64) - new_max)
    check(r.outputs[0], e, TOL["half"], "FlashV2 half update dst")
    np.testing.assert_array_equal(blocks(r.outputs[1], st), np.repeat(new_max.astype(st), blk, axis=1))
    check(blocks(r.outputs[3], np.float16), np.repeat(exp_max, 16, axis=1), TOL["half"], "FlashV2 half expMax")
    want_sum = exp_max * in_sum.astype(np.float64) + e.sum(axis=1, keepdims=True)
    check(blocks(r.outputs[2], st) / want_sum, np.ones((m, blk)), 2 * TOL[stats], "FlashV2 half update sum")
    bad = drv.run("half", x, x, api=update, tmp=m * per_row - 32, work=m * per_row, in1=as_bytes[0], in2=as_bytes[1])
    assert not bad.ok and "SoftmaxFlashV2: sharedTmpBuffer holds" in bad.faults[0].text


# ---- SoftmaxFlash (v1) ---------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["float", "half", "half/float"])
@pytest.mark.parametrize("m,k", [(16, 64), (3, 160), (9, 32)])
def test_softmax_flash_matches_the_docs_reference(drv, form, m, k):
    """isUpdate false is SoftMax; isUpdate true rescales by the previous max and sum (SoftmaxFlash.md's
    reference), at SoftMaxFlashTilingFunc's 4 * blk + 2k floats a row and one block below it."""
    dtype, st = ("float", np.float32) if form == "float" else ("half", np.float16 if form == "half" else np.float32)
    rng = rng_for("flash-v1", form, m, k)
    x = rng.uniform(-3, 3, (m, k)).astype(NP[dtype])
    xd = x.astype(np.float64)
    blk = 32 // np.dtype(st).itemsize
    no_update, update = (FLASH_MIXED, FLASH_MIXED_UPDATE) if form == "half/float" else (FLASH, FLASH_UPDATE)
    tol = TOL[dtype]
    r = ok(drv.run(dtype, x, x, api=no_update, tmp=65536, work=65536))
    mx = xd.max(axis=1, keepdims=True)
    e = np.exp(xd - mx)
    check(r.outputs[0], e / e.sum(axis=1, keepdims=True), tol, "SoftmaxFlash dst")
    np.testing.assert_array_equal(blocks(r.outputs[1], st), np.repeat(mx.astype(st), blk, axis=1))
    in_max = rng.uniform(-3, 3, (m, 1)).astype(st)
    in_sum = rng.uniform(1, 50, (m, 1)).astype(st)
    as_bytes = [np.repeat(v, blk, axis=1).view(np.uint8) for v in (in_max, in_sum)]
    per_row = (4 * blk + 2 * k) * 4
    r = ok(drv.run(dtype, x, x, api=update, tmp=m * per_row, work=m * per_row, in1=as_bytes[0], in2=as_bytes[1]))
    new_max = np.maximum(mx, in_max.astype(np.float64))
    e = np.exp(xd - new_max)
    scaled = np.exp(in_max.astype(np.float64) - new_max) * in_sum.astype(np.float64)
    total = scaled + e.sum(axis=1, keepdims=True)
    check(r.outputs[0], e / total, tol, "SoftmaxFlash update dst")
    np.testing.assert_array_equal(blocks(r.outputs[1], st), np.repeat(new_max.astype(st), blk, axis=1))
    check(
        blocks(r.outputs[2], st) / total,
        np.ones((m, blk)),
        2 * TOL["float" if st is np.float32 else "half"],
        "sum",
    )
    check(
        blocks(r.outputs[3], NP[dtype]),
        np.repeat(scaled / total, 32 // np.dtype(NP[dtype]).itemsize, axis=1),
        tol,
        "expMax",
    )
    bad = drv.run(dtype, x, x, api=update, tmp=m * per_row - 32, work=m * per_row, in1=as_bytes[0], in2=as_bytes[1])
    assert not bad.ok and "SoftmaxFlash: sharedTmpBuffer holds" in bad.faults[0].text


# ---- SoftmaxFlashV3 ------------------------------------------------------------------------------------


def flash_v3_ref(x16, in_max, in_sum, in_mean, loop_cnt, alpha, update):
    """SoftmaxFlashV3.md's formulas with asc-devkit's per-part means (its example's gen_data.py): the first 512
    columns' 64 block sums plus the rest 64 columns at a time, summed 8 at a time, over baseK = k / 8."""
    x = x16.astype(np.float64)
    m, k = x.shape
    base_k, scalar = k // 8, alpha / (1 - alpha)
    folds = x[:, :512].reshape(m, 64, 8).sum(-1) + x[:, 512:].reshape(m, -1, 64).sum(1)
    local = folds.reshape(m, 8, 8).sum(-1) / base_k
    glob = local.mean(axis=1, keepdims=True)
    x = x - np.repeat((glob - local) * scalar, base_k, axis=1)
    rowmax = x.max(axis=1, keepdims=True)
    if not update:
        e = np.exp(x - rowmax)
        return e, rowmax, e.sum(axis=1, keepdims=True), glob, None
    mean = (glob + in_mean * (loop_cnt - 1)) / loop_cnt
    shift_curr, shift_prev = (glob - mean) * scalar, (in_mean - mean) * scalar
    mx = np.maximum(rowmax + shift_curr, in_max + shift_prev)
    exp_max = np.exp(in_max - mx + shift_prev)
    e = np.exp(x - (mx - shift_curr))
    return e, mx, exp_max * in_sum + e.sum(axis=1, keepdims=True), mean, exp_max


def flash_v3_floats(s: int, k: int, update: bool) -> int:
    return s * k + s * 64 + (4 if update else 3) * s * 8 + k


@pytest.mark.parametrize("m,k,split", [(8, 2048, 8), (3, 512, 3), (10, 640, 8)])
def test_softmax_flash_v3_matches_the_docs_reference(drv, m, k, split):
    rng = rng_for("v3", m, k)
    x = rng.uniform(-2, 2, (m, k)).astype(np.float16)
    named = (
        ("in1", rng.uniform(0, 2, (m, 1))),
        ("in2", rng.uniform(1, 20, (m, 1))),
        ("in3", rng.uniform(-0.5, 0.5, (m, 1))),
    )
    ins = {name: np.repeat(v, 8, axis=1).astype(np.float32) for name, v in named}
    vals = {key: v[:, :1].astype(np.float64) for key, v in ins.items()}
    work = split * (8 * 5 + 2 * k + 64) * 4  # SoftMaxFlashV3TilingFunc: `split` rows a pass
    for api in (FLASH_V3, FLASH_V3_UPDATE, FLASH_V3_UPDATE_OWN):
        update = api != FLASH_V3
        tmp = 0 if api == FLASH_V3_UPDATE_OWN else flash_v3_floats(split, k, update) * 4
        r = ok(drv.run("half", x, x, api=api, tmp=tmp, work=work, loop_cnt=3, alpha=0.9375, **ins))
        e, mx, sm, mean, exp_max = flash_v3_ref(x, vals["in1"], vals["in2"], vals["in3"], 3, 0.9375, update)
        what = f"FlashV3 api {api} {m}x{k}"
        check(r.outputs[0], e, TOL["half"], what + " dst")
        check(blocks(r.outputs[1], np.float32), np.repeat(mx, 8, axis=1), 2e-5, what + " max")
        check(blocks(r.outputs[2], np.float32) / np.repeat(sm, 8, axis=1), np.ones((m, 8)), 2e-5, what + " sum")
        check(blocks(r.outputs[3], np.float32), np.repeat(mean, 8, axis=1), 2e-6, what + " mean")
        if update:
            check(blocks(r.outputs[4], np.float16), np.repeat(exp_max, 16, axis=1), TOL["half"], what + " expMax")


def test_softmax_flash_v3_below_what_a_pass_takes_faults(drv):
    m, k = 8, 512
    x = rng_for("v3-small", m, k).uniform(-2, 2, (m, k)).astype(np.float16)
    need = flash_v3_floats(m, k, True) * 4
    work = m * (8 * 5 + 2 * k + 64) * 4
    ok(drv.run("half", x, x, api=FLASH_V3_UPDATE, tmp=need, work=work, loop_cnt=2))
    r = drv.run("half", x, x, api=FLASH_V3_UPDATE, tmp=need - 32, work=work, loop_cnt=2)
    assert not r.ok and "SoftmaxFlashV3: sharedTmpBuffer holds" in r.faults[0].text
