"""Tests of the simulator's element arithmetic (tuner/sim/runtime/numerics.cpp) and of fp16.h.

numerics.cpp is compiled with a small C shim (numerics_shim.cpp) into a shared library and driven through
ctypes; results are compared bit-for-bit with numpy / ml_dtypes and with reference implementations of the
rounding modes written here on top of numpy's float16 arithmetic.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "tuner" / "sim" / "runtime"
INCLUDE = ROOT / "tuner" / "sim" / "include"
SHIM = Path(__file__).resolve().parent / "numerics_shim.cpp"
CXX = shutil.which("g++")
CXXFLAGS = ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC"]

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ not available")

BF16 = ml_dtypes.bfloat16

# DType values of numerics.h and the matching numpy dtypes.
U8, I8, U16, I16, F16, BF, U32, I32, F32, U64, I64, F64 = range(12)
NP = {
    U8: np.uint8,
    I8: np.int8,
    U16: np.uint16,
    I16: np.int16,
    F16: np.float16,
    BF: BF16,
    U32: np.uint32,
    I32: np.int32,
    F32: np.float32,
    U64: np.uint64,
    I64: np.int64,
    F64: np.float64,
}
NAMES = {
    U8: "uint8_t",
    I8: "int8_t",
    U16: "uint16_t",
    I16: "int16_t",
    F16: "half",
    BF: "bfloat16_t",
    U32: "uint32_t",
    I32: "int32_t",
    F32: "float",
    U64: "uint64_t",
    I64: "int64_t",
    F64: "double",
}
NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = range(7)
ALL_MODES = (NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD)
ADD, SUB, MUL, DIV, MAX, MIN, AND, OR, ADDRELU, SUBRELU = range(10)
EXP, LN, ABS, SQRT, RSQRT, RECIP, RELU, NOT = range(8)
ADDS, MULS, MAXS, MINS, LEAKY = range(5)
LT, GT, EQ, LE, GE, NE = range(6)


# ---------------------------------------------------------------------------------------------------------
# Build


def _compile(args: list[str]) -> None:
    proc = subprocess.run([CXX, *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", f"compiler warnings:\n{proc.stderr}"


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("numerics")


@pytest.fixture(scope="session")
def numerics_obj(build_dir) -> Path:
    obj = build_dir / "numerics.o"
    _compile([*CXXFLAGS, "-c", str(RUNTIME / "numerics.cpp"), "-o", str(obj)])
    return obj


@pytest.fixture(scope="session")
def lib(build_dir, numerics_obj) -> ctypes.CDLL:
    so = build_dir / "libnumerics_shim.so"
    _compile([*CXXFLAGS, "-shared", f"-I{RUNTIME}", f"-I{INCLUDE}", str(SHIM), str(numerics_obj), "-o", str(so)])
    dll = ctypes.CDLL(str(so))
    vp, sz, i, d = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_double
    sigs = {
        "shim_f2h": (None, [vp, vp, sz, i]),
        "shim_f2bf": (None, [vp, vp, sz, i]),
        "shim_f2h_rne": (None, [vp, vp, sz]),
        "shim_f2bf_rne": (None, [vp, vp, sz]),
        "shim_h2f": (None, [vp, vp, sz]),
        "shim_bf2f": (None, [vp, vp, sz]),
        "shim_store": (None, [i, vp, vp, sz, i]),
        "shim_load": (None, [i, vp, vp, sz]),
        "shim_binary": (None, [i, i, vp, vp, vp, sz]),
        "shim_unary": (None, [i, i, vp, vp, sz]),
        "shim_binary_scalar": (None, [i, i, vp, vp, d, sz]),
        "shim_fill": (None, [i, vp, d, sz]),
        "shim_cast": (i, [i, i, i, vp, vp, sz]),
        "shim_reduce_sum": (d, [i, vp, sz]),
        "shim_reduce_max": (d, [i, vp, sz, ctypes.POINTER(sz)]),
        "shim_reduce_min": (d, [i, vp, sz, ctypes.POINTER(sz)]),
        "shim_compare": (None, [i, i, vp, vp, vp, sz]),
        "shim_compare_scalar": (None, [i, i, vp, vp, d, sz]),
        "shim_select": (None, [i, vp, vp, vp, vp, d, sz]),
        "shim_dtype_size": (sz, [i]),
        "shim_dtype_name": (ctypes.c_char_p, [i]),
        "shim_time_binary": (d, [i, i, vp, vp, vp, sz, i]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(dll, name)
        fn.restype = res
        fn.argtypes = args
    return dll


# ---------------------------------------------------------------------------------------------------------
# Helpers


def ptr(a: np.ndarray | None):
    return None if a is None else a.ctypes.data


def c_f2h(lib, x, mode=RINT):
    x = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty(x.size, np.uint16)
    lib.shim_f2h(ptr(x), ptr(out), x.size, mode)
    return out


def c_f2bf(lib, x, mode=RINT):
    x = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty(x.size, np.uint16)
    lib.shim_f2bf(ptr(x), ptr(out), x.size, mode)
    return out


def c_store(lib, t, values, mode=RINT):
    v = np.ascontiguousarray(values, dtype=np.float64)
    out = np.zeros(v.size, NP[t])
    lib.shim_store(t, ptr(out), ptr(v), v.size, mode)
    return out


def c_cast(lib, dst_t, src_t, src, mode=RINT):
    src = np.ascontiguousarray(src, dtype=NP[src_t])
    out = np.zeros(src.size, NP[dst_t])
    assert lib.shim_cast(dst_t, src_t, mode, ptr(out), ptr(src), src.size) == 1
    return out


def c_binary(lib, op, t, a, b):
    a = np.ascontiguousarray(a, dtype=NP[t])
    b = np.ascontiguousarray(b, dtype=NP[t])
    out = np.zeros(a.size, NP[t])
    lib.shim_binary(op, t, ptr(out), ptr(a), ptr(b), a.size)
    return out


def c_unary(lib, op, t, a):
    a = np.ascontiguousarray(a, dtype=NP[t])
    out = np.zeros(a.size, NP[t])
    lib.shim_unary(op, t, ptr(out), ptr(a), a.size)
    return out


def c_scalar(lib, op, t, a, s):
    a = np.ascontiguousarray(a, dtype=NP[t])
    out = np.zeros(a.size, NP[t])
    lib.shim_binary_scalar(op, t, ptr(out), ptr(a), float(s), a.size)
    return out


def uview(a: np.ndarray) -> np.ndarray:
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str = "", src=None) -> None:
    """Bit-exact equality; any NaN matches any NaN."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f" or got.dtype == BF16:
        with np.errstate(invalid="ignore"):  # signalling NaNs
            gn = np.isnan(got.astype(np.float64))
            wn = np.isnan(want.astype(np.float64))
        bad = (gn != wn) | (~gn & (uview(got) != uview(want)))
    else:
        bad = got != want
    if bad.any():
        idx = np.flatnonzero(bad)[:8]
        detail = [(None if src is None else src[i], got[i], want[i]) for i in idx]
        raise AssertionError(f"{what}: {bad.sum()} mismatches, e.g. (src, got, want) {detail}")


