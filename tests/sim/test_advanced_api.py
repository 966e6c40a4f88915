"""Advanced (高阶) APIs of the simulator (tuner/sim/include/tuner_sim/advanced.h): real kernels
(tests/sim/kernels/advanced/) run through `simulate`'s build and run steps, their outputs compared with float64
references of the mathematical function each API computes, not with the simulator's expansion.

Tolerances: the expansions compute in the NPU's arithmetic, so they carry the rounding of each step and, where
Huawei's algorithm approximates (Gelu's tanh form, FasterGelu, FasterGeluV2, Erf's Padé fit), the
approximation's own error; the references are the approximated formulas' exact values where the docs name one
(Gelu, FasterGelu, FasterGeluV2), and the true function where they do not (Erf, Tanh, Sigmoid, Log).
The docs state no accuracy; the bounds are what the expansions reach (the worst seen is about a third of each):
float 1e-6 relative to max(1, |y|) (a few float roundings; Erf's Padé fit adds ~2e-7); half 5e-4 (one half
rounding, 2^-11) for APIs computed in float and rounded once, 2e-3 for those computed step by step in half
(Sigmoid, Silu, Swish, Gelu without highPrecision, Log, Log10).
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Struct
from tuner.data.socs import get_soc
from tuner.errors import CompileError
from tuner.sim.build import Executable, build_kernel
from tuner.sim.run import DEFAULT_SOC, SimResult, run_executable

KERNELS = Path(__file__).resolve().parent / "kernels" / "advanced"
NP = {"half": np.float16, "float": np.float32}

SIGMOID, TANH, ERF, LOG2, LOG, LOG10, SILU, SWISH = range(8)
GELU, FASTER_GELU, FASTER_GELU_V2, GELU_HIGH_PRECISION, GELU_HIGH_PERF, FASTER_GELU_HP, FASTER_GELU_V2_HP = range(8, 15)
EXP_TAYLOR, EXP_TAYLOR_REUSE, EXP_TAYLOR_OWN, EXP_LEVEL0 = range(15, 19)
SWIGLU, SWIGLU_OWN, GEGLU, GEGLU_OWN = range(19, 23)


class Kernels:
    """Builds the driver once per element type and runs it on one block."""

    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(self, dtype: str, x: np.ndarray, *, api: int, form: int = 0, count: int | None = None,
            tmp: int = 0, fill: int = 0, beta: float = 1.0) -> SimResult:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNELS / "adv_unary.cpp", "adv_unary", self._soc, [f"DTYPE={dtype}"])
        n = len(x)
        tiling = struct.pack("<6Qd", api, form, n, n if count is None else count, tmp, fill, beta)
        return run_executable(self._exes[dtype], [GmIn(x), GmOut(np.dtype(NP[dtype]), (n,)), Struct(tiling)], 1)


@pytest.fixture(scope="session")
def kernels() -> Kernels:
    return Kernels()


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gelu_tanh(x):
    return x * sigmoid(1.5957691216057308 * (x + 0.044715 * x**3))


def faster_gelu(x):
    return x / (1.0 + np.exp(-1.702 * x))


def faster_gelu_v2(x):
    a = 0.5 - 0.1444 * (np.minimum(np.abs(0.7071 * x), 1.769) - 1.769) ** 2
    return x * (0.5 + np.sign(x) * a)


REFS = {
    SIGMOID: (sigmoid, (-12, 12)),
    TANH: (np.tanh, (-6, 6)),
    ERF: (np.vectorize(math.erf), (-4, 4)),
    LOG2: (np.log2, (0.01, 100)),
    LOG: (np.log, (0.01, 100)),
    LOG10: (np.log10, (0.01, 100)),
    SILU: (lambda x: x * sigmoid(x), (-10, 10)),
    GELU: (gelu_tanh, (-6, 6)),
    FASTER_GELU: (faster_gelu, (-6, 6)),
    FASTER_GELU_V2: (faster_gelu_v2, (-6, 6)),
    GELU_HIGH_PRECISION: (gelu_tanh, (-6, 6)),
    GELU_HIGH_PERF: (gelu_tanh, (-6, 6)),
    FASTER_GELU_HP: (faster_gelu, (-6, 6)),
    FASTER_GELU_V2_HP: (faster_gelu_v2, (-6, 6)),
    EXP_TAYLOR: (np.exp, (-10, 10)),
    EXP_TAYLOR_REUSE: (np.exp, (-10, 10)),
    EXP_TAYLOR_OWN: (np.exp, (-10, 10)),
    EXP_LEVEL0: (np.exp, (-10, 10)),
}
# Computed step by step in T (no widening to float) for half.
IN_T = {SIGMOID, LOG, LOG10, SILU, SWISH, GELU, FASTER_GELU, FASTER_GELU_V2, GELU_HIGH_PERF}


def tolerance(dtype: str, api: int) -> float:
    if dtype == "float":
        return 2e-6 if api in (EXP_TAYLOR, EXP_TAYLOR_REUSE, EXP_TAYLOR_OWN) else 1e-6
    return 2e-3 if api in IN_T else 5e-4


def check(got: np.ndarray, want: np.ndarray, rtol: float, what: str) -> None:
    err = np.abs(got.astype(np.float64) - want) / np.maximum(1.0, np.abs(want))
    worst = int(np.argmax(err))
    assert err[worst] <= rtol, f"{what}: element {worst}: got {got[worst]}, want {want[worst]} (err {err[worst]:.2e})"


def inputs(dtype: str, api: int, n: int, seed: int) -> np.ndarray:
    lo, hi = REFS[api][1] if api in REFS else (-8, 8)
    x = rng_for(dtype, api, n, seed).uniform(lo, hi, n).astype(NP[dtype])
    if api in (FASTER_GELU_V2, FASTER_GELU_V2_HP):
        x[x == 0] = NP[dtype](0.5)  # sgn(0) is 0/0 in the half form (docs' 1e-12 rounds to 0)
    return x


# (api, forms, tmp bytes for the sharedTmpBuffer forms)
ELEMENTWISE = [
    (SIGMOID, (0, 1, 2, 3), 256),
    (TANH, (0, 1, 2, 3), 1024),
    (ERF, (0, 1, 2, 3), 2048),
    (LOG2, (0, 1, 2, 3), 256),
    (LOG, (2, 3), 0),
    (LOG10, (2, 3), 0),
    (SILU, (2,), 0),
    (GELU, (0, 2), 768),
    (FASTER_GELU, (0, 2), 768),
    (FASTER_GELU_V2, (0, 2), 768),
    (GELU_HIGH_PRECISION, (0,), 1024),
    (GELU_HIGH_PERF, (0,), 768),
    (FASTER_GELU_HP, (0,), 768),
    (FASTER_GELU_V2_HP, (0,), 1024),
    (EXP_TAYLOR, (0,), 2048),
    (EXP_TAYLOR_REUSE, (0,), 2048),
    (EXP_TAYLOR_OWN, (0,), 0),
    (EXP_LEVEL0, (0,), 0),
]


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("api,forms,tmp", ELEMENTWISE, ids=lambda v: str(v))
def test_elementwise_matches_reference(kernels, dtype, api, forms, tmp):
    n = 2048
    for seed, form in enumerate(forms):
        x = inputs(dtype, api, n, seed)
        # calCount forms leave a tail untouched (the kernel zeroes dst first); whole forms cover all of src.
        count = n - 96 if form in (0, 2) else n
        r = kernels.run(dtype, x, api=api, form=form, count=count, tmp=tmp)
        assert r.ok, [f.text for f in r.faults]
        got = r.outputs[0]
        want = REFS[api][0](x.astype(np.float64)[:count])
        check(got[:count], want, tolerance(dtype, api), f"api {api} form {form} {dtype}")
        assert not np.any(got[count:]), "elements past calCount were written"


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_swish_beta(kernels, dtype):
    for beta in (0.5, 1.0, 2.5):
        x = inputs(dtype, SWISH, 512, int(beta * 10))
        r = kernels.run(dtype, x, api=SWISH, form=2, beta=beta)
        assert r.ok, [f.text for f in r.faults]
        xb = x.astype(np.float64)
        check(r.outputs[0], xb * sigmoid(float(NP[dtype](beta)) * xb), tolerance(dtype, SWISH), f"beta {beta}")


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("api,tmp", [(SWIGLU, 1536), (SWIGLU_OWN, 0), (GEGLU, 1024), (GEGLU_OWN, 0)])
def test_glu_matches_reference(kernels, dtype, api, tmp):
    """dst = src0 * act(src1): src0 and src1 are the two halves of x, dst the first half of z."""
    n, beta = 2048, 1.5
    x = rng_for(dtype, api, "glu").uniform(-5, 5, n).astype(NP[dtype])
    count = n // 2 - 96
    r = kernels.run(dtype, x, api=api, count=count, tmp=tmp, beta=beta)
    assert r.ok, [f.text for f in r.faults]
    a, b = x[:count].astype(np.float64), x[n // 2:n // 2 + count].astype(np.float64)
    act = b * sigmoid(beta * b) if api in (SWIGLU, SWIGLU_OWN) else gelu_tanh(b)
    # half: computed in float and rounded once (asc-devkit widens both sources)
    check(r.outputs[0][:count], a * act, {"float": 1e-6, "half": 5e-4}[dtype], f"api {api} {dtype}")
    assert not np.any(r.outputs[0][count:])


def test_glu_half_tmp_minimum(kernels):
    x = rng_for("glu-min").uniform(-5, 5, 1024).astype(np.float16)
    for api, minimum in ((SWIGLU, 1536), (GEGLU, 1024)):
        assert kernels.run("half", x, api=api, count=256, tmp=minimum).ok
        r = kernels.run("half", x, api=api, count=256, tmp=minimum - 32)
        assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]


def test_small_tmp_buffer_splits_into_passes(kernels):
    """A smaller sharedTmpBuffer gives the same values in more passes, each pass its own instructions: slower."""
    x = inputs("float", TANH, 4096, 7)
    small = kernels.run("float", x, api=TANH, tmp=256)
    large = kernels.run("float", x, api=TANH, tmp=16384)
    assert small.ok and large.ok
    np.testing.assert_array_equal(small.outputs[0], large.outputs[0])
    assert small.task_duration_us > large.task_duration_us


@pytest.mark.parametrize("api,tmp", [(SIGMOID, 256), (GELU, 768), (ERF, 768)])
def test_time_grows_with_length(kernels, api, tmp):
    times = []
    for n in (1024, 4096, 16384):
        r = kernels.run("float", inputs("float", api, n, 0), api=api, tmp=tmp * 4)
        assert r.ok, [f.text for f in r.faults]
        times.append(r.task_duration_us)
    assert times[0] < times[1] < times[2], times


def test_time_is_the_expansions(kernels):
    """Sigmoid issues five vector instructions per pass (Muls Exp Adds Duplicate Div), Silu four (no
    Duplicate): the modelled time is the expansion's, so Sigmoid costs more on the same data."""
    x = inputs("float", SIGMOID, 16384, 1)
    sig = kernels.run("float", x, api=SIGMOID, form=0, tmp=32768)
    silu = kernels.run("float", x, api=SILU, form=2)
    assert sig.ok and silu.ok
    assert sig.task_duration_us > silu.task_duration_us