def f32_edge_cases() -> np.ndarray:
    f = np.float32
    vals = [
        0.0,
        1.0,
        2.0,
        0.5,
        1.5,
        3.0,
        0.1,
        1 / 3,
        65504.0,
        65505.0,
        65519.0,
        65519.996,
        65520.0,
        65521.0,
        65535.0,
        65536.0,
        1e5,
        1e30,
        3.4028235e38,
        3.3895314e38,
        3.3961775e38,
        2.0**-14,
        2.0**-14 - 2.0**-25,
        2.0**-14 - 2.0**-24,
        2.0**-24,
        2.0**-25,
        2.0**-25 * 1.0000001,
        2.0**-26,
        3 * 2.0**-25,
        5 * 2.0**-25,
        2.0**-24 * 1.5,
        2.0**-126,
        2.0**-127,
        2.0**-149,
        1e-45,
        1 + 2.0**-11,
        1 + 3 * 2.0**-11,
        1 + 2.0**-8,
        1 + 3 * 2.0**-8,
        1 + 2.0**-11 + 2.0**-20,
        2049.0,
        2051.0,
        4097.0,
        256.5,
        255.5,
        0.4999999,
        2.5,
        -2.5,
        float("inf"),
        float("nan"),
    ]
    a = np.array(vals, dtype=np.float64).astype(f)
    with np.errstate(over="ignore"):
        nxt = np.nextafter(a, f(np.inf))
        prv = np.nextafter(a, f(0))
    all_ = np.concatenate([a, nxt, prv])
    return np.concatenate([all_, -all_]).astype(f)


def half_midpoints() -> np.ndarray:
    """Every finite positive half value, the midpoints to its successor, and their float32 neighbours."""
    h = np.arange(0, 0x7C00, dtype=np.uint16)
    lo = h.view(np.float16).astype(np.float64)
    hi = np.append(lo[1:], 65536.0)
    mid = ((lo + hi) / 2).astype(np.float32)
    f = np.float32
    pts = np.concatenate([lo.astype(f), mid, np.nextafter(mid, f(0)), np.nextafter(mid, f(np.inf))])
    return np.concatenate([pts, -pts])


def bf16_midpoints(rng) -> np.ndarray:
    b = rng.integers(0, 0x7F80, size=40000).astype(np.uint32)
    mid = ((b << 16) | 0x8000).view(np.float32)
    f = np.float32
    pts = np.concatenate([(b << 16).view(f), mid, np.nextafter(mid, f(0)), np.nextafter(mid, f(np.inf))])
    return np.concatenate([pts, -pts])


def random_f32(rng, n: int) -> np.ndarray:
    """Random bit patterns: half over all floats, half concentrated around the half-precision range."""
    a = rng.integers(0, 2**32, size=n // 2, dtype=np.uint64).astype(np.uint32)
    e = rng.integers(127 - 30, 127 + 18, size=n - n // 2).astype(np.uint32)
    m = rng.integers(0, 2**23, size=n - n // 2).astype(np.uint32)
    s = rng.integers(0, 2, size=n - n // 2).astype(np.uint32)
    b = (s << 31) | (e << 23) | m
    bits = np.concatenate([a, b])
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    bits[nan] |= 0x00400000  # quiet NaNs only: numpy's reference casts would flag signalling ones
    return bits.view(np.float32)


# ---------------------------------------------------------------------------------------------------------
# Reference rounding (independent of the C++ algorithm: candidates come from numpy's own float16 / bit
# truncation, the choice between them is made by exact comparisons with the midpoint in float64).


def _choose(ax, neg, exact, lo_bits, lo_val, hi_val, mode):
    """Pick lo or lo+1 (as bit patterns of the magnitude) for |x| = ax between lo_val and hi_val."""
    hi_bits = lo_bits + 1
    mid = (lo_val + hi_val) / 2  # exact in float64
    lo_even = (lo_bits & 1) == 0
    if mode in (RINT, NONE):
        up = (ax > mid) | ((ax == mid) & ~lo_even)
    elif mode == ROUND:
        up = ax >= mid
    elif mode == TRUNC:
        up = np.zeros_like(neg)
    elif mode == FLOOR:
        up = neg & ~exact
    elif mode == CEIL:
        up = ~neg & ~exact
    elif mode == ODD:
        up = ~exact & lo_even
    else:
        raise ValueError(mode)
    up &= ~exact
    return np.where(up, hi_bits, lo_bits)


def ref_f2h(x32: np.ndarray, mode: int) -> np.ndarray:
    x = x32.astype(np.float64)
    neg = np.signbit(x)
    ax = np.abs(x)
    finite = np.isfinite(ax)
    axf = np.where(finite, ax, 0.0)
    with np.errstate(over="ignore"):
        h = axf.astype(np.float16)  # numpy: round to nearest even (may give inf)
    lo = np.where(h.astype(np.float64) > axf, np.nextafter(h, np.float16(0)), h)
    lo_bits = lo.view(np.uint16).astype(np.uint32)
    lo_val = lo.astype(np.float64)
    hi_bits = lo_bits + 1
    hi_val = np.where(
        hi_bits == 0x7C00,
        65536.0,
        np.minimum(hi_bits, 0x7BFF).astype(np.uint16).view(np.float16).astype(np.float64),
    )
    bits = _choose(axf, neg, lo_val == axf, lo_bits, lo_val, hi_val, mode)
    bits = np.where(finite, bits, 0x7C00)
    out = (bits | (neg.astype(np.uint32) << 15)).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7E00), out)


def ref_f2bf(x32: np.ndarray, mode: int) -> np.ndarray:
    x = x32.astype(np.float64)
    neg = np.signbit(x)
    ax32 = np.abs(x32.astype(np.float32))
    finite = np.isfinite(ax32)
    lo_bits = (ax32.view(np.uint32) >> 16).astype(np.uint32)
    lo_val = (lo_bits << 16).view(np.float32).astype(np.float64)
    hi_bits = lo_bits + 1
    capped = (np.minimum(hi_bits, 0x7F7F) << 16).astype(np.uint32)
    hi_val = np.where(hi_bits >= 0x7F80, 2.0**128, capped.view(np.float32).astype(np.float64))
    ax = np.where(finite, ax32.astype(np.float64), 0.0)
    bits = _choose(ax, neg, lo_val == ax, lo_bits, lo_val, hi_val, mode)
    bits = np.where(finite, bits, 0x7F80)
    out = (bits | (neg.astype(np.uint32) << 15)).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), out)


def ref_f64_to_f32(x: np.ndarray, mode: int) -> np.ndarray:
    """double -> float under `mode`, built on numpy's float32 neighbours."""
    neg = np.signbit(x)
    ax = np.abs(x)
    with np.errstate(over="ignore"):
        f = ax.astype(np.float32)
    lo = np.where(f.astype(np.float64) > ax, np.nextafter(f, np.float32(0)), f)
    lo_bits = lo.view(np.uint32).astype(np.uint64)
    lo_val = lo.astype(np.float64)
    hi_bits = lo_bits + 1
    hi_val = np.where(
        hi_bits >= 0x7F800000,
        2.0**128,
        np.minimum(hi_bits, 0x7F7FFFFF).astype(np.uint32).view(np.float32).astype(np.float64),
    )
    bits = _choose(ax, neg, lo_val == ax, lo_bits, lo_val, hi_val, mode)
    return (bits | (neg.astype(np.uint64) << 31)).astype(np.uint32).view(np.float32)