@pytest.mark.parametrize("dtype,api,minimum", [
    ("float", SIGMOID, 256), ("float", TANH, 256), ("half", TANH, 1024), ("float", ERF, 768), ("half", ERF, 2048),
    ("float", GELU, 768), ("half", LOG2, 256), ("float", EXP_TAYLOR, 768), ("half", EXP_TAYLOR, 1024),
])
def test_too_small_shared_tmp_buffer_faults(kernels, dtype, api, minimum):
    x = inputs(dtype, api if api in REFS else SIGMOID, 512, 3)
    ok = kernels.run(dtype, x, api=api, form=0, tmp=minimum)
    assert ok.ok, [f.text for f in ok.faults]
    r = kernels.run(dtype, x, api=api, form=0, tmp=minimum - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text and str(minimum) in r.faults[0].text


def test_own_temporary_space_must_be_left_free(kernels):
    """The forms without sharedTmpBuffer use the UB left after InitBuffer; with none left, ub-overflow."""
    soc = get_soc(DEFAULT_SOC)
    x = inputs("float", SIGMOID, 512, 4)
    fill = (soc.ub_stack_end - 2 * 512 * 4) // 32 * 32
    r = kernels.run("float", x, api=SIGMOID, form=2, count=512, fill=fill)
    assert [f.cls for f in r.faults] == ["ub-overflow"], [f.text for f in r.faults]
    assert "Sigmoid" in r.faults[0].text
    r = kernels.run("float", x, api=SIGMOID, form=2, count=512, fill=fill - 256)
    assert r.ok, [f.text for f in r.faults]


def test_count_past_the_tensor_faults(kernels):
    x = inputs("float", SIGMOID, 512, 5)
    r = kernels.run("float", x, api=SIGMOID, form=0, count=600, tmp=256)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "calCount 600" in r.faults[0].text


# ---------------------------------------------------------------------------------------------------------
# Row-wise APIs: SoftMax, LogSoftMax, SimpleSoftMax, RmsNorm, LayerNorm on [m, k]
# (tests/sim/kernels/advanced/adv_rows.cpp; the API's tiling struct is filled in the kernel by the host helper
# for `work` bytes of temporary space).

SOFTMAX, SOFTMAX_NO_OUTS, SOFTMAX_OWN, SIMPLE_SOFTMAX, SIMPLE_SOFTMAX_OWN, RMSNORM, RMSNORM_OWN, LOG_SOFTMAX = range(8)
LAYERNORM, LAYERNORM_OWN, SOFTMAX_ZERO_TILING, SOFTMAX_ADJUST = 8, 9, 10, 11
SHAPES = [(16, 128), (8, 32), (3, 2048), (300, 16), (20, 96)]


class Rows:
    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(self, dtype: str, x: np.ndarray, a: np.ndarray, b: np.ndarray, *, api: int, tmp: int, work: int,
            eps: float = 1e-5) -> SimResult:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNELS / "adv_rows.cpp", "adv_rows", self._soc, [f"DTYPE={dtype}"])
        m, k = x.shape
        blk = 32 // np.dtype(NP[dtype]).itemsize
        tiling = struct.pack("<5Qd", api, m, k, tmp, work, eps)
        out = np.dtype(NP[dtype])
        return run_executable(self._exes[dtype], [GmIn(x), GmIn(a), GmIn(b), GmOut(out, (m, k)), GmOut(out, (m, blk)),
                                                  GmOut(out, (m, blk)), Struct(tiling)], 1)


@pytest.fixture(scope="session")
def rows() -> Rows:
    return Rows()


def softmax_ref(x: np.ndarray):
    xd = x.astype(np.float64)
    mx = xd.max(axis=1, keepdims=True)
    e = np.exp(xd - mx)
    s = e.sum(axis=1, keepdims=True)
    return e / s, mx[:, 0], s[:, 0]


def row_inputs(dtype: str, m: int, k: int, seed: int):
    rng = rng_for(dtype, m, k, seed)
    blk = 32 // np.dtype(NP[dtype]).itemsize
    x = rng.uniform(-4, 4, (m, k)).astype(NP[dtype])
    return x, blk


ROW_TOL = {"float": 2e-6, "half": 1e-3}


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", SHAPES)
def test_softmax_and_log_softmax_match_reference(rows, dtype, m, k):
    x, blk = row_inputs(dtype, m, k, 0)
    zeros = np.zeros((max(m * blk, k),), NP[dtype])
    want, mx, sm = softmax_ref(x)
    for api in (SOFTMAX, SOFTMAX_NO_OUTS, SOFTMAX_OWN, LOG_SOFTMAX):
        r = rows.run(dtype, x, zeros, zeros, api=api, tmp=0 if api == SOFTMAX_OWN else 65536, work=65536)
        assert r.ok, [f.text for f in r.faults]
        z, zmax, zsum = r.outputs
        # LogSoftMax is log10 of the softmax (LogSoftMax.md's reference, step 8)
        ref = np.log10(want) if api == LOG_SOFTMAX else want
        check(z.ravel(), ref.ravel(), ROW_TOL[dtype], f"SoftMax api {api} {dtype} {m}x{k}")
        if api == SOFTMAX_NO_OUTS:
            assert not zmax.any() and not zsum.any()
            continue
        # max is exact; sum is rounded once to the output type. Every element of a row's block holds it.
        np.testing.assert_array_equal(zmax, np.repeat(mx.astype(NP[dtype])[:, None], blk, axis=1))
        check((zsum / sm[:, None]).ravel(), np.ones(m * blk), ROW_TOL[dtype], "sum")


def test_softmax_in_passes_is_the_same_and_slower(rows):
    """A work size for 8 rows at a time gives the same values as one pass over all 64, in more instructions."""
    m, k = 64, 128
    x, _ = row_inputs("float", m, k, 1)
    zeros = np.zeros((m * 8,), np.float32)
    one_pass = rows.run("float", x, zeros, zeros, api=SOFTMAX, tmp=65536, work=65536)
    per_row = (8 + k + 64) * 4
    eight = rows.run("float", x, zeros, zeros, api=SOFTMAX, tmp=8 * per_row, work=8 * per_row)
    assert one_pass.ok and eight.ok, [f.text for f in one_pass.faults + eight.faults]
    np.testing.assert_array_equal(one_pass.outputs[0], eight.outputs[0])
    assert eight.task_duration_us > one_pass.task_duration_us