def ref_round_int(x: np.ndarray, mode: int) -> np.ndarray:
    """Round float64 values to integral float64 values under `mode`."""
    if mode in (RINT, NONE):
        return np.rint(x)
    if mode == FLOOR:
        return np.floor(x)
    if mode == CEIL:
        return np.ceil(x)
    if mode == TRUNC:
        return np.trunc(x)
    if mode == ROUND:
        return np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5))
    if mode == ODD:
        t = np.trunc(x)
        even = np.fmod(t, 2) == 0
        return np.where((t != x) & even, t + np.sign(x), t)
    raise ValueError(mode)


def ref_to_int(x: np.ndarray, dtype, mode: int) -> np.ndarray:
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):
        r = ref_round_int(x.astype(np.float64), mode)
        r = np.where(np.isnan(r), 0, r)
        out = np.where(r <= info.min, info.min, np.where(r >= float(info.max) + 1, info.max, r))
    return np.array([int(v) for v in out], dtype=object).astype(dtype)


def ref_int_round(v: int, bits: int, mode: int) -> int:
    """Round an exact Python integer to `bits` significant bits under `mode` (no exponent limit)."""
    neg, mag = v < 0, abs(v)
    if mag.bit_length() <= bits:
        return v
    shift = mag.bit_length() - bits
    q, rem = mag >> shift, mag & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    up = {
        RINT: rem > half or (rem == half and q & 1),
        NONE: rem > half or (rem == half and q & 1),
        ROUND: rem >= half,
        TRUNC: False,
        FLOOR: neg and rem != 0,
        CEIL: (not neg) and rem != 0,
        ODD: rem != 0 and not q & 1,
    }[mode]
    q += int(bool(up))
    return (-1 if neg else 1) * (q << shift)


# ---------------------------------------------------------------------------------------------------------
# float -> half / bfloat16_t


def test_half_bits_to_float_exhaustive(lib):
    h = np.arange(0x10000, dtype=np.uint32).astype(np.uint16)
    out = np.empty(h.size, np.float32)
    lib.shim_h2f(ptr(h), ptr(out), h.size)
    assert_same_bits(out, h.view(np.float16).astype(np.float32), "half->float")
    nan = np.isnan(out)
    assert (uview(out)[nan] & 0x7FC00000 != 0).all() and (np.signbit(out) == (h >> 15 == 1)).all()


def test_bf16_bits_to_float_exhaustive(lib):
    b = np.arange(0x10000, dtype=np.uint32).astype(np.uint16)
    out = np.empty(b.size, np.float32)
    lib.shim_bf2f(ptr(b), ptr(out), b.size)
    assert (uview(out) == (b.astype(np.uint32) << 16)).all()
    assert_same_bits(out, b.view(BF16).astype(np.float32), "bf16->float")


@pytest.mark.parametrize("fn", ["shim_f2h_rne", "f2h_rint", "f2h_none", "store_f16"])
def test_float_to_half_rne_vs_numpy(lib, fn):
    rng = np.random.default_rng(1)
    x = np.concatenate([f32_edge_cases(), half_midpoints(), random_f32(rng, 200000)])
    if fn == "shim_f2h_rne":
        got = np.empty(x.size, np.uint16)
        lib.shim_f2h_rne(ptr(x), ptr(got), x.size)
    elif fn == "store_f16":
        got = c_store(lib, F16, x.astype(np.float64)).view(np.uint16)
    else:
        got = c_f2h(lib, x, RINT if fn == "f2h_rint" else NONE)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    assert_same_bits(got.view(np.float16), want, fn, x)
    # NaNs stay (quiet) NaNs with their sign
    nan = np.isnan(x)
    assert ((got[nan] & 0x7E00) == 0x7E00).all()
    assert ((got[nan] >> 15) == np.signbit(x[nan])).all()


@pytest.mark.parametrize("fn", ["shim_f2bf_rne", "f2bf_rint", "store_bf16"])
def test_float_to_bf16_rne_vs_ml_dtypes(lib, fn):
    rng = np.random.default_rng(2)
    x = np.concatenate([f32_edge_cases(), bf16_midpoints(rng), random_f32(rng, 200000)])
    if fn == "shim_f2bf_rne":
        got = np.empty(x.size, np.uint16)
        lib.shim_f2bf_rne(ptr(x), ptr(got), x.size)
    elif fn == "store_bf16":
        got = uview(c_store(lib, BF, x.astype(np.float64)))
    else:
        got = c_f2bf(lib, x, RINT)
    assert_same_bits(got.view(BF16), x.astype(BF16), fn, x)
    nan = np.isnan(x)
    assert ((got[nan] & 0x7FC0) == 0x7FC0).all()


def test_reference_rounding_agrees_with_numpy():
    # sanity of the test's own reference: its RINT must be numpy's / ml_dtypes' conversion
    rng = np.random.default_rng(3)
    x = np.concatenate([f32_edge_cases(), half_midpoints(), random_f32(rng, 50000)])
    with np.errstate(over="ignore"):
        assert_same_bits(ref_f2h(x, RINT).view(np.float16), x.astype(np.float16), "ref f16")
    x = np.concatenate([f32_edge_cases(), bf16_midpoints(rng), random_f32(rng, 50000)])
    assert_same_bits(ref_f2bf(x, RINT).view(BF16), x.astype(BF16), "ref bf16")
    d = rng.standard_normal(20000) * 10.0 ** rng.integers(-45, 39, 20000)
    with np.errstate(over="ignore"):
        assert_same_bits(ref_f64_to_f32(d, RINT), d.astype(np.float32), "ref f32")


@pytest.mark.parametrize("mode", ALL_MODES)
def test_float_to_half_all_modes(lib, mode):
    rng = np.random.default_rng(10 + mode)
    x = np.concatenate([f32_edge_cases(), half_midpoints(), random_f32(rng, 100000)])
    want = ref_f2h(x, mode)
    assert_same_bits(c_f2h(lib, x, mode).view(np.float16), want.view(np.float16), f"f2h mode {mode}", x)
    # via double (store_element) and via Cast: the same single rounding
    assert_same_bits(c_store(lib, F16, x.astype(np.float64), mode), want.view(np.float16), "store", x)
    assert_same_bits(c_cast(lib, F16, F32, x, mode), want.view(np.float16), "cast", x)


@pytest.mark.parametrize("mode", ALL_MODES)
def test_float_to_bf16_all_modes(lib, mode):
    rng = np.random.default_rng(20 + mode)
    x = np.concatenate([f32_edge_cases(), bf16_midpoints(rng), random_f32(rng, 100000)])
    want = ref_f2bf(x, mode).view(BF16)
    assert_same_bits(c_f2bf(lib, x, mode).view(BF16), want, f"f2bf mode {mode}", x)
    assert_same_bits(c_store(lib, BF, x.astype(np.float64), mode), want, "store", x)
    assert_same_bits(c_cast(lib, BF, F32, x, mode), want, "cast", x)