def test_softmax_recomputes_a_tiling_that_does_not_match_the_shape(rows):
    """isCheckTiling (SoftmaxConfig's default): a zeroed SoftMaxTiling, as asc-devkit's logsoftmax example passes,
    is recomputed from the shape and the temporary space; the result is the same as with SoftMaxTilingFunc's."""
    m, k = 40, 96
    x, _ = row_inputs("float", m, k, 7)
    zeros = np.zeros((m * 8,), np.float32)
    tmp = 16 * (8 + k + 64) * 4
    zeroed = rows.run("float", x, zeros, zeros, api=SOFTMAX_ZERO_TILING, tmp=tmp, work=tmp)
    tiled = rows.run("float", x, zeros, zeros, api=SOFTMAX, tmp=tmp, work=tmp)
    assert zeroed.ok and tiled.ok, [f.text for f in zeroed.faults + tiled.faults]
    for got, want in zip(zeroed.outputs, tiled.outputs, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_adjust_softmax_res_sets_the_rows_whose_max_matches(rows, dtype):
    m, k = 12, 64
    x, blk = row_inputs(dtype, m, k, 8)
    x = np.minimum(x, NP[dtype](2.0))
    x[[3, 7], 5] = NP[dtype](2.5)  # rows 3 and 7 have max 2.5 exactly
    zeros = np.zeros((max(m * blk, k),), NP[dtype])
    r = rows.run(dtype, x, zeros, zeros, api=SOFTMAX_ADJUST, tmp=65536, work=65536, eps=2.5)
    assert r.ok, [f.text for f in r.faults]
    want, _, _ = softmax_ref(x)
    want[[3, 7]] = -1.0
    check(r.outputs[0].ravel(), want.ravel(), ROW_TOL[dtype], "AdjustSoftMaxRes")
    assert r.outputs[2].ravel()[0] == 1.0  # returned true
    r = rows.run(dtype, x, zeros, zeros, api=SOFTMAX_ADJUST, tmp=65536, work=65536, eps=3.0)
    assert r.ok and r.outputs[2].ravel()[0] == 0.0 and not np.any(r.outputs[0] == -1)


def test_softmax_time_grows_with_rows(rows):
    times = []
    for m in (8, 32, 96):
        x, _ = row_inputs("float", m, 64, 2)
        zeros = np.zeros((m * 8,), np.float32)
        r = rows.run("float", x, zeros, zeros, api=SOFTMAX, tmp=m * 200 * 4, work=m * 200 * 4)
        assert r.ok, [f.text for f in r.faults]
        times.append(r.task_duration_us)
    assert times[0] < times[1] < times[2], times


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", [(16, 128), (300, 16), (20, 96)])
def test_simple_softmax_uses_the_given_max_and_sum(rows, dtype, m, k):
    x, blk = row_inputs(dtype, m, k, 3)
    want, mx, sm = softmax_ref(x)
    # Scaled max and sum, to see they are used rather than recomputed: exp(x - (max + 1)) / (2 sum).
    in_max = np.repeat((mx + 1).astype(NP[dtype])[:, None], blk, axis=1)
    in_sum = np.repeat((2 * sm).astype(NP[dtype])[:, None], blk, axis=1)
    xd = x.astype(np.float64)
    ref = np.exp(xd - in_max[:, :1].astype(np.float64)) / in_sum[:, :1].astype(np.float64)
    for api in (SIMPLE_SOFTMAX, SIMPLE_SOFTMAX_OWN):
        tmp = 0 if api == SIMPLE_SOFTMAX_OWN else 65536
        r = rows.run(dtype, x, in_max.ravel(), in_sum.ravel(), api=api, tmp=tmp, work=65536)
        assert r.ok, [f.text for f in r.faults]
        check(r.outputs[0].ravel(), ref.ravel(), ROW_TOL[dtype], f"SimpleSoftMax api {api} {dtype} {m}x{k}")


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", [(16, 128), (8, 32), (3, 2048), (20, 96)])
def test_rmsnorm_matches_reference(rows, dtype, m, k):
    x, blk = row_inputs(dtype, m, k, 4)
    gamma = rng_for("gamma", k).uniform(0.5, 1.5, max(m * blk, k)).astype(NP[dtype])
    eps = 1e-5
    xd = x.astype(np.float64)
    want = xd / np.sqrt((xd**2).mean(axis=1, keepdims=True) + float(NP[dtype](eps))) * gamma[:k].astype(np.float64)
    # half: gamma is applied after the result is rounded to half (two roundings).
    tol = {"float": 2e-6, "half": 2e-3}[dtype]
    for api in (RMSNORM, RMSNORM_OWN):
        r = rows.run(dtype, x, gamma, gamma, api=api, tmp=0 if api == RMSNORM_OWN else 65536, work=65536, eps=eps)
        assert r.ok, [f.text for f in r.faults]
        check(r.outputs[0].ravel(), want.ravel(), tol, f"RmsNorm api {api} {dtype} {m}x{k}")


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", [(16, 128), (8, 32), (3, 2048), (20, 96)])
def test_layernorm_matches_reference(rows, dtype, m, k):
    x, blk = row_inputs(dtype, m, k, 6)
    size = max(m * blk, k)
    gamma = rng_for("ln-gamma", k).uniform(0.5, 1.5, size).astype(NP[dtype])
    beta = rng_for("ln-beta", k).uniform(-1, 1, size).astype(NP[dtype])
    eps = 1e-5
    xd = x.astype(np.float64)
    mean = xd.mean(axis=1)
    var = ((xd - mean[:, None]) ** 2).mean(axis=1)
    y = (xd - mean[:, None]) / np.sqrt(var[:, None] + float(NP[dtype](eps)))
    want = y * gamma[:k].astype(np.float64) + beta[:k].astype(np.float64)
    # half: gamma and beta are applied in half after narrowing (three roundings)
    tol = {"float": 2e-6, "half": 3e-3}[dtype]
    for api in (LAYERNORM, LAYERNORM_OWN):
        r = rows.run(dtype, x, gamma, beta, api=api, tmp=0 if api == LAYERNORM_OWN else 65536, work=65536, eps=eps)
        assert r.ok, [f.text for f in r.faults]
        z, zmean, zvar = r.outputs
        check(z.ravel(), want.ravel(), tol, f"LayerNorm api {api} {dtype} {m}x{k}")
        check(zmean.ravel()[:m], mean, ROW_TOL[dtype], "mean")
        check(zvar.ravel()[:m], var, ROW_TOL[dtype], "variance")


def test_row_apis_fault_on_a_temporary_space_smaller_than_the_tiling(rows):
    m, k = 16, 128
    x, _ = row_inputs("float", m, k, 5)
    zeros = np.zeros((m * 8,), np.float32)
    # float SoftMax with max and sum outputs needs s x 64 floats (its folds) for the tiling's s = 16 rows: 4096 bytes
    r = rows.run("float", x, zeros, zeros, api=SOFTMAX, tmp=4096 - 32, work=65536)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "SoftMax" in r.faults[0].text and "sharedTmpBuffer" in r.faults[0].text
    for api, name in ((RMSNORM, "RmsNorm"), (LAYERNORM, "LayerNorm")):
        r = rows.run("float", x, zeros, zeros, api=api, tmp=4096, work=65536)
        assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
        assert name in r.faults[0].text


@pytest.mark.parametrize("soc,dtype,said", [("Ascend910B1", "int32_t", "this element type is not supported"),
                                            ("Ascend310P3", "float", "ExpTaylor is not available")])
def test_element_types_come_from_the_support_table(soc, dtype, said):
    """Outside api_support.yaml's advanced-API block (int32_t anywhere; the Taylor Exp on 310P AI Core, which
    Exp-81.md marks unsupported) the kernel does not compile, and the error says why and names the SoC."""
    with pytest.raises(CompileError) as err:
        build_kernel(KERNELS / "adv_unary.cpp", "adv_unary", get_soc(soc), [f"DTYPE={dtype}"])
    assert said in str(err.value) and soc in str(err.value), str(err.value)



# ---------------------------------------------------------------------------------------------------------
# Rounding, clamping, bitwise, Acosh and Fmod (tuner_sim/adv_elem.h; tests/sim/kernels/advanced/adv_elem.cpp):
# z = API(x) or API(x, y). Ceil, Floor, Trunc, Frac, ClampMin/Max and Xor are exact on every element (the
# results are representable in T, computed in float for half); Acosh and Fmod carry float rounding (float:
# a few ulps; half: computed in float and rounded to half once).

CEIL, FLOOR, TRUNC, FRAC, ACOSH, FMOD, CLAMP_MIN, CLAMP_MAX = range(8)
XOR = 0  # the int16_t / uint16_t build runs only Xor
ELEM_NP = {"half": np.float16, "float": np.float32, "int16_t": np.int16, "uint16_t": np.uint16}


class ElemKernels:
    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(self, dtype: str, x: np.ndarray, y: np.ndarray | None = None, *, api: int, form: int = 0,
            count: int | None = None, tmp: int = 0, fill: int = 0, scalar: float = 0.0) -> SimResult:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNELS / "adv_elem.cpp", "adv_elem", self._soc, [f"DTYPE={dtype}"])
        n = len(x)
        y = np.ones_like(x) if y is None else y
        tiling = struct.pack("<6Qd", api, form, n, n if count is None else count, tmp, fill, scalar)
        return run_executable(self._exes[dtype], [GmIn(x), GmIn(y), GmOut(np.dtype(ELEM_NP[dtype]), (n,)),
                                                  Struct(tiling)], 1)


@pytest.fixture(scope="session")
def elem() -> ElemKernels:
    return ElemKernels()


def fmod_inputs(dtype: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """a in [-100, 100], |b| in [0.5, 10] with either sign, leaving out quotients within 1e-3 of an integer
    (there the float quotient may round across it and trunc picks the neighbour, on the NPU as here)."""
    g = rng_for("fmod", dtype, n, seed)
    a = g.uniform(-100, 100, n).astype(NP[dtype])
    b = (g.uniform(0.5, 10, n) * g.choice([-1.0, 1.0], n)).astype(NP[dtype])
    q = a.astype(np.float64) / b.astype(np.float64)
    near = np.abs(q - np.round(q)) < 1e-3
    a[near] = NP[dtype](0.25)
    return a, b


ROUNDING = {CEIL: np.ceil, FLOOR: np.floor, TRUNC: np.trunc, FRAC: lambda v: v - np.trunc(v)}


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("api,forms,tmp", [(CEIL, (0, 2), 512), (FLOOR, (0, 2), 512), (TRUNC, (0, 1, 2, 3), 512),
                                           (FRAC, (0, 1, 2, 3), 1024)])
def test_rounding_is_exact(elem, dtype, api, forms, tmp):
    n = 2048
    for seed, form in enumerate(forms):
        x = rng_for("round", dtype, api, seed).uniform(-300, 300, n).astype(NP[dtype])
        x[:8] = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5]  # integers and halves, both signs
        count = n - 96 if form in (0, 2) else n
        r = elem.run(dtype, x, api=api, form=form, count=count, tmp=tmp)
        assert r.ok, [f.text for f in r.faults]
        got = r.outputs[0]
        want = ROUNDING[api](x.astype(np.float64)[:count])
        np.testing.assert_array_equal(got[:count].astype(np.float64), want, err_msg=f"api {api} form {form}")
        assert not np.any(got[count:]), "elements past calCount were written"


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_acosh_matches_reference(elem, dtype):
    n = 2048
    for seed, form in enumerate((0, 1, 2, 3)):
        x = rng_for("acosh", dtype, seed).uniform(1.5, 200, n).astype(NP[dtype])
        x[:4] = [1.5, 2.0, 10.0, 200.0]
        count = n - 96 if form in (0, 2) else n
        r = elem.run(dtype, x, api=ACOSH, form=form, count=count, tmp=1024)
        assert r.ok, [f.text for f in r.faults]
        want = np.arccosh(x.astype(np.float64)[:count])
        check(r.outputs[0][:count], want, {"float": 1e-6, "half": 5e-4}[dtype], f"Acosh form {form} {dtype}")
        assert not np.any(r.outputs[0][count:])


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_fmod_matches_reference(elem, dtype):
    n = 2048
    for seed, form in enumerate((0, 1, 2, 3)):
        a, b = fmod_inputs(dtype, n, seed)
        count = n - 96 if form in (0, 2) else n
        r = elem.run(dtype, a, b, api=FMOD, form=form, count=count, tmp=4096)
        assert r.ok, [f.text for f in r.faults]
        ad, bd = a.astype(np.float64)[:count], b.astype(np.float64)[:count]
        want = np.fmod(ad, bd)
        got = r.outputs[0][:count].astype(np.float64)
        # float: trunc(a/b) * b and the subtraction round at |a|'s scale; half: one rounding of the result
        bound = 4e-7 * np.maximum(1.0, np.abs(ad)) if dtype == "float" else 5e-4 * np.maximum(1.0, np.abs(want))
        worst = int(np.argmax(np.abs(got - want) - bound))
        assert abs(got[worst] - want[worst]) <= bound[worst], (form, ad[worst], bd[worst], got[worst], want[worst])
        assert np.all(np.sign(got[got != 0]) == np.sign(ad[got != 0])), "fmod takes the sign of the dividend"
        assert not np.any(r.outputs[0][count:])


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_clamp_min_and_max(elem, dtype):
    n = 1024
    for seed, form in enumerate((0, 2)):
        x = rng_for("clamp", dtype, seed).uniform(-10, 10, n).astype(NP[dtype])
        count = n - 96
        for api, s, fn in ((CLAMP_MIN, -1.25, np.maximum), (CLAMP_MAX, 3.5, np.minimum)):
            r = elem.run(dtype, x, api=api, form=form, count=count, tmp=128, scalar=s)
            assert r.ok, [f.text for f in r.faults]
            np.testing.assert_array_equal(r.outputs[0][:count], fn(x[:count], NP[dtype](s)))
            assert not np.any(r.outputs[0][count:])