def test_signalling_nan_stays_nan_in_every_mode(lib):
    bits = np.array([0x7F800001, 0xFF800001, 0x7FA00000, 0x7FC00000, 0xFFFFFFFF], np.uint32)
    x = bits.view(np.float32)
    with np.errstate(invalid="ignore"):
        d = x.astype(np.float64)
    for mode in ALL_MODES:
        for got, quiet in (
            (c_f2h(lib, x, mode), 0x7E00),
            (uview(c_store(lib, F16, d, mode)), 0x7E00),
            (c_f2bf(lib, x, mode), 0x7FC0),
            (uview(c_store(lib, BF, d, mode)), 0x7FC0),
        ):
            assert ((got & quiet) == quiet).all(), (mode, [hex(v) for v in got])
            assert ((got >> 15) == (bits >> 31)).all()
        f = uview(c_store(lib, F32, d, mode))
        assert ((f & 0x7FC00000) == 0x7FC00000).all(), mode
    # signalling double NaNs with only low payload bits (nothing survives the shift but the quiet bit)
    dsn = np.array([0x7FF0000000000001, 0xFFF0000000000001], np.uint64).view(np.float64)
    for mode in ALL_MODES:
        for t, quiet in ((F16, 0x7E00), (BF, 0x7FC0), (F32, 0x7FC00000)):
            got = uview(c_store(lib, t, dsn, mode))
            assert ((got & quiet) == quiet).all(), (NAMES[t], mode, [hex(v) for v in got])


def test_directed_overflow_and_signed_zero(lib):
    x = np.array([1e6, -1e6, 65520.0, -65520.0, 70000.0, -0.0, 0.0, 1e-30, -1e-30], np.float32)
    inf, ninf, mx, nmx = 0x7C00, 0xFC00, 0x7BFF, 0xFBFF
    expect = {
        RINT: [inf, ninf, inf, ninf, inf, 0x8000, 0, 0, 0x8000],
        ROUND: [inf, ninf, inf, ninf, inf, 0x8000, 0, 0, 0x8000],
        TRUNC: [mx, nmx, mx, nmx, mx, 0x8000, 0, 0, 0x8000],
        FLOOR: [mx, ninf, mx, ninf, mx, 0x8000, 0, 0, 0x8001],
        CEIL: [inf, nmx, inf, nmx, inf, 0x8000, 0, 1, 0x8000],
        ODD: [mx, nmx, mx, nmx, mx, 0x8000, 0, 1, 0x8001],
    }
    for mode, want in expect.items():
        assert c_f2h(lib, x, mode).tolist() == want, mode
    # bf16: FLT_MAX overflows only when rounding up
    fm = np.array([3.4028235e38, -3.4028235e38], np.float32)
    assert c_f2bf(lib, fm, RINT).tolist() == [0x7F80, 0xFF80]
    assert c_f2bf(lib, fm, TRUNC).tolist() == [0x7F7F, 0xFF7F]
    assert c_f2bf(lib, fm, FLOOR).tolist() == [0x7F7F, 0xFF80]


def test_double_rounding_avoided_from_double(lib):
    # 1 + 2^-11 + 2^-40 rounds up to 1 + 2^-10 directly, but to 1.0 through float (tie then even).
    v = np.array([1 + 2.0**-11 + 2.0**-40, -(1 + 2.0**-11 + 2.0**-40)])
    assert c_store(lib, F16, v, RINT).view(np.uint16).tolist() == [0x3C01, 0xBC01]
    # round-to-odd from double keeps the sticky bit
    assert c_store(lib, F16, np.array([1 + 2.0**-40]), ODD).view(np.uint16).tolist() == [0x3C01]
    assert c_store(lib, BF, np.array([1 + 2.0**-8 + 2.0**-50]), RINT).view(np.uint16).tolist() == [0x3F81]


@pytest.mark.parametrize("mode", ALL_MODES)
def test_double_to_float_modes(lib, mode):
    rng = np.random.default_rng(30 + mode)
    d = rng.standard_normal(30000) * 10.0 ** rng.integers(-46, 40, 30000)
    f32 = rng.standard_normal(5000).astype(np.float32)
    f = f32.astype(np.float64)
    ties = f + np.spacing(np.abs(f32)).astype(np.float64) / 2  # exact midpoints between neighbours
    d = np.concatenate([d, f, ties, -ties, [0.0, -0.0, 1e300, -1e300, 2.0**-149, 2.0**-150, 2.0**-151]])
    want = ref_f64_to_f32(d, mode)
    assert_same_bits(c_store(lib, F32, d, mode), want, f"f64->f32 {mode}", d)
    assert_same_bits(c_cast(lib, F32, F64, d, mode), want, f"cast f64->f32 {mode}", d)


# ---------------------------------------------------------------------------------------------------------
# float -> integer, integer conversions


@pytest.mark.parametrize("mode", ALL_MODES)
def test_float_to_int32_modes(lib, mode):
    rng = np.random.default_rng(40 + mode)
    halves = np.arange(-20, 21) / 2
    x = np.concatenate(
        [
            halves,
            halves + 0.25,
            rng.uniform(-1000, 1000, 5000),
            rng.standard_normal(2000) * 1e10,
            [2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 1e20, -1e20, np.inf, -np.inf, np.nan],
        ]
    ).astype(np.float32)
    want = ref_to_int(x, np.int32, mode)
    assert_same_bits(c_cast(lib, I32, F32, x, mode), want, f"cast f32->i32 {mode}", x)
    assert_same_bits(c_store(lib, I32, x.astype(np.float64), mode), want, "store", x)
    with np.errstate(over="ignore"):
        xh = x.astype(np.float16)
    assert_same_bits(c_cast(lib, I32, F16, xh, mode), ref_to_int(xh, np.int32, mode), "f16->i32", xh)


def test_store_int_saturation_and_nan(lib):
    v = np.array([300.0, -300.0, 127.5, -128.5, np.nan, np.inf, -np.inf, -0.4, 2.5, -2.5])
    assert c_store(lib, I8, v).tolist() == [127, -128, 127, -128, 0, 127, -128, 0, 2, -2]
    assert c_store(lib, U8, v).tolist() == [255, 0, 128, 0, 0, 255, 0, 0, 2, 0]
    assert c_store(lib, I8, v, ROUND).tolist() == [127, -128, 127, -128, 0, 127, -128, 0, 3, -3]
    assert c_store(lib, I16, np.array([40000.0, -40000.0])).tolist() == [32767, -32768]
    assert c_store(lib, U16, np.array([70000.0, 65535.4])).tolist() == [65535, 65535]
    assert c_store(lib, U32, np.array([5e9, -1.0])).tolist() == [2**32 - 1, 0]
    big = np.array([9.3e18, -9.3e18, 2.0**63, -(2.0**63), 2.0**62])
    assert c_store(lib, I64, big).tolist() == [2**63 - 1, -(2**63), 2**63 - 1, -(2**63), 2**62]
    assert c_store(lib, U64, np.array([2.0**64, 1.9e19, 2.0**63, -5.0])).tolist() == [
        2**64 - 1,
        2**64 - 1,
        2**63,
        0,
    ]
    assert c_store(lib, I32, np.array([2.5, 3.5, -2.5, 2.2, -2.2]), ODD).tolist() == [3, 3, -3, 3, -3]