@pytest.mark.parametrize("dtype", ["int16_t", "uint16_t"])
def test_xor_is_bitwise(elem, dtype):
    n = 2048
    info = np.iinfo(ELEM_NP[dtype])
    for seed, form in enumerate((0, 1, 2, 3)):
        g = rng_for("xor", dtype, seed)
        a = g.integers(info.min, info.max, n, endpoint=True).astype(ELEM_NP[dtype])
        b = g.integers(info.min, info.max, n, endpoint=True).astype(ELEM_NP[dtype])
        count = n - 96 if form in (0, 2) else n
        r = elem.run(dtype, a, b, api=XOR, form=form, count=count, tmp=256)
        assert r.ok, [f.text for f in r.faults]
        np.testing.assert_array_equal(r.outputs[0][:count], np.bitwise_xor(a[:count], b[:count]))
        assert not np.any(r.outputs[0][count:])


def test_xor_in_small_passes_is_the_same_and_slower(elem):
    g = rng_for("xor-passes")
    a = g.integers(-32768, 32767, 8192).astype(np.int16)
    b = g.integers(-32768, 32767, 8192).astype(np.int16)
    small = elem.run("int16_t", a, b, api=XOR, tmp=256)
    large = elem.run("int16_t", a, b, api=XOR, tmp=16384)
    assert small.ok and large.ok
    np.testing.assert_array_equal(small.outputs[0], large.outputs[0])
    assert small.task_duration_us > large.task_duration_us


def test_elem_time_is_the_expansions(elem):
    """Ceil of float is two Casts; Fmod of float a Div, two Casts, a Mul and a Sub: it costs more."""
    a, b = fmod_inputs("float", 8192, 9)
    ceil = elem.run("float", a, b, api=CEIL, tmp=256)
    fmod = elem.run("float", a, b, api=FMOD, tmp=256)
    assert ceil.ok and fmod.ok
    assert fmod.task_duration_us > ceil.task_duration_us


@pytest.mark.parametrize("dtype,api,minimum", [
    ("float", CEIL, 256), ("half", CEIL, 512), ("half", FLOOR, 512), ("float", TRUNC, 256), ("half", TRUNC, 512),
    ("half", FRAC, 1024), ("float", ACOSH, 256), ("half", ACOSH, 512), ("float", FMOD, 256), ("half", FMOD, 2048),
    ("float", CLAMP_MIN, 64), ("half", CLAMP_MAX, 128), ("int16_t", XOR, 256),
])
def test_elem_too_small_shared_tmp_buffer_faults(elem, dtype, api, minimum):
    x = np.linspace(1.5, 9.5, 512).astype(ELEM_NP[dtype])
    ok = elem.run(dtype, x, api=api, form=0, tmp=minimum)
    assert ok.ok, [f.text for f in ok.faults]
    r = elem.run(dtype, x, api=api, form=0, tmp=minimum - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text and str(minimum) in r.faults[0].text


@pytest.mark.parametrize("api", [FLOOR, FRAC])
def test_float_floor_and_frac_need_no_temporary_space(elem, api):
    x = rng_for("no-tmp", api).uniform(-50, 50, 512).astype(np.float32)
    r = elem.run("float", x, api=api, form=0, tmp=0)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0].astype(np.float64), ROUNDING[api](x.astype(np.float64)))


def test_elem_own_temporary_space_must_be_left_free(elem):
    soc = get_soc(DEFAULT_SOC)
    x = np.linspace(1.5, 9.5, 512).astype(np.float16)
    fill = (soc.ub_stack_end - 3 * 512 * 2) // 32 * 32
    r = elem.run("half", x, api=ACOSH, form=2, count=512, fill=fill)
    assert [f.cls for f in r.faults] == ["ub-overflow"], [f.text for f in r.faults]
    assert "Acosh" in r.faults[0].text
    r = elem.run("half", x, api=ACOSH, form=2, count=512, fill=fill - 512)
    assert r.ok, [f.text for f in r.faults]


# ---------------------------------------------------------------------------------------------------------
# Fill of Global Memory (tuner_sim/adv_utils.h; tests/sim/kernels/advanced/adv_fill.cpp).

def run_fill(dtype: str, n: int, blocks: int, value: float, taken: int = 0) -> SimResult:
    exe = build_kernel(KERNELS / "adv_fill.cpp", "adv_fill", get_soc(DEFAULT_SOC), [f"DTYPE={dtype}"])
    tiling = struct.pack("<2Qd", n, taken, value)
    return run_executable(exe, [GmOut(np.dtype(ELEM_NP.get(dtype, np.int32)), (blocks * n,)), Struct(tiling)], blocks)