def test_load_element_all_types(lib):
    for t, dt in NP.items():
        a = np.array([0, 1, 2, 100, 127], dtype=dt)
        out = np.empty(a.size, np.float64)
        lib.shim_load(t, ptr(a), ptr(out), a.size)
        assert out.tolist() == [0, 1, 2, 100, 127], NAMES[t]
    a = np.array([-128, -1], np.int8)
    out = np.empty(2)
    lib.shim_load(I8, ptr(a), ptr(out), 2)
    assert out.tolist() == [-128, -1]
    h = np.array([65504, 2.0**-24, -0.0, np.inf], np.float16)
    out = np.empty(4)
    lib.shim_load(F16, ptr(h), ptr(out), 4)
    assert out.tolist() == [65504, 2.0**-24, 0.0, np.inf] and np.signbit(out[2])


def test_cast_all_pairs_exact_values(lib):
    vals = [0, 1, 2, 3, 7, 100, 127]
    for s, sdt in NP.items():
        for d in NP:
            src = np.array(vals, dtype=sdt)
            for mode in (NONE, RINT, TRUNC):
                got = c_cast(lib, d, s, src, mode)
                assert got.astype(np.float64).tolist() == vals, (NAMES[s], NAMES[d], mode)
    out = np.zeros(2, np.float32)
    assert lib.shim_cast(F32, F16, 7, ptr(out), ptr(np.zeros(2, np.float16)), 2) == 0  # bad mode
    assert lib.shim_cast(12, F16, RINT, ptr(out), ptr(np.zeros(2, np.float16)), 2) == 0  # bad dtype


def test_cast_exhaustive_16bit_sources(lib):
    h = np.arange(0x10000, dtype=np.uint32).astype(np.uint16)
    assert_same_bits(c_cast(lib, F32, F16, h.view(np.float16), ROUND), h.view(np.float16).astype(np.float32))
    assert_same_bits(c_cast(lib, F32, BF, h.view(BF16)), h.view(BF16).astype(np.float32))
    assert_same_bits(c_cast(lib, F64, F16, h.view(np.float16)), h.view(np.float16).astype(np.float64))
    # half -> bf16 is a single rounding of an exact float
    with np.errstate(invalid="ignore"):
        want = h.view(np.float16).astype(np.float32).astype(BF16)
    assert_same_bits(c_cast(lib, BF, F16, h.view(np.float16)), want)
    with np.errstate(over="ignore"):
        want = h.view(BF16).astype(np.float32).astype(np.float16)
    assert_same_bits(c_cast(lib, F16, BF, h.view(BF16)), want)
    i8 = np.arange(-128, 128, dtype=np.int8)
    assert_same_bits(c_cast(lib, F16, I8, i8), i8.astype(np.float16))


def test_cast_integer_saturation(lib):
    i32 = np.array([-(2**31), -40000, -129, -1, 0, 255, 256, 40000, 2**31 - 1], np.int32)
    assert c_cast(lib, I16, I32, i32).tolist() == [-32768, -32768, -129, -1, 0, 255, 256, 32767, 32767]
    assert c_cast(lib, U8, I32, i32).tolist() == [0, 0, 0, 0, 0, 255, 255, 255, 255]
    assert c_cast(lib, U16, I32, i32).tolist() == [0, 0, 0, 0, 0, 255, 256, 40000, 65535]
    u32 = np.array([0, 2**31 - 1, 2**31, 2**32 - 1], np.uint32)
    assert c_cast(lib, I32, U32, u32).tolist() == [0, 2**31 - 1, 2**31 - 1, 2**31 - 1]
    i64 = np.array([-(2**63), -1, 2**63 - 1], np.int64)
    assert c_cast(lib, U64, I64, i64).tolist() == [0, 0, 2**63 - 1]
    assert c_cast(lib, I32, I64, i64).tolist() == [-(2**31), -1, 2**31 - 1]
    u64 = np.array([2**64 - 1, 5], np.uint64)
    assert c_cast(lib, I64, U64, u64).tolist() == [2**63 - 1, 5]
    assert c_cast(lib, I8, U64, u64).tolist() == [127, 5]


@pytest.mark.parametrize("mode", ALL_MODES)
def test_cast_int_to_float_modes(lib, mode):
    rng = np.random.default_rng(50 + mode)
    i64 = np.concatenate(
        [
            rng.integers(-(2**63), 2**63 - 1, 300, dtype=np.int64, endpoint=True),
            rng.integers(-(2**40), 2**40, 300, dtype=np.int64),
            np.array(
                [
                    2**63 - 1,
                    -(2**63),
                    2**53 + 1,
                    2**24 + 1,
                    2**24 + 3,
                    -(2**24) - 1,
                    2049,
                    2051,
                    65519,
                    65520,
                    65536,
                    -65520,
                    0,
                ],
                np.int64,
            ),
        ]
    )
    for dst, bits in ((F32, 24), (F64, 53)):
        got = c_cast(lib, dst, I64, i64, mode)
        want = [ref_int_round(int(v), bits, mode) for v in i64]
        assert [int(g) for g in got] == want, (NAMES[dst], mode)
    got = c_cast(lib, F16, I64, i64, mode).astype(np.float64)
    for v, g in zip(i64.tolist(), got.tolist(), strict=True):
        r = ref_int_round(v, 11, mode)
        if abs(r) > 65504:  # beyond half range: inf or max as the mode says
            to_inf = {
                RINT: True,
                NONE: True,
                ROUND: True,
                TRUNC: False,
                ODD: False,
                FLOOR: v < 0,
                CEIL: v > 0,
            }[mode]
            r = (np.inf if to_inf else 65504.0) * np.sign(v)
        assert g == r, (v, mode, g, r)
    u64 = np.array([2**64 - 1, 2**63 + 2**39, 12345], np.uint64)
    want = [ref_int_round(int(v), 24, mode) for v in u64]
    assert [int(g) for g in c_cast(lib, F32, U64, u64, mode)] == want
    i32 = rng.integers(-(2**31), 2**31, 3000, dtype=np.int64).astype(np.int32)
    want = [ref_int_round(int(v), 24, mode) for v in i32]
    assert [int(g) for g in c_cast(lib, F32, I32, i32, mode)] == want
    if mode in (RINT, NONE):
        assert_same_bits(c_cast(lib, F32, I32, i32, mode), i32.astype(np.float32))


# ---------------------------------------------------------------------------------------------------------
# Element-wise arithmetic


def _float_operands(rng, n, dt):
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 65504.0], np.float32)
    a[: sp.size * sp.size] = np.repeat(sp, sp.size)
    b[: sp.size * sp.size] = np.tile(sp, sp.size)
    b[100:130] = a[100:130]  # equal pairs
    with np.errstate(over="ignore"):
        return a.astype(dt), b.astype(dt)


def _ref_binary(op, a, b):
    """numpy reference in the compute type (float32 for 16-bit floats)."""
    if op == ADD:
        return a + b
    if op == SUB:
        return a - b
    if op == MUL:
        return a * b
    if op == DIV:
        return a / b
    if op == MAX:
        return np.where((a >= b) | np.isnan(a), a, b)
    if op == MIN:
        return np.where((a <= b) | np.isnan(a), a, b)
    if op == ADDRELU:
        s = a + b
        return np.where(s < 0, 0, s).astype(s.dtype)
    if op == SUBRELU:
        s = a - b
        return np.where(s < 0, 0, s).astype(s.dtype)
    raise ValueError(op)


@pytest.mark.parametrize("t", [F32, F16, BF, F64])
@pytest.mark.parametrize("op", [ADD, SUB, MUL, DIV, MAX, MIN, ADDRELU, SUBRELU])
def test_binary_float(lib, t, op):
    rng = np.random.default_rng(100 + op * 7 + t)
    dt = NP[t]
    a, b = _float_operands(rng, 4000, dt)
    ct = np.float64 if t == F64 else np.float32
    with np.errstate(all="ignore"):
        want = _ref_binary(op, a.astype(ct), b.astype(ct)).astype(dt)
    assert_same_bits(c_binary(lib, op, t, a, b), want, f"op {op} on {NAMES[t]}")
    # in place (dst aliases a)
    a2 = a.copy()
    lib.shim_binary(op, t, ptr(a2), ptr(a2), ptr(b), a2.size)
    assert_same_bits(a2, want, "in place")


def test_max_min_nan_and_zero_rules(lib):
    a = np.array([np.nan, 1.0, -0.0, 0.0], np.float32)
    b = np.array([1.0, np.nan, 0.0, -0.0], np.float32)
    mx = c_binary(lib, MAX, F32, a, b)
    mn = c_binary(lib, MIN, F32, a, b)
    assert np.isnan(mx[:2]).all() and np.isnan(mn[:2]).all()
    assert np.signbit(mx[2]) and not np.signbit(mx[3])  # equal: the first operand wins
    assert np.signbit(mn[2]) and not np.signbit(mn[3])


@pytest.mark.parametrize("t", [I32, I16, I8, U8, U16, U32, I64, U64])
def test_binary_int_wraps(lib, t):
    rng = np.random.default_rng(200 + t)
    dt = NP[t]
    info = np.iinfo(dt)
    n = 3000
    a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    b[:40] = rng.integers(-3, 4, 40).astype(dt) if info.min < 0 else rng.integers(0, 4, 40).astype(dt)
    a[:5] = info.min
    b[:5] = np.array([-1, 0, 1, 2, -1] if info.min < 0 else [0, 1, 2, 3, 0], dtype=np.int64).astype(dt)
    with np.errstate(all="ignore"):
        assert_same_bits(c_binary(lib, ADD, t, a, b), a + b, "add")
        assert_same_bits(c_binary(lib, SUB, t, a, b), a - b, "sub")
        assert_same_bits(c_binary(lib, MUL, t, a, b), a * b, "mul")
    assert_same_bits(c_binary(lib, MAX, t, a, b), np.maximum(a, b), "max")
    assert_same_bits(c_binary(lib, MIN, t, a, b), np.minimum(a, b), "min")
    assert_same_bits(c_binary(lib, AND, t, a, b), a & b, "and")
    assert_same_bits(c_binary(lib, OR, t, a, b), a | b, "or")
    with np.errstate(all="ignore"):
        s = a + b
        d = a - b
    zero = dt(0)
    assert_same_bits(c_binary(lib, ADDRELU, t, a, b), np.maximum(s, zero), "addrelu")
    assert_same_bits(c_binary(lib, SUBRELU, t, a, b), np.maximum(d, zero), "subrelu")
    # division: truncating, x/0 = all ones, MIN/-1 = MIN
    want = []
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        if y == 0:
            q = -1 if info.min < 0 else int(info.max)
        else:
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            if q > info.max:
                q = int(info.min)
        want.append(q)
    assert c_binary(lib, DIV, t, a, b).tolist() == want


def test_bitwise_on_float_bits(lib):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    assert (uview(c_binary(lib, AND, F32, a, b)) == (uview(a) & uview(b))).all()
    assert (uview(c_binary(lib, OR, F32, a, b)) == (uview(a) | uview(b))).all()
    h = rng.standard_normal(1001).astype(np.float16)
    g = rng.standard_normal(1001).astype(np.float16)
    assert (uview(c_binary(lib, AND, F16, h, g)) == (uview(h) & uview(g))).all()
    assert (uview(c_unary(lib, NOT, F16, h)) == ~uview(h)).all()
    assert (uview(c_unary(lib, NOT, F32, a)) == ~uview(a)).all()
    i = rng.integers(-100, 100, 77).astype(np.int64)
    assert (c_unary(lib, NOT, I64, i) == ~i).all()


def _ulp_diff(got, want):
    """Distance in units of the last place, for finite same-sign values (ordered bit patterns)."""
    g = uview(got).astype(np.int64)
    w = uview(want).astype(np.int64)
    return np.abs(g - w)


@pytest.mark.parametrize("t", [F32, F16, BF])
def test_unary_float(lib, t):
    rng = np.random.default_rng(300 + t)
    dt = NP[t]
    x = (
        np.concatenate(
            [
                rng.uniform(-10, 10, 3000),
                rng.uniform(0, 100, 3000),
                [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-3],
            ]
        )
        .astype(np.float32)
        .astype(dt)
    )
    xf = x.astype(np.float32)
    with np.errstate(all="ignore"):
        exact = {
            ABS: np.abs(xf),
            SQRT: np.sqrt(xf),
            RSQRT: np.float32(1) / np.sqrt(xf),
            RECIP: np.float32(1) / xf,
            RELU: np.where(xf < 0, np.float32(0), xf),
        }
        xd = xf.astype(np.float64)
        approx = {EXP: np.exp(xd).astype(np.float32), LN: np.log(xd).astype(np.float32)}
    for op, ref in exact.items():
        assert_same_bits(c_unary(lib, op, t, x), ref.astype(dt), f"unary {op} {NAMES[t]}", x)
    for op, ref in approx.items():  # libm expf/logf vs double-precision: allow 1 ulp, demand mostly exact
        got = c_unary(lib, op, t, x)
        with np.errstate(over="ignore"):
            want = ref.astype(dt)
        gn, wn = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
        assert (gn == wn).all()
        d = _ulp_diff(got[~gn], want[~gn])
        assert d.max() <= 1, f"unary {op}: max ulp {d.max()}"
        assert (d == 0).mean() > 0.97


def test_unary_int(lib):
    a = np.array([-(2**31), -5, -1, 0, 1, 7, 2**31 - 1, 16, 17], np.int32)
    assert c_unary(lib, ABS, I32, a).tolist() == [-(2**31), 5, 1, 0, 1, 7, 2**31 - 1, 16, 17]
    assert c_unary(lib, RELU, I32, a).tolist() == [0, 0, 0, 0, 1, 7, 2**31 - 1, 16, 17]
    assert c_unary(lib, SQRT, I32, a).tolist() == [0, 0, 0, 0, 1, 2, 46340, 4, 4]
    assert c_unary(lib, RECIP, I32, a).tolist() == [0, 0, -1, 2**31 - 1, 1, 0, 0, 0, 0]
    u = np.array([0, 200, 255], np.uint8)
    assert c_unary(lib, ABS, U8, u).tolist() == [0, 200, 255]
    assert c_unary(lib, RELU, U8, u).tolist() == [0, 200, 255]
    i8 = np.array([-128, -3, 3], np.int8)
    assert c_unary(lib, ABS, I8, i8).tolist() == [-128, 3, 3]