@pytest.mark.parametrize("dtype,n", [("float", 65536), ("half", 1000), ("float", 70000), ("int32_t", 8)])
def test_fill_writes_every_element(dtype, n):
    """Whole 65280-byte bursts and a tail, one block or several (each its own slice)."""
    blocks = 3
    r = run_fill(dtype, n, blocks, 2.0)
    assert r.ok, [f.text for f in r.faults]
    want = np.repeat(np.arange(blocks, dtype=np.float64) + 2.0, n)
    np.testing.assert_array_equal(r.outputs[0].astype(np.float64), want)


def test_fill_time_grows_with_size():
    times = [run_fill("float", n, 1, 1.0).task_duration_us for n in (1024, 65536, 262144)]
    assert times[0] < times[1] < times[2], times


def test_fill_after_the_ub_is_taken_faults():
    soc = get_soc(DEFAULT_SOC)
    r = run_fill("float", 1024, 1, 1.0, taken=soc.ub_stack_end)
    assert [f.cls for f in r.faults] == ["ub-overflow"], [f.text for f in r.faults]
    assert "Fill" in r.faults[0].text and "InitBuffer" in r.faults[0].text


# ---------------------------------------------------------------------------------------------------------
# CumSum, first axis (tuner_sim/adv_elem.h; tests/sim/kernels/advanced/adv_cumsum.cpp). float adds in float;
# half widens, adds in float and rounds once, so both are a running float sum (bound: m float roundings of
# the largest partial sum), half then rounded to half.

def run_cumsum(dtype: str, x: np.ndarray, *, form: int = 0, tmp: int = 0) -> SimResult:
    exe = build_kernel(KERNELS / "adv_cumsum.cpp", "adv_cumsum", get_soc(DEFAULT_SOC), [f"DTYPE={dtype}"])
    m, k = x.shape
    out = np.dtype(NP[dtype])
    return run_executable(exe, [GmIn(x), GmOut(out, (m, k)), GmOut(out, (k,)),
                                Struct(struct.pack("<4Q", m, k, form, tmp))], 1)


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,k", [(32, 160), (1, 64), (7, 16), (100, 48)])
def test_cumsum_first_axis_matches_reference(dtype, m, k):
    for seed, form in enumerate((0, 1, 2)):
        x = rng_for("cumsum", dtype, m, k, seed).uniform(-4, 4, (m, k)).astype(NP[dtype])
        r = run_cumsum(dtype, x, form=form, tmp=m * k * 4 if form != 1 else 0)
        assert r.ok, [f.text for f in r.faults]
        z, last = r.outputs
        want = np.cumsum(x.astype(np.float64), axis=0)
        scale = np.maximum(1.0, np.abs(x.astype(np.float64)).sum(axis=0))
        tol = m * 2.0**-24 * scale + (np.abs(want) * 2.0**-11 if dtype == "half" else 0)
        assert np.all(np.abs(z.astype(np.float64) - want) <= tol), f"form {form}: {np.abs(z - want).max()}"
        if form == 2:
            assert not np.any(last)
        else:
            np.testing.assert_array_equal(last, z[-1])