@pytest.mark.parametrize("t", [F32, F16, I32, I16])
def test_binary_scalar(lib, t):
    rng = np.random.default_rng(400 + t)
    dt = NP[t]
    if t in (F32, F16):
        x = np.concatenate([rng.uniform(-50, 50, 2000), [np.nan, np.inf, -np.inf, 0.0, -0.0]]).astype(dt)
        ct = np.float32
        scalars = [0.5, -1.25, 3.0, 0.0]
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, 2000, dtype=dt, endpoint=True)
        ct = dt
        scalars = [3, -7, 0, int(info.max)]
    xc = x.astype(ct)
    for s in scalars:
        sc = ct(s)
        with np.errstate(all="ignore"):
            refs = {
                ADDS: xc + sc,
                MULS: xc * sc,
                MAXS: np.where((xc >= sc) | np.isnan(xc), xc, sc) if ct is np.float32 else np.maximum(xc, sc),
                MINS: np.where((xc <= sc) | np.isnan(xc), xc, sc) if ct is np.float32 else np.minimum(xc, sc),
                LEAKY: np.where(xc >= 0, xc, xc * sc),
            }
        for op, ref in refs.items():
            want = ref.astype(ct).astype(dt)
            assert_same_bits(c_scalar(lib, op, t, x, s), want, f"scalar op {op} s={s}", x)


def test_fill(lib):
    for t, v, want in [
        (F16, 0.1, np.float16(0.1)),
        (F32, 1 / 3, np.float32(1 / 3)),
        (I8, 300.0, 127),
        (BF, 1.0 / 3, BF16(1 / 3)),
        (I64, -(2.0**40), -(2**40)),
        (U16, 2.5, 2),
    ]:
        out = np.zeros(37, NP[t])
        lib.shim_fill(t, ptr(out), v, 35)
        assert_same_bits(out[:35], np.full(35, want, dtype=NP[t]), NAMES[t])
        assert (out[35:] == 0).all()


def test_binary_speed(lib):
    """A count-form call on 64K halves must be well under 1 ms."""
    rng = np.random.default_rng(6)
    n = 65536
    a = rng.standard_normal(n).astype(np.float16)
    b = rng.standard_normal(n).astype(np.float16)
    out = np.empty(n, np.float16)
    for op in (ADD, MUL, MAX):
        best = lib.shim_time_binary(op, F16, ptr(out), ptr(a), ptr(b), n, 30)
        assert best < 1e-3, f"op {op}: {best * 1e3:.3f} ms"


# ---------------------------------------------------------------------------------------------------------
# Reductions


def ref_tree_sum(x: np.ndarray) -> float:
    """A2 order: pairwise tree inside each 256-byte repeat, repeats summed in sequence; every partial sum
    rounded to the element type (16-bit floats: computed in float32, then rounded)."""
    dt = x.dtype
    per = 256 // dt.itemsize

    def add(p, q):
        if dt == np.float16:
            return np.float16(np.float32(p) + np.float32(q))
        return dt.type(p + q)

    acc = None
    for base in range(0, x.size, per):
        lanes = list(x[base : base + per])
        while len(lanes) > 1:
            nxt = [add(lanes[2 * k], lanes[2 * k + 1]) for k in range(len(lanes) // 2)]
            if len(lanes) % 2:
                nxt.append(lanes[-1])
            lanes = nxt
        acc = lanes[0] if acc is None else add(acc, lanes[0])
    return 0.0 if acc is None else float(acc)


@pytest.mark.parametrize("t", [F32, F16])
def test_reduce_sum_order(lib, t):
    rng = np.random.default_rng(500 + t)
    dt = NP[t]
    differs_from_sequential = 0
    for n in [1, 2, 3, 5, 63, 64, 65, 127, 128, 129, 130, 200, 255, 256, 257, 1000, 3001]:
        scale = 10.0 ** rng.integers(-2, 3, n)
        x = (rng.standard_normal(n) * scale).astype(dt)
        got = lib.shim_reduce_sum(t, ptr(x), n)
        want = ref_tree_sum(x)
        assert got == want, (n, got, want)
        seq = dt(0)
        for v in x:
            seq = dt(np.float32(seq) + np.float32(v))
        differs_from_sequential += float(seq) != want
    assert differs_from_sequential >= 3  # the order matters for these inputs, so the test has teeth
    assert lib.shim_reduce_sum(t, ptr(np.zeros(1, dt)), 0) == 0.0


def test_reduce_sum_partial_repeat_is_absent_not_zero(lib):
    # 3 halves: ((a + b) + c). With c passed through, -0.0 stays -0.0 (0 + -0 would give +0).
    x = np.array([-0.0, -0.0, -0.0], np.float16)
    r = lib.shim_reduce_sum(F16, ptr(x), 3)
    assert r == 0.0 and np.signbit(r)
    i = np.array([2**31 - 1, 1, 5], np.int32)
    assert lib.shim_reduce_sum(I32, ptr(i), 3) == float(-(2**31) + 5)  # wraps


@pytest.mark.parametrize("t", [F32, F16, I32])
def test_reduce_max_min(lib, t):
    dt = NP[t]
    idx = ctypes.c_size_t(99)
    vals = [3, 9, -4, 9, -4, 1] if t == I32 else [np.nan, 3, 9, -4, np.nan, 9, -4, 1]
    x = np.array(vals, dt)
    got = lib.shim_reduce_max(t, ptr(x), x.size, ctypes.byref(idx))
    assert got == 9 and idx.value == (1 if t == I32 else 2)
    got = lib.shim_reduce_min(t, ptr(x), x.size, ctypes.byref(idx))
    assert got == -4 and idx.value == (2 if t == I32 else 3)
    if t != I32:
        allnan = np.full(5, np.nan, dt)
        assert np.isnan(lib.shim_reduce_max(t, ptr(allnan), 5, ctypes.byref(idx))) and idx.value == 0
        rng = np.random.default_rng(7)
        y = rng.standard_normal(5000).astype(dt)
        assert lib.shim_reduce_max(t, ptr(y), y.size, ctypes.byref(idx)) == float(y.max())
        assert idx.value == int(np.argmax(y))
        assert lib.shim_reduce_min(t, ptr(y), y.size, ctypes.byref(idx)) == float(y.min())
        assert idx.value == int(np.argmin(y))


# ---------------------------------------------------------------------------------------------------------
# Compare / select


CMP_REF = {
    LT: np.less,
    GT: np.greater,
    EQ: np.equal,
    LE: np.less_equal,
    GE: np.greater_equal,
    NE: np.not_equal,
}


@pytest.mark.parametrize("t", [F32, F16, I32])
def test_compare(lib, t):
    rng = np.random.default_rng(600 + t)
    dt = NP[t]
    n = 1001
    if t == I32:
        a = rng.integers(-5, 5, n).astype(dt)
        b = rng.integers(-5, 5, n).astype(dt)
    else:
        a = rng.integers(-5, 5, n).astype(dt)
        b = rng.integers(-5, 5, n).astype(dt)
        a[::17] = np.nan
        b[3::19] = np.nan
        a[5] = -0.0
        b[5] = 0.0
    nbytes = (n + 7) // 8 + 2
    for mode, fn in CMP_REF.items():
        out = np.full(nbytes, 0xAA, np.uint8)
        lib.shim_compare(mode, t, ptr(out), ptr(a), ptr(b), n)
        bits = np.unpackbits(out, bitorder="little")
        with np.errstate(invalid="ignore"):
            want = fn(a, b)
        assert (bits[:n].astype(bool) == want).all(), mode
        # bits of elements >= n untouched
        assert (bits[n:] == np.unpackbits(np.full(nbytes, 0xAA, np.uint8), bitorder="little")[n:]).all()
        out = np.full(nbytes, 0x55, np.uint8)
        lib.shim_compare_scalar(mode, t, ptr(out), ptr(a), 1.0, n)
        bits = np.unpackbits(out, bitorder="little")
        with np.errstate(invalid="ignore"):
            want = fn(a, dt(1))
        assert (bits[:n].astype(bool) == want).all(), mode
        assert (bits[n:] == np.unpackbits(np.full(nbytes, 0x55, np.uint8), bitorder="little")[n:]).all()


@pytest.mark.parametrize("t", [F16, F32, I8, I64, BF])
def test_select(lib, t):
    rng = np.random.default_rng(700 + t)
    dt = NP[t]
    n = 203
    a = rng.integers(-100, 100, n).astype(dt)
    b = rng.integers(-100, 100, n).astype(dt)
    mask = rng.integers(0, 256, (n + 7) // 8).astype(np.uint8)
    sel = np.unpackbits(mask, bitorder="little")[:n].astype(bool)
    out = np.zeros(n + 1, dt)
    lib.shim_select(t, ptr(out), ptr(mask), ptr(a), ptr(b), 0.0, n)
    assert_same_bits(out[:n], np.where(sel, a, b).astype(dt))
    assert out[n] == 0
    lib.shim_select(t, ptr(out), ptr(mask), ptr(a), None, 7.0, n)
    assert_same_bits(out[:n], np.where(sel, a, dt(7)).astype(dt))


def test_dtype_size_and_name(lib):
    for t, dt in NP.items():
        assert lib.shim_dtype_size(t) == np.dtype(dt).itemsize
        assert lib.shim_dtype_name(t).decode() == NAMES[t]


# ---------------------------------------------------------------------------------------------------------
# fp16.h: kernel-visible half / bfloat16_t

FP16_PROGRAM = r"""
#include "tuner_sim/fp16.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_same_v<decltype(half() + half()), half>);
static_assert(std::is_same_v<decltype(half() * 2.0f), float>);
static_assert(std::is_same_v<decltype(half() * 2), float>);
static_assert(std::is_same_v<decltype(1.0f / half()), float>);
static_assert(std::is_same_v<decltype(half() * 2.0), double>);
static_assert(std::is_same_v<decltype(half() < 0.5f), bool>);
static_assert(std::is_same_v<decltype(half() + bfloat16_t()), float>);
static_assert(std::is_same_v<decltype(-half()), half>);
static_assert(std::is_same_v<decltype(bfloat16_t() - bfloat16_t()), bfloat16_t>);
static_assert(std::is_trivially_copyable_v<half> && std::is_standard_layout_v<half> && sizeof(half) == 2);
static_assert(half::from_bits(0x3c00).bits() == 0x3c00);
static_assert(half().bits() == 0 && bfloat16_t().bits() == 0);

namespace AscendC {  // an unrelated operator in the kernel's namespace must not hide ours
struct Other {};
inline Other operator+(Other, Other) { return {}; }
inline float Scale(half x) { return x * 2 + 1.0f / x; }
}  // namespace AscendC

int main() {
    half a = 1.5;
    float f = a * 2.0f;
    half b = a + a;
    bool c = a > 0;
    bool c2 = a < 0.5f;
    half z;
    half h0 = 0;
    half h3(3);
    half hx = (half)f;
    int i = (int)half(2.75);
    unsigned u = static_cast<unsigned>(half(7));
    double d = static_cast<double>(a);
    double dd = a;
    half big = 70000.0f;
    half tie = 2049;
    half tenth = 0.1;
    bfloat16_t bf = 1.0f / 3.0f;
    float mixed = a + bf;
    half m = -a;
    half acc = a;
    acc += 1;
    acc *= half(2);
    acc -= 0.5;
    acc /= 2;
    half inc = 1;
    inc++;
    ++inc;
    bfloat16_t bb(a);
    half back(bb);
    float s = AscendC::Scale(half(4));
    bool eq = (b == 3) && (3.0f == b) && (b != a) && (a <= a) && (b >= 3u);
    half arr[2];
    const uint16_t raw[2] = {0x3c00, 0xc000};
    std::memcpy(arr, raw, sizeof arr);  // trivially copyable: no -Wclass-memaccess
    float f2 = 1.0f;
    f2 += a;
    std::printf("f=%g b=%g c=%d c2=%d z=%u h0=%u h3=%g hx=%g i=%d u=%u d=%g dd=%g\n", f, (float)b, c, c2,
                z.bits(), h0.bits(), (float)h3, (float)hx, i, u, d, dd);
    std::printf("big=%04x tie=%g tenth=%04x bf=%04x mixed=%.9g m=%g acc=%g inc=%g back=%g s=%g eq=%d\n",
                big.bits(), (float)tie, tenth.bits(), bf.bits(), mixed, (float)m, (float)acc, (float)inc,
                (float)back, s, eq);
    std::printf("f2=%g neg0=%04x nan=%d arr=%g,%g\n", f2, (-half(0)).bits(),
                half(0.0f / 0.0f) != half(0.0f / 0.0f), (float)arr[0], (float)arr[1]);
    return 0;
}
"""


def test_fp16_header_mixed_expressions(build_dir, numerics_obj):
    src = build_dir / "fp16_use.cpp"
    src.write_text(FP16_PROGRAM)
    exe = build_dir / "fp16_use"
    _compile([*CXXFLAGS, f"-I{INCLUDE}", str(src), str(numerics_obj), "-o", str(exe)])
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    got = dict(kv.split("=", 1) for kv in out)
    bf_third = int(np.array([1 / 3], np.float32).astype(BF16).view(np.uint16)[0])
    mixed = float(np.float32(1.5) + np.float32(np.array([1 / 3], np.float32).astype(BF16)[0]))
    assert got == {
        "f": "3",
        "b": "3",
        "c": "1",
        "c2": "0",
        "z": "0",
        "h0": "0",
        "h3": "3",
        "hx": "3",
        "i": "2",
        "u": "7",
        "d": "1.5",
        "dd": "1.5",
        "big": "7c00",
        "tie": "2048",
        "tenth": f"{int(np.float16(0.1).view(np.uint16)):04x}",
        "bf": f"{bf_third:04x}",
        "mixed": f"{mixed:.9g}",
        "m": "-1.5",
        "acc": "2.25",
        "inc": "3",
        "back": "1.5",
        "s": "8.25",
        "eq": "1",
        "f2": "2.5",
        "neg0": "8000",
        "nan": "1",
        "arr": "1,-2",
    }