def test_cumsum_half_tmp_minimum_and_alignment():
    x = rng_for("cumsum-min").uniform(-4, 4, (8, 32)).astype(np.float16)
    assert run_cumsum("half", x, tmp=8 * 32 * 4).ok
    r = run_cumsum("half", x, tmp=8 * 32 * 4 - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "CumSum" in r.faults[0].text and str(8 * 32 * 4) in r.faults[0].text
    r = run_cumsum("float", rng_for("cumsum-odd").uniform(-1, 1, (4, 12)).astype(np.float32))
    assert [f.cls for f in r.faults] == ["misaligned"], [f.text for f in r.faults]


def test_cumsum_last_axis_is_refused_at_compile_time(tmp_path):
    src = tmp_path / "last_axis.cpp"
    src.write_text((KERNELS / "adv_cumsum.cpp").read_text().replace("{false, false, true}", "{true, false, true}"))
    with pytest.raises(CompileError) as err:
        build_kernel(src, "adv_cumsum", get_soc(DEFAULT_SOC), ["DTYPE=float"])
    assert "last-axis form" in str(err.value), str(err.value)


def test_std_type_traits_compile_with_the_standard_meaning():
    """tests/sim/kernels/advanced/adv_std.cpp static_asserts AscendC::Std's traits against known answers."""
    exe = build_kernel(KERNELS / "adv_std.cpp", "adv_std", get_soc(DEFAULT_SOC), [])
    r = run_executable(exe, [GmOut(np.dtype(np.int32), (8,))], 1)
    assert r.ok and r.outputs[0][0] == 1, [f.text for f in r.faults]


# ---------------------------------------------------------------------------------------------------------
# Sum (tuner_sim/adv_elem.h; tests/sim/kernels/advanced/adv_sum.cpp): row sums of the first n of `inner`
# elements, in T by RepeatReduceSum passes (bound: one rounding of T per tree level, relative to sum |x|).

def sum_tmp_bytes(n: int, itemsize: int) -> int:
    per_rep, per_blk = 256 // itemsize, 32 // itemsize
    reps = -(-n // per_rep)
    return -(-reps // per_blk) * per_blk * itemsize


def run_sum(dtype: str, x: np.ndarray, n: int, *, form: int = 0, tmp: int | None = None) -> SimResult:
    exe = build_kernel(KERNELS / "adv_sum.cpp", "adv_sum", get_soc(DEFAULT_SOC), [f"DTYPE={dtype}"])
    m, inner = x.shape
    item = np.dtype(NP[dtype]).itemsize
    out_len = -(-m * item // 32) * 32 // item
    # Whole repeats: the runtime bounds-checks the whole last repeat of the second RepeatReduceSum pass,
    # which reads the partial sums from the temporary space (GetSumMaxMinTmpSize may give less).
    tmp = -(-sum_tmp_bytes(n, item) // 256) * 256 if tmp is None else tmp
    tiling = struct.pack("<6Q", m, inner, n, out_len, form, tmp if form == 0 else 0)
    return run_executable(exe, [GmIn(x), GmOut(np.dtype(NP[dtype]), (out_len,)), Struct(tiling)], 1)


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,n", [(3, 32), (5, 1), (4, 100), (2, 3000), (1, 20000)])
def test_sum_matches_reference(dtype, m, n):
    item = np.dtype(NP[dtype]).itemsize
    inner = -(-n * item // 32) * 32 // item
    for form in (0, 1):
        x = rng_for("sum", dtype, m, n, form).uniform(-2, 2, (m, inner)).astype(NP[dtype])
        r = run_sum(dtype, x, n, form=form)
        assert r.ok, [f.text for f in r.faults]
        xd = x.astype(np.float64)[:, :n]
        want = xd.sum(axis=1)
        eps = 2.0**-24 if dtype == "float" else 2.0**-11
        bound = 4 * (math.log2(max(n, 2)) + 1) * eps * np.abs(xd).sum(axis=1)
        got = r.outputs[0][:m].astype(np.float64)
        assert np.all(np.abs(got - want) <= bound), (form, got, want)
        assert not np.any(r.outputs[0][m:])


def test_sum_tmp_minimum_and_params():
    x = rng_for("sum-min").uniform(-2, 2, (2, 3000)).astype(np.float32)
    minimum = sum_tmp_bytes(3000, 4)
    assert run_sum("float", x, 3000, tmp=256).ok
    r = run_sum("float", x, 3000, tmp=minimum - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "Sum" in r.faults[0].text and str(minimum) in r.faults[0].text
    r = run_sum("float", x[:, :2992].copy(), 2993)
    assert [f.cls for f in r.faults] == ["misaligned"], [f.text for f in r.faults]


# ---------------------------------------------------------------------------------------------------------
# Power (tuner_sim/adv_power.h; tests/sim/kernels/advanced/adv_power.cpp): exp(y ln|x|) in float with pow()'s
# signs, ones and NaNs; the error is e^(y ln|x|)'s, ~|y ln|x|| float roundings (half: one half rounding more).

def run_power(dtype: str, x: np.ndarray, y: np.ndarray, *, form: int, count: int | None = None, tmp: int = 0,
              scalar: float = 0.0) -> SimResult:
    exe = build_kernel(KERNELS / "adv_power.cpp", "adv_power", get_soc(DEFAULT_SOC), [f"DTYPE={dtype}"])
    n = len(x)
    tiling = struct.pack("<4Qd", form, n, n if count is None else count, tmp, scalar)
    return run_executable(exe, [GmIn(x), GmIn(y), GmOut(np.dtype(NP[dtype]), (n,)), Struct(tiling)], 1)


def power_inputs(dtype: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    g = rng_for("power", dtype, n, seed)
    x = (g.uniform(0.25, 4, n) * g.choice([-1.0, 1.0], n)).astype(NP[dtype])
    y = g.uniform(-3, 3, n)
    y[::2] = np.round(y[::2])  # integral exponents: negative bases give real results
    return x, y.astype(NP[dtype])


def check_power(got: np.ndarray, want: np.ndarray, dtype: str, what: str) -> None:
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), f"{what}: NaN positions differ"
    rtol = 2e-6 if dtype == "float" else 2e-3
    err = np.abs(got[~nan].astype(np.float64) - want[~nan]) / np.maximum(np.abs(want[~nan]), 1e-30)
    assert err.max() <= rtol, f"{what}: relative error {err.max():.2e}"


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_power_forms_match_reference(dtype):
    n = 1024
    for form in range(12):
        x, y = power_inputs(dtype, n, form)
        s = float(NP[dtype]({0: 0, 1: 3.0, 2: -1.5}[form // 4]))
        count = n - 96 if form % 4 in (0, 2) else n
        r = run_power(dtype, x, y, form=form, count=count, tmp=8192 if form % 4 < 2 else 0, scalar=s)
        assert r.ok, [f.text for f in r.faults]
        xd, yd = x.astype(np.float64)[:count], y.astype(np.float64)[:count]
        with np.errstate(invalid="ignore"):
            want = np.power(xd, yd) if form < 4 else (np.power(xd, s) if form < 8 else np.power(s, yd))
        check_power(r.outputs[0][:count], want, dtype, f"form {form} {dtype}")
        assert not np.any(r.outputs[0][count:])


def test_power_special_values():
    inf = np.inf
    pairs = [(-2, 3), (-2, 2), (-2, 0.5), (1, inf), (-1, inf), (-1, -inf), (5, 0), (-5, 0), (0, 2), (0, -1),
             (-inf, 3), (-inf, 0.5), (inf, -1), (2, -inf), (0.5, inf), (-3, -2), (4, 0.5), (-0.5, 3)]
    x = np.zeros(64, np.float32)
    y = np.zeros(64, np.float32)
    x[:len(pairs)], y[:len(pairs)] = zip(*pairs, strict=True)
    r = run_power("float", x, y, form=0, count=len(pairs), tmp=2048)
    assert r.ok, [f.text for f in r.faults]
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.power(x[:len(pairs)].astype(np.float64), y[:len(pairs)].astype(np.float64))
    got = r.outputs[0][:len(pairs)]
    assert np.isnan(want[2]) and not np.isnan(want[[0, 1, 3]]).any()
    np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)


@pytest.mark.parametrize("dtype,form,minimum", [("float", 0, 1280), ("float", 4, 1536), ("float", 8, 1536),
                                                ("half", 0, 2048), ("half", 4, 2048)])
def test_power_too_small_shared_tmp_buffer_faults(dtype, form, minimum):
    x, y = power_inputs(dtype, 256, 9)
    assert run_power(dtype, x, y, form=form, tmp=minimum, scalar=2.0).ok
    r = run_power(dtype, x, y, form=form, tmp=minimum - 32, scalar=2.0)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "Power" in r.faults[0].text and str(minimum) in r.faults[0].text


def test_power_small_tmp_is_the_same_and_slower():
    x, y = power_inputs("float", 4096, 3)
    small = run_power("float", x, y, form=0, tmp=1280)
    large = run_power("float", x, y, form=0, tmp=65536 + 256)
    assert small.ok and large.ok
    np.testing.assert_array_equal(small.outputs[0], large.outputs[0])
    assert small.task_duration_us > large.task_duration_us
