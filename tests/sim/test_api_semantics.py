"""API semantics of the simulator: real Ascend C kernels (tests/sim/kernels/api/) run through `simulate`'s
build and run steps, their outputs compared with numpy / ml_dtypes references written from the documented
semantics (/work/shared/research/ascendc.md §4-§5), not from the simulator's code.

One driver kernel per API family; the element type is a -D define (one compile per type, done once per
session by the `kernels` fixture) and the API, the calling form and every parameter are chosen at run time
from a tiling struct passed by value, so most cases cost one ~10 ms run and no compile.

Exactness: copies, casts, integer ops, Max/Min, and Add/Sub/Mul/Div of half and float (computed in float,
rounded to nearest even) are compared bit-for-bit (values; +0 and -0 compare equal). Transcendentals are
compared with numpy in float64: rtol 1e-6 for float, 1 ulp for half.

Where ascendc.md marks a semantics as unconfirmed (?), the choice the tests make is written next to the test
as "Choice:".
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Struct
from tuner.data.socs import get_soc
from tuner.sim.build import Executable, build_kernel
from tuner.sim.run import DEFAULT_SOC, SimResult, run_executable

KERNELS = Path(__file__).resolve().parent / "kernels" / "api"
BF16 = ml_dtypes.bfloat16
NP = {"half": np.float16, "float": np.float32, "int32_t": np.int32, "int16_t": np.int16,
      "bfloat16_t": BF16, "uint8_t": np.uint8}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


# ---------------------------------------------------------------------------------------------------------
# Harness


class Kernels:
    """Builds each (kernel, defines) once per session and runs it on one block."""

    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[tuple, Executable] = {}

    def exe(self, name: str, defines: dict[str, str]) -> Executable:
        key = (name, tuple(sorted(defines.items())))
        if key not in self._exes:
            self._exes[key] = build_kernel(KERNELS / f"{name}.cpp", name, self._soc,
                                           [f"{k}={v}" for k, v in sorted(defines.items())])
        return self._exes[key]

    def run(self, name: str, defines: dict[str, str], args: list, *, ok: bool = True) -> SimResult:
        result = run_executable(self.exe(name, defines), args, 1)
        if ok:
            assert result.ok, [f.text for f in result.faults]
        return result


@pytest.fixture(scope="session")
def kernels() -> Kernels:
    return Kernels()


class Tiling:
    """A tiling struct of uint64_t fields (and optionally one trailing double), packed as the kernels expect."""

    def __init__(self, fields: str, defaults: dict | None = None, scalar: bool = False) -> None:
        self.fields = fields.split()
        self.defaults = defaults or {}
        self.scalar = scalar

    def __call__(self, **values) -> Struct:
        unknown = set(values) - set(self.fields) - {"scalar"}
        assert not unknown, unknown
        ints = [int(values.get(f, self.defaults.get(f, 0))) & (2**64 - 1) for f in self.fields]
        data = struct.pack("<" + "Q" * len(ints), *ints)
        if self.scalar:
            data += struct.pack("<d", float(values.get("scalar", 0.0)))
        return Struct(data)


def rng_for(*key) -> np.random.Generator:
    """A generator seeded from `key` (stable across runs, unlike hash())."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def lanes_of(dtype) -> int:
    return 256 // np.dtype(dtype).itemsize


def elem_index(dtype, r: int, lane: int, blk: int, rep: int) -> int:
    """Element index of lane `lane` of repeat `r` (ascendc.md §5.1: block b of repeat r starts at
    (r*repStride + b*blkStride)*32 bytes; lanes within a block are contiguous)."""
    es = np.dtype(dtype).itemsize
    per = 32 // es
    return ((r * rep + (lane // per) * blk) * 32) // es + lane % per


def mask_lanes(dtype, *, count: int | None = None, bits: tuple[int, int] | None = None) -> list[int]:
    """Active lanes of one repeat: the first `count` lanes (clamped), or the set bits of (mask[0], mask[1]);
    32-bit types use mask[0] only."""
    n = lanes_of(dtype)
    if count is not None:
        return list(range(min(count, n)))
    lo, hi = bits
    return [i for i in range(n) if ((lo >> i) & 1 if i < 64 else (hi >> (i - 64)) & 1)]


def assert_same(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    """Bit-exact on values (+0 == -0, NaN == NaN), with the first mismatches in the message."""
    got = np.asarray(got)
    want = np.asarray(want).astype(got.dtype)
    g = got.astype(np.float64) if got.dtype.kind == "V" or got.dtype == BF16 else got
    w = want.astype(np.float64) if want.dtype.kind == "V" or want.dtype == BF16 else want
    bad = ~((g == w) | (np.isnan(g) & np.isnan(w)) if g.dtype.kind == "f" else (g == w))
    if bad.any():
        idx = np.flatnonzero(bad)[:8]
        pytest.fail(f"{what}: {bad.sum()} of {bad.size} differ; first at {idx.tolist()}: "
                    f"got {got.ravel()[idx].tolist()} want {want.ravel()[idx].tolist()}")


def f32(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32)


def random_values(rng: np.random.Generator, dtype, n: int, lo: float = -100, hi: float = 100,
                  nonzero: bool = False) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, int(lo)), min(info.max, int(hi)) + 1, n).astype(dt)
        if nonzero:
            v[v == 0] = 1
        return v
    v = rng.uniform(lo, hi, n).astype(dtype)
    if nonzero:
        v[v == 0] = 1
    return v


# ---------------------------------------------------------------------------------------------------------
# (1) Binary tensor-tensor APIs


BINARY_OPS = ["Add", "Sub", "Mul", "Div", "Max", "Min", "AddRelu", "SubRelu"]
BINARY_TYPES = {  # api_support.yaml, family a2
    "half": BINARY_OPS, "float": BINARY_OPS,
    "int32_t": ["Add", "Sub", "Mul", "Max", "Min", "AddRelu", "SubRelu"],
    "int16_t": ["Add", "Sub", "Mul", "Max", "Min"],
}
BINARY_CASES = [(t, op) for t, ops in BINARY_TYPES.items() for op in ops]
BIN_TILING = Tiling("op form len count repeat mask0 mask1 dstBlk src0Blk src1Blk dstRep src0Rep src1Rep",
                    {"dstBlk": 1, "src0Blk": 1, "src1Blk": 1, "dstRep": 8, "src0Rep": 8, "src1Rep": 8})
BIN_LEN = 2048


def ref_binary(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element math of ascendc.md §5.3: half computed in float and rounded to nearest even; integers wrap."""
    dt = a.dtype
    if dt.kind == "f":
        x, y = f32(a), f32(b)
    else:
        x, y = a.astype(np.int64), b.astype(np.int64)
    with np.errstate(all="ignore"):
        r = {"Add": lambda: x + y, "Sub": lambda: x - y, "Mul": lambda: x * y, "Div": lambda: x / y,
             "Max": lambda: np.maximum(x, y), "Min": lambda: np.minimum(x, y),
             "AddRelu": lambda: np.maximum(x + y, 0), "SubRelu": lambda: np.maximum(x - y, 0)}[op]()
    if dt.kind in "iu":
        bits = dt.itemsize * 8
        r = ((r + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1))  # two's complement wrap
    with np.errstate(over="ignore"):  # half overflow to inf is part of the semantics
        return r.astype(dt)


def binary_inputs(dtype: str, op: str, n: int = BIN_LEN, seed: int = 0):
    dt = NP[dtype]
    rng = rng_for("binary", dtype, op, seed)
    lim = 30000 if dt == np.int16 else (10**9 if dt == np.int32 else 100)
    x = random_values(rng, dt, n, -lim, lim)
    y = random_values(rng, dt, n, -lim, lim, nonzero=op == "Div")
    z0 = random_values(rng, dt, n, -lim, lim)
    return x, y, z0


def run_binary(kernels: Kernels, dtype: str, op: str, x, y, z0, **tiling) -> np.ndarray:
    dt = np.dtype(NP[dtype])
    n = x.size
    args = [GmIn(x, "x"), GmIn(y, "y"), GmIn(z0, "z0"), GmOut(dt, (n,), "z"),
            BIN_TILING(op=BINARY_OPS.index(op), len=n, **tiling)]
    return kernels.run("api_binary", {"DTYPE": dtype}, args).outputs[0]


def ref_repeat(dtype, fn, dst, srcs, lanes, repeat, strides) -> np.ndarray:
    """Reference of a repeat-form instruction: dst[lane r] = fn(src_k[lane r]...) for every active lane."""
    out = dst.copy()
    (dblk, drep), src_strides = strides[0], strides[1:]
    for r in range(repeat):
        for lane in lanes:
            vals = [s[elem_index(dtype, r, lane, blk, rep)] for s, (blk, rep) in zip(srcs, src_strides, strict=True)]
            out[elem_index(dtype, r, lane, dblk, drep)] = fn(*vals)
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype,op", BINARY_CASES)
def test_binary_count_form(kernels, dtype, op, seed):
    x, y, z0 = binary_inputs(dtype, op, seed=seed)
    count = 1000 if NP[dtype] in (np.float16, np.int16) else 700  # not a whole number of repeats
    z = run_binary(kernels, dtype, op, x, y, z0, form=0, count=count)
    assert_same(z[:count], ref_binary(op, x[:count], y[:count]), f"{op} count form")
    assert_same(z[count:], z0[count:], "elements past count must be untouched")


BINARY_STRIDES = [
    # dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep
    (1, 1, 1, 8, 8, 8),
    (2, 1, 3, 18, 8, 24),
    (1, 2, 0, 10, 16, 1),  # src1BlkStride 0: every block re-reads src1's first block of the repeat
    (3, 1, 1, 24, 0, 8),   # src0RepStride 0: every repeat re-reads the same src0 blocks
]


def _strides(s):
    return {"dstBlk": s[0], "src0Blk": s[1], "src1Blk": s[2], "dstRep": s[3], "src0Rep": s[4], "src1Rep": s[5]}


@pytest.mark.parametrize("stride", range(len(BINARY_STRIDES)))
@pytest.mark.parametrize("dtype,op", BINARY_CASES)
def test_binary_mask_count_form(kernels, dtype, op, stride):
    x, y, z0 = binary_inputs(dtype, op)
    s = BINARY_STRIDES[stride]
    mask = lanes_of(NP[dtype]) - 5 - 7 * stride
    repeat = 3
    z = run_binary(kernels, dtype, op, x, y, z0, form=1, count=mask, repeat=repeat, **_strides(s))
    fn = lambda a, b: ref_binary(op, np.array([a]), np.array([b]))[0]  # noqa: E731
    want = ref_repeat(NP[dtype], fn, z0, [x, y], mask_lanes(NP[dtype], count=mask), repeat,
                      [(s[0], s[3]), (s[1], s[4]), (s[2], s[5])])
    assert_same(z, want, f"{op} mask={mask} strides={s}")


@pytest.mark.parametrize("dtype,op", BINARY_CASES)
def test_binary_bit_mask_form(kernels, dtype, op):
    x, y, z0 = binary_inputs(dtype, op)
    rng = rng_for("bits", dtype, op)
    m0, m1 = (int(v) for v in rng.integers(0, 2**63, 2, dtype=np.int64))
    m0 |= 1 << 63
    s = BINARY_STRIDES[1]
    z = run_binary(kernels, dtype, op, x, y, z0, form=2, mask0=m0, mask1=m1, repeat=2, **_strides(s))
    fn = lambda a, b: ref_binary(op, np.array([a]), np.array([b]))[0]  # noqa: E731
    # mask[1] is not read for 32-bit types: its random bits must change nothing.
    want = ref_repeat(NP[dtype], fn, z0, [x, y], mask_lanes(NP[dtype], bits=(m0, m1)), 2,
                      [(s[0], s[3]), (s[1], s[4]), (s[2], s[5])])
    assert_same(z, want, f"{op} bit mask")


@pytest.mark.parametrize("dtype,op", [("half", "Add"), ("float", "Mul"), ("int32_t", "SubRelu"), ("half", "Div")])
def test_binary_in_place(kernels, dtype, op):
    x, y, z0 = binary_inputs(dtype, op)
    n = 512
    want = ref_binary(op, x[:n], y[:n])
    z = run_binary(kernels, dtype, op, x, y, z0, form=3, count=n)  # dst = src0
    assert_same(z[:n], want, "dst aliases src0")
    assert_same(z[n:], x[n:], "dst aliases src0, tail")
    z = run_binary(kernels, dtype, op, x, y, z0, form=4, count=n)  # dst = src1
    assert_same(z[:n], want, "dst aliases src1")
    assert_same(z[n:], y[n:], "dst aliases src1, tail")
    # Repeat form, dst and src0 the same blocks with the same strides (100% overlap within each repeat).
    m0, m1 = 0x0F0F_F0F0_0000_FFFF, 0xFFFF_0000_1234_5678
    s = (2, 2, 1, 16, 16, 8)
    z = run_binary(kernels, dtype, op, x, y, z0, form=5, mask0=m0, mask1=m1, repeat=3, **_strides(s))
    fn = lambda a, b: ref_binary(op, np.array([a]), np.array([b]))[0]  # noqa: E731
    want = ref_repeat(NP[dtype], fn, x, [x, y], mask_lanes(NP[dtype], bits=(m0, m1)), 3,
                      [(s[0], s[3]), (s[1], s[4]), (s[2], s[5])])
    assert_same(z, want, "in-place repeat form")


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_binary_mask_edge_cases(kernels, dtype):
    x, y, z0 = binary_inputs(dtype, "Add")
    lanes = lanes_of(NP[dtype])
    # mask 0 and repeatTime 0 are no-ops (ascendc.md §5.1).
    assert_same(run_binary(kernels, dtype, "Add", x, y, z0, form=1, count=0, repeat=4), z0, "mask 0")
    assert_same(run_binary(kernels, dtype, "Add", x, y, z0, form=1, count=lanes, repeat=0), z0, "repeat 0")
    assert_same(run_binary(kernels, dtype, "Add", x, y, z0, form=2, mask0=0, mask1=0, repeat=2), z0,
                "bit mask 0")
    # A mask above the lane count is clamped to a full repeat.
    z = run_binary(kernels, dtype, "Add", x, y, z0, form=1, count=lanes + 40, repeat=2)
    want = z0.copy()
    want[: 2 * lanes] = ref_binary("Add", x[: 2 * lanes], y[: 2 * lanes])
    assert_same(z, want, "mask clamped")


# ---------------------------------------------------------------------------------------------------------
# (10) Rounding of half results (bf16: see test_bf16_cast_rounding, bf16 arithmetic is not an A2 API)


def test_half_add_ties_round_to_even(kernels):
    """a + b with b = +-ulp(a)/2: the float sum is exact and lies halfway between two halves; the result is
    the even one (numpy's float64 -> half conversion rounds once, to nearest even)."""
    rng = rng_for("ties")
    a = rng.uniform(1, 1000, BIN_LEN).astype(np.float16)
    half_ulp = (np.spacing(a).astype(np.float32) / 2).astype(np.float16)
    b = np.where(rng.random(BIN_LEN) < 0.5, half_ulp, -half_ulp).astype(np.float16)
    z0 = np.zeros(BIN_LEN, np.float16)
    z = run_binary(kernels, "half", "Add", a, b, z0, form=0, count=BIN_LEN)
    exact = a.astype(np.float64) + b.astype(np.float64)
    want = exact.astype(np.float16)
    assert_same(z, want, "ties to even")
    toward_zero = np.abs(want.astype(np.float64)) < np.abs(exact)
    assert toward_zero.any() and (~toward_zero).any()  # neither truncation nor ties-away passes
    # Overflow: 65504 + 16 = 65520 is the tie between 65504 (odd last bit) and 2^16, so it rounds to inf;
    # 65504 + 15.5 is below the tie and stays 65504.
    a2 = np.full(BIN_LEN, 65504, np.float16)
    z = run_binary(kernels, "half", "Add", a2, np.full(BIN_LEN, 16, np.float16), z0, form=0, count=BIN_LEN)
    assert np.all(np.isposinf(z))
    z = run_binary(kernels, "half", "Add", a2, np.full(BIN_LEN, 15.5, np.float16), z0, form=0, count=BIN_LEN)
    assert np.all(z == np.float16(65504))


def test_half_subnormal_ties(kernels):
    """Muls by 0.5 of odd multiples of 2^-24 (the smallest subnormal): every product is a tie between two
    subnormals (or 0 and 2^-24) and rounds to the even one; gradual underflow, no flush to zero."""
    k = np.arange(1, 2 * BIN_LEN, 2) % 2047
    x = (k * 2.0**-24).astype(np.float16)
    assert np.all(x.astype(np.float64) == k * 2.0**-24)
    z0 = np.zeros(BIN_LEN, np.float16)
    z = run_scalar(kernels, "half", "Muls", x, z0, 0.5, form=0, count=BIN_LEN)
    want = (k * 2.0**-25).astype(np.float16)
    assert_same(z, want, "subnormal ties")
    assert np.any(z == 0) and np.any((z > 0) & (z < np.float16(6.1e-5)))


# ---------------------------------------------------------------------------------------------------------
# (2) Tensor-scalar APIs


SCALAR_OPS = ["Adds", "Muls", "Maxs", "Mins", "LeakyRelu"]
SCALAR_TYPES = {"half": SCALAR_OPS, "float": SCALAR_OPS, "int32_t": SCALAR_OPS[:4], "int16_t": SCALAR_OPS[:4]}
SCALAR_CASES = [(t, op) for t, ops in SCALAR_TYPES.items() for op in ops]
SCALAR_TILING = Tiling("op form len count repeat mask0 mask1 dstBlk srcBlk dstRep srcRep",
                       {"dstBlk": 1, "srcBlk": 1, "dstRep": 8, "srcRep": 8}, scalar=True)
UNARY_STRIDES = [(1, 1, 8, 8), (2, 1, 20, 8), (1, 3, 8, 24), (1, 0, 9, 1)]  # dstBlk, srcBlk, dstRep, srcRep


def ref_scalar(op: str, a: np.ndarray, s: float) -> np.ndarray:
    dt = a.dtype
    x = f32(a) if dt.kind == "f" else a.astype(np.int64)
    c = np.float32(s) if dt.kind == "f" else int(s)
    r = {"Adds": lambda: x + c, "Muls": lambda: x * c, "Maxs": lambda: np.maximum(x, c),
         "Mins": lambda: np.minimum(x, c), "LeakyRelu": lambda: np.where(x >= 0, x, x * c)}[op]()
    if dt.kind in "iu":
        bits = dt.itemsize * 8
        r = (r + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)
    return np.asarray(r).astype(dt)


def scalar_inputs(dtype: str, op: str, n: int = BIN_LEN, seed: int = 0):
    dt = NP[dtype]
    rng = rng_for("scalar", dtype, op, seed)
    lim = 30000 if dt == np.int16 else (10**9 if dt == np.int32 else 100)
    x = random_values(rng, dt, n, -lim, lim)
    z0 = random_values(rng, dt, n, -lim, lim)
    s = {"Adds": -37.25, "Muls": 0.3125, "Maxs": 1.5, "Mins": -2.75, "LeakyRelu": 0.125}[op]
    if dt in (np.int16, np.int32):
        s = {"Adds": 12345, "Muls": -7, "Maxs": 100, "Mins": -100}[op]
    return x, z0, s


def run_scalar(kernels, dtype, op, x, z0, s, **tiling) -> np.ndarray:
    n = x.size
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (n,), "z"),
            SCALAR_TILING(op=SCALAR_OPS.index(op), len=n, scalar=s, **tiling)]
    return kernels.run("api_scalar", {"DTYPE": dtype}, args).outputs[0]


def _ustrides(s):
    return {"dstBlk": s[0], "srcBlk": s[1], "dstRep": s[2], "srcRep": s[3]}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype,op", SCALAR_CASES)
def test_scalar_count_form(kernels, dtype, op, seed):
    x, z0, s = scalar_inputs(dtype, op, seed=seed)
    n = 999
    z = run_scalar(kernels, dtype, op, x, z0, s, form=0, count=n)
    assert_same(z[:n], ref_scalar(op, x[:n], s), f"{op} count form")
    assert_same(z[n:], z0[n:], "past count")
    z = run_scalar(kernels, dtype, op, x, z0, s, form=3, count=n)  # in place
    assert_same(z[:n], ref_scalar(op, x[:n], s), f"{op} in place")
    assert_same(z[n:], x[n:], "in place, past count")


@pytest.mark.parametrize("stride", range(len(UNARY_STRIDES)))
@pytest.mark.parametrize("dtype,op", SCALAR_CASES)
def test_scalar_repeat_forms(kernels, dtype, op, stride):
    x, z0, s = scalar_inputs(dtype, op)
    st = UNARY_STRIDES[stride]
    dt = NP[dtype]
    fn = lambda a: ref_scalar(op, np.array([a]), s)[0]  # noqa: E731
    strides = [(st[0], st[2]), (st[1], st[3])]
    mask = lanes_of(dt) - 3 * stride - 1
    z = run_scalar(kernels, dtype, op, x, z0, s, form=1, count=mask, repeat=3, **_ustrides(st))
    assert_same(z, ref_repeat(dt, fn, z0, [x], mask_lanes(dt, count=mask), 3, strides), f"{op} mask count")
    m0, m1 = 0xDEAD_BEEF_0123_4567 ^ stride, 0x8000_0000_FFFF_0001
    z = run_scalar(kernels, dtype, op, x, z0, s, form=2, mask0=m0, mask1=m1, repeat=2, **_ustrides(st))
    assert_same(z, ref_repeat(dt, fn, z0, [x], mask_lanes(dt, bits=(m0, m1)), 2, strides), f"{op} bit mask")


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_scalar_bit_mask_in_place(kernels, dtype):
    x, z0, s = scalar_inputs(dtype, "Muls")
    dt = NP[dtype]
    m0, m1 = 0x5555_AAAA_5555_AAAA, 0x0123_4567_89AB_CDEF
    z = run_scalar(kernels, dtype, "Muls", x, z0, s, form=4, mask0=m0, mask1=m1, repeat=4,
                   **_ustrides((2, 2, 16, 16)))
    fn = lambda a: ref_scalar("Muls", np.array([a]), s)[0]  # noqa: E731
    want = ref_repeat(dt, fn, x, [x], mask_lanes(dt, bits=(m0, m1)), 4, [(2, 16), (2, 16)])
    assert_same(z, want, "Muls in place, bit mask")


# ---------------------------------------------------------------------------------------------------------
# (3) Unary APIs


UNARY_OPS = ["Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu"]
UNARY_CASES = [(t, op) for t in ("half", "float") for op in UNARY_OPS] + [("int32_t", "Relu")]
UNARY_TILING = Tiling("op form len count repeat mask0 mask1 dstBlk srcBlk dstRep srcRep",
                      {"dstBlk": 1, "srcBlk": 1, "dstRep": 8, "srcRep": 8})
EXACT_UNARY = {"Abs", "Relu"}


def ref_unary(op: str, a: np.ndarray) -> np.ndarray:
    """float64 reference (the tolerance check rounds it to the element type)."""
    if a.dtype.kind in "iu":
        return np.maximum(a, 0)
    x = a.astype(np.float64)
    with np.errstate(all="ignore"):
        return {"Exp": np.exp, "Ln": np.log, "Abs": np.abs, "Sqrt": np.sqrt, "Rsqrt": lambda v: 1 / np.sqrt(v),
                "Reciprocal": lambda v: 1 / v, "Relu": lambda v: np.maximum(v, 0)}[op](x)


def ordered_bits(a: np.ndarray) -> np.ndarray:
    """Integers that order like the floats they encode, one apart for adjacent values (ulp distance)."""
    bits = a.view(UINT[a.dtype.itemsize]).astype(np.int64)
    sign = 1 << (a.dtype.itemsize * 8 - 1)
    return np.where(bits & sign, -(bits & (sign - 1)), bits)


def assert_close_unary(op: str, got: np.ndarray, src: np.ndarray, what: str) -> None:
    want = ref_unary(op, src)
    if op in EXACT_UNARY or got.dtype.kind in "iu":
        assert_same(got, want.astype(got.dtype), what)
    elif got.dtype == np.float32:
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-6, atol=0, err_msg=what)
    else:  # half: at most one unit in the last place from the correctly rounded value
        dist = np.abs(ordered_bits(got) - ordered_bits(want.astype(np.float16)))
        assert dist.max() <= 1, f"{what}: {int((dist > 1).sum())} results more than 1 ulp off"


def unary_inputs(dtype: str, op: str, n: int = BIN_LEN, seed: int = 0):
    dt = NP[dtype]
    rng = rng_for("unary", dtype, op, seed)
    lo, hi = {"Exp": (-10, 10) if dt == np.float16 else (-80, 80), "Ln": (1e-3, 6e4), "Sqrt": (0, 6e4),
              "Rsqrt": (1e-3, 6e4), "Reciprocal": (0.01, 1000)}.get(op, (-1000, 1000))
    x = random_values(rng, dt, n, lo, hi)
    if op == "Reciprocal":
        x = np.where(rng.random(n) < 0.5, x, -x).astype(dt)
    z0 = random_values(rng, dt, n, -5, 5)
    return x, z0


def run_unary(kernels, dtype, op, x, z0, **tiling) -> np.ndarray:
    n = x.size
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (n,), "z"),
            UNARY_TILING(op=UNARY_OPS.index(op), len=n, **tiling)]
    return kernels.run("api_unary", {"DTYPE": dtype}, args).outputs[0]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("dtype,op", UNARY_CASES)
def test_unary_count_form(kernels, dtype, op, seed):
    x, z0 = unary_inputs(dtype, op, seed=seed)
    n = 1001
    z = run_unary(kernels, dtype, op, x, z0, form=0, count=n)
    assert_close_unary(op, z[:n], x[:n], f"{op} count form")
    assert_same(z[n:], z0[n:], "past count")
    z = run_unary(kernels, dtype, op, x, z0, form=3, count=n)
    assert_close_unary(op, z[:n], x[:n], f"{op} in place")
    assert_same(z[n:], x[n:], "in place, past count")


def _unary_expect(op, dt, x, z0, lanes, repeat, st):
    """Active destination lanes get op(source lane); the rest of dst keeps z0."""
    want = z0.copy()
    got_idx, src_idx = [], []
    for r in range(repeat):
        for lane in lanes:
            got_idx.append(elem_index(dt, r, lane, st[0], st[2]))
            src_idx.append(elem_index(dt, r, lane, st[1], st[3]))
    return want, np.array(got_idx), np.array(src_idx)


@pytest.mark.parametrize("stride", range(len(UNARY_STRIDES)))
@pytest.mark.parametrize("dtype,op", UNARY_CASES)
def test_unary_repeat_forms(kernels, dtype, op, stride):
    x, z0 = unary_inputs(dtype, op)
    st = UNARY_STRIDES[stride]
    dt = NP[dtype]
    m0, m1 = 0xF00F_1234_8765_FFFF, 0x0000_FFFF_0F0F_0001
    for form, lanes, extra in ((1, mask_lanes(dt, count=lanes_of(dt) - 9), {"count": lanes_of(dt) - 9}),
                               (2, mask_lanes(dt, bits=(m0, m1)), {"mask0": m0, "mask1": m1})):
        z = run_unary(kernels, dtype, op, x, z0, form=form, repeat=3, **extra, **_ustrides(st))
        want, dst_idx, src_idx = _unary_expect(op, dt, x, z0, lanes, 3, st)
        untouched = np.ones(x.size, bool)
        untouched[dst_idx] = False
        assert_same(z[untouched], z0[untouched], f"{op} form {form}: inactive lanes")
        assert_close_unary(op, z[dst_idx], x[src_idx], f"{op} form {form} strides {st}")


# ---------------------------------------------------------------------------------------------------------
# (4) Duplicate, Brcb


FILL_TYPES = ["half", "float", "int16_t", "bfloat16_t"]
FILL_TILING = Tiling("form len count repeat mask0 mask1 dstBlk dstRep", {"dstBlk": 1, "dstRep": 8}, scalar=True)
FILL_LEN = 2048


def fill_inputs(dtype: str):
    rng = rng_for("fill", dtype)
    x = random_values(rng, NP[dtype], FILL_LEN, -1000, 1000)
    z0 = random_values(rng, NP[dtype], FILL_LEN, -1000, 1000)
    return x, z0


def run_fill(kernels, dtype, x, z0, **tiling) -> np.ndarray:
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (FILL_LEN,), "z"),
            FILL_TILING(len=FILL_LEN, **tiling)]
    return kernels.run("api_fill", {"DTYPE": dtype}, args).outputs[0]


@pytest.mark.parametrize("dtype", FILL_TYPES)
def test_duplicate(kernels, dtype):
    dt = NP[dtype]
    x, z0 = fill_inputs(dtype)
    value = -3.5 if dtype != "int16_t" else -1234
    v = np.array([value]).astype(dt)[0]
    z = run_fill(kernels, dtype, x, z0, form=0, count=777, scalar=value)
    want = z0.copy()
    want[:777] = v
    assert_same(z, want, "Duplicate count form")
    for dst_blk, dst_rep in ((1, 8), (2, 20), (3, 7)):
        mask = lanes_of(dt) - 11
        z = run_fill(kernels, dtype, x, z0, form=1, count=mask, repeat=4, dstBlk=dst_blk, dstRep=dst_rep,
                     scalar=value)
        want = ref_repeat(dt, lambda: v, z0, [], mask_lanes(dt, count=mask), 4, [(dst_blk, dst_rep)])
        assert_same(z, want, f"Duplicate mask count, dstBlockStride {dst_blk} dstRepeatStride {dst_rep}")
        m0, m1 = 0x8421_8421_FFFF_0000, 0x7777_0000_0000_0001
        z = run_fill(kernels, dtype, x, z0, form=2, mask0=m0, mask1=m1, repeat=3, dstBlk=dst_blk, dstRep=dst_rep,
                     scalar=value)
        want = ref_repeat(dt, lambda: v, z0, [], mask_lanes(dt, bits=(m0, m1)), 3, [(dst_blk, dst_rep)])
        assert_same(z, want, f"Duplicate bit mask, dstBlockStride {dst_blk} dstRepeatStride {dst_rep}")


@pytest.mark.parametrize("dtype", FILL_TYPES)
@pytest.mark.parametrize("dst_blk,dst_rep", [(1, 8), (2, 16), (1, 10), (3, 24), (0, 9)])
def test_brcb(kernels, dtype, dst_blk, dst_rep):
    """Brcb: per repeat, source elements 8r..8r+7 each fill one 32-byte block of dst at
    (r*dstRepStride + j*dstBlkStride)*32 bytes; dstBlkStride 0 counts as 1 (ascendc.md §5.6)."""
    dt = NP[dtype]
    x, z0 = fill_inputs(dtype)
    repeat = 5
    z = run_fill(kernels, dtype, x, z0, form=3, repeat=repeat, dstBlk=dst_blk, dstRep=dst_rep)
    want = z0.copy()
    per = 32 // np.dtype(dt).itemsize
    for r in range(repeat):
        for j in range(8):
            start = (r * dst_rep + j * max(dst_blk, 1)) * per
            want[start:start + per] = x[8 * r + j]
    assert_same(z, want, f"Brcb blk {dst_blk} rep {dst_rep}")


# ---------------------------------------------------------------------------------------------------------
# (5) Cast


ROUND_MODES = ["NONE", "RINT", "FLOOR", "CEIL", "ROUND", "TRUNC", "ODD"]
CAST_PAIRS = [("float", "half"), ("half", "float"), ("bfloat16_t", "float"), ("float", "bfloat16_t"),
              ("int32_t", "float"), ("float", "int32_t")]  # (dst, src)
CAST_TILING = Tiling("form len round count repeat mask0 mask1 dstBlk srcBlk dstRep srcRep",
                     {"dstBlk": 1, "srcBlk": 1, "dstRep": 8, "srcRep": 8})
CAST_LEN = 4096


def cast_table() -> dict[tuple[str, str], list[str]]:
    from tuner.sim.codegen import cast_modes
    return cast_modes(get_soc(DEFAULT_SOC).vector_costs)


CAST_CASES = [(d, s, m) for d, s in CAST_PAIRS for m in ROUND_MODES]


def round_float_format(x: np.ndarray, dt, mode: str) -> np.ndarray:
    """Reference rounding of exact values `x` (float64, finite, inside the format's finite range) to the
    floating format `dt` under a RoundMode: NONE/RINT nearest-even, FLOOR toward -inf, CEIL toward +inf,
    ROUND nearest with ties away from zero, TRUNC toward zero, ODD to the neighbour with an odd last bit."""
    ut = UINT[np.dtype(dt).itemsize]
    sign_bit = ut(1) << ut(np.dtype(dt).itemsize * 8 - 1)
    mag = np.abs(x)
    rne = mag.astype(dt)
    rb = rne.view(ut).astype(np.int64)
    rv = rne.astype(np.float64)
    lo = np.where(rv > mag, rb - 1, rb)
    hi = np.where(rv < mag, rb + 1, rb)
    lo_v = lo.astype(ut).view(dt).astype(np.float64)
    hi_v = hi.astype(ut).view(dt).astype(np.float64)
    neg = np.signbit(x)
    pick = {
        "NONE": rb, "RINT": rb, "TRUNC": lo,
        "FLOOR": np.where(neg, hi, lo), "CEIL": np.where(neg, lo, hi),
        "ROUND": np.where(mag - lo_v >= hi_v - mag, hi, lo),
        "ODD": np.where(lo == hi, lo, np.where(lo % 2 == 1, lo, hi)),
    }[mode]
    bits = pick.astype(ut) | np.where(neg, sign_bit, ut(0)).astype(ut)
    return bits.view(dt)


def ref_cast(dst: str, src: str, x: np.ndarray, mode: str) -> np.ndarray:
    v = x.astype(np.float64)
    if dst == "int32_t":
        r = {"RINT": np.rint, "FLOOR": np.floor, "CEIL": np.ceil, "TRUNC": np.trunc,
             "ROUND": lambda a: np.sign(a) * np.floor(np.abs(a) + 0.5)}[mode](v)
        return r.astype(np.int32)
    return round_float_format(v, NP[dst], mode)


def cast_inputs(dst: str, src: str, seed: int = 0) -> np.ndarray:
    rng = rng_for("cast", dst, src, seed)
    n = CAST_LEN
    k = n // 4
    if src in ("half", "bfloat16_t"):
        bits = rng.integers(0, 2**16, n, dtype=np.uint32).astype(np.uint16)
        bits[(bits & 0x7F80 if src == "bfloat16_t" else bits & 0x7C00) == (0x7F80 if src == "bfloat16_t"
                                                                          else 0x7C00)] &= 0x3FFF  # no inf/nan
        return bits.view(NP[src])
    if src == "int32_t":
        big = rng.integers(-(2**31), 2**31 - 1, k, dtype=np.int64)
        tie = (rng.integers(2**24, 2**30, k, dtype=np.int64) >> 1 << 1) | 1  # odd, > 2^24: needs rounding
        tie = tie * np.where(rng.random(k) < 0.5, 1, -1)
        small = rng.integers(-(2**24), 2**24, n - 2 * k, dtype=np.int64)
        return np.concatenate([big, tie, small]).astype(np.int32)
    # float sources
    if dst == "int32_t":
        frac = rng.uniform(-1e6, 1e6, k)
        ties = rng.integers(-(10**6), 10**6, k) + 0.5
        near = rng.integers(-100, 100, k) + rng.choice([0.0, 0.25, 0.5, 0.75, -0.5], k)
        rest = rng.uniform(-3, 3, n - 3 * k)
        return np.concatenate([frac, ties, near, rest]).astype(np.float32)
    narrow = NP[dst]
    if narrow == np.float16:
        exact = rng.uniform(-60000, 60000, k).astype(np.float16).astype(np.float64)
        sub = rng.uniform(-6e-5, 6e-5, k)  # half subnormals
        wide = rng.uniform(-65000, 65000, k)
    else:
        exact = (rng.uniform(-1, 1, k) * 10.0 ** rng.integers(-30, 30, k)).astype(BF16).astype(np.float64)
        sub = rng.uniform(-1, 1, k) * 10.0 ** rng.integers(-37, -30, k)
        wide = rng.uniform(-1, 1, k) * 10.0 ** rng.integers(-30, 37, k)
    up = (np.abs(exact).astype(narrow).view(np.uint16) + 1).view(narrow).astype(np.float64)  # next value up
    ties = np.sign(exact) * (np.abs(exact) + (up - np.abs(exact)) / 2)  # exact midpoints, representable in float
    x = np.concatenate([exact, sub, wide, ties[: n - 3 * k]])
    return x.astype(np.float32)


def run_cast(kernels, dst, src, x, z0, **tiling) -> SimResult:
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dst]), (x.size,), "z"),
            CAST_TILING(len=x.size, **tiling)]
    return kernels.run("api_cast", {"DST_T": dst, "SRC_T": src}, args, ok=False)


@pytest.mark.parametrize("dst,src,mode", CAST_CASES)
def test_cast_round_modes(kernels, dst, src, mode):
    """Every mode api_support.yaml lists for the pair is bit-exact against the reference rounding (three
    input sets); every other mode is an `unsupported` fault."""
    allowed = cast_table()[(dst, src)]
    for seed in range(3) if mode in allowed else range(1):
        x = cast_inputs(dst, src, seed)
        z0 = np.zeros(x.size, NP[dst])
        r = run_cast(kernels, dst, src, x, z0, form=0, count=x.size, round=ROUND_MODES.index(mode))
        if mode not in allowed:
            assert [f.cls for f in r.faults] == ["unsupported"], r.faults
            assert mode in r.faults[0].text and "Cast" in r.faults[0].text
            return
        assert r.ok, [f.text for f in r.faults]
        assert_same(r.outputs[0], ref_cast(dst, src, x, mode), f"Cast {src}->{dst} {mode} seed {seed}")
        if mode == "ROUND" and src == "float" and dst != "int32_t":  # the inputs hold real ties
            assert (ref_cast(dst, src, x, "RINT") != ref_cast(dst, src, x, "ROUND")).sum() > 100


BF16_TIE_VALUES = [1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 1 + 2**-9, 1 - 2**-10, 3 * 2**-100]
BF16_TIE_RESULTS = {  # by mode, for the values above
    "RINT": [1.0, 1 + 2**-6, -1.0, 1.0, 1.0, 3 * 2**-100],
    "ROUND": [1 + 2**-7, 1 + 2**-6, -(1 + 2**-7), 1.0, 1.0, 3 * 2**-100],
    "FLOOR": [1.0, 1 + 2**-7, -(1 + 2**-7), 1.0, 1 - 2**-8, 3 * 2**-100],
    "CEIL": [1 + 2**-7, 1 + 2**-6, -1.0, 1 + 2**-7, 1.0, 3 * 2**-100],
    "TRUNC": [1.0, 1 + 2**-7, -1.0, 1.0, 1 - 2**-8, 3 * 2**-100],
}


@pytest.mark.parametrize("mode", list(BF16_TIE_RESULTS))
def test_bf16_cast_rounding(kernels, mode):
    """float -> bfloat16_t by hand-checked values: ties (1 + 2^-8 lies between 1 and 1 + 2^-7), a tie whose
    even neighbour is above, a negative tie, values just off a tie, an exact value."""
    x = np.resize(np.array(BF16_TIE_VALUES, np.float32), 64)
    r = run_cast(kernels, "bfloat16_t", "float", x, np.zeros(64, BF16), form=0, count=64,
                 round=ROUND_MODES.index(mode))
    assert r.ok, [f.text for f in r.faults]
    want = np.resize(np.array(BF16_TIE_RESULTS[mode], np.float64), 64)
    assert_same(r.outputs[0].astype(np.float64), want, f"bf16 {mode}")


@pytest.mark.parametrize("dst,src,mode", [("half", "float", "ROUND"), ("float", "half", "NONE"),
                                          ("int32_t", "float", "FLOOR")])
def test_cast_repeat_forms(kernels, dst, src, mode):
    """Repeat forms: 256 bytes of the wider type per repeat; each operand's strides count its own 32-byte
    blocks. Choice (ascendc.md §5.7 marks this (?)): lane i of a repeat is element i of that repeat in
    both operands, so float->half with default strides reads 8 float blocks and writes 4 half blocks
    per repeat (dstRepStride 4 packs the output)."""
    sdt, ddt = NP[src], NP[dst]
    lanes = 256 // max(np.dtype(sdt).itemsize, np.dtype(ddt).itemsize)
    x = cast_inputs(dst, src)
    z0 = random_values(rng_for("cast z0"), ddt, x.size, -9, 9)
    narrow_dst = np.dtype(ddt).itemsize < np.dtype(sdt).itemsize
    cases = [
        # (form, mask kwargs, lanes, dstBlk, srcBlk, dstRep, srcRep)
        (1, {"count": lanes}, list(range(lanes)), 1, 1, 4 if narrow_dst else 8, 8 if narrow_dst else 4),
        (1, {"count": lanes - 13}, list(range(lanes - 13)), 2, 1, 12, 10),
        (2, {"mask0": 0xFFFF_0000_8888_1111}, mask_lanes(np.float32, bits=(0xFFFF_0000_8888_1111, 0)), 1, 2, 8, 16),
    ]
    for form, mask, active, dblk, sblk, drep, srep in cases:
        r = run_cast(kernels, dst, src, x, z0, form=form, round=ROUND_MODES.index(mode), repeat=3,
                     dstBlk=dblk, srcBlk=sblk, dstRep=drep, srcRep=srep, **mask)
        assert r.ok, [f.text for f in r.faults]
        want = z0.copy()
        for rep in range(3):
            for lane in active:
                si = elem_index(sdt, rep, lane, sblk, srep)
                want[elem_index(ddt, rep, lane, dblk, drep)] = ref_cast(dst, src, x[si:si + 1], mode)[0]
        assert_same(r.outputs[0], want, f"Cast {src}->{dst} form {form} strides {(dblk, sblk, drep, srep)}")


# ---------------------------------------------------------------------------------------------------------
# (6) Reductions


REDUCE_OPS = ["Sum", "Max", "Min"]
REDUCE_CASES = [(t, op) for t in ("half", "float") for op in REDUCE_OPS]
REDUCE_TILING = Tiling("op form len outLen count repeat mask0 mask1 dstRep srcBlk srcRep index",
                       {"srcBlk": 1, "srcRep": 8, "dstRep": 1})
REDUCE_LEN, REDUCE_OUT = 4096, 512
ORDERS = ["VALUE_INDEX", "INDEX_VALUE", "ONLY_VALUE", "ONLY_INDEX"]


def reduce_inputs(dtype: str, op: str, integers: bool, seed: int = 0):
    """Integer-valued data makes every summation order exact (partial sums stay below 2^11 for half)."""
    rng = rng_for("reduce", dtype, op, integers, seed)
    dt = NP[dtype]
    x = (rng.integers(-3, 4, REDUCE_LEN) if integers else rng.uniform(-50, 50, REDUCE_LEN)).astype(dt)
    z0 = rng.uniform(-9, 9, REDUCE_OUT).astype(dt)
    return x, z0


def run_reduce(kernels, dtype, op, x, z0, **tiling) -> np.ndarray:
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (z0.size,), "z"),
            REDUCE_TILING(op=REDUCE_OPS.index(op), len=x.size, outLen=z0.size, **tiling)]
    return kernels.run("api_reduce", {"DTYPE": dtype}, args).outputs[0]


def check_reduced(op: str, got_value, got_index, vals: np.ndarray, positions: np.ndarray | None, exact: bool,
                  what: str) -> None:
    """`vals` in the order the API sees them; `positions[k]` is the index the API reports for vals[k]."""
    if op == "Sum":
        want = vals.astype(np.float64).sum()
        if exact:
            assert float(got_value) == want, f"{what}: sum {got_value} != {want}"
        else:
            tol = (1e-6 if vals.dtype == np.float32 else 1e-2) * np.abs(vals.astype(np.float64)).sum()
            assert abs(float(got_value) - want) <= tol, f"{what}: sum {got_value} vs {want}"
        return
    k = int(np.argmax(vals) if op == "Max" else np.argmin(vals))  # first occurrence
    assert_same(np.array([got_value]), vals[k:k + 1], f"{what}: value")
    if got_index is not None:
        assert int(got_index) == int(positions[k]), f"{what}: index {int(got_index)} != {int(positions[k])}"


def index_bits(z: np.ndarray, i: int) -> int:
    return int(z.view(UINT[z.dtype.itemsize])[i])


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("dtype,op", REDUCE_CASES)
@pytest.mark.parametrize("integers", [True, False])
def test_reduce_count_form(kernels, dtype, op, integers, seed):
    """ReduceSum/Max/Min count form: result in dst[0]; with calIndex, dst[1] holds the index of the first
    extreme as the bits of the value type (reinterpret as uint16/uint32)."""
    x, z0 = reduce_inputs(dtype, op, integers, seed)
    for n in (1000, 64, 4096):
        xs = x.copy()
        if op != "Sum":
            k = n // 3
            xs[n - 2] = xs[k] = (xs[:n].max() + 1) if op == "Max" else (xs[:n].min() - 1)  # a tie: index k wins
        for cal in ((0, 1) if op != "Sum" else (0,)):
            z = run_reduce(kernels, dtype, op, xs, z0, form=0, count=n, index=cal)
            check_reduced(op, z[0], index_bits(z, 1) if cal else None, xs[:n], np.arange(n), integers,
                          f"Reduce{op} count={n} calIndex={cal}")
            assert_same(z[2:], z0[2:], "dst past the result")


@pytest.mark.parametrize("dtype,op", REDUCE_CASES)
def test_reduce_repeat_forms(kernels, dtype, op):
    """Reduce* repeat forms reduce the active lanes of all repeats to dst[0] (and the index to dst[1]).
    The index is the position in the repeat sequence, repeat * lanesPerRepeat + lane (ReduceMax.md: the
    per-repeat inner index combined with the repeat's position). Choice: with srcRepStride != 8 the index
    still counts lanesPerRepeat per repeat, not the element offset in src (unconfirmed)."""
    dt = NP[dtype]
    lanes = lanes_of(dt)
    x, z0 = reduce_inputs(dtype, op, True)
    m0, m1 = 0x00FF_F0F0_1234_8001, 0x8000_0000_0000_FFFF
    for form, kw, active in ((1, {"count": lanes - 7}, mask_lanes(dt, count=lanes - 7)),
                             (2, {"mask0": m0, "mask1": m1}, mask_lanes(dt, bits=(m0, m1)))):
        for src_rep in (8, 12):
            repeat = 5
            pos = [(r, lane) for r in range(repeat) for lane in active]
            idx = np.array([elem_index(dt, r, lane, 1, src_rep) for r, lane in pos])
            xs = x.copy()
            if op != "Sum":  # make the extreme sit at a masked-in lane of a later repeat, tied later on
                xs[idx[len(idx) // 2]] = xs[idx[-1]] = (xs.max() + 1) if op == "Max" else (xs.min() - 1)
                xs[elem_index(dt, 0, lanes - 1 if (lanes - 1) not in active else 0, 1, src_rep)] = 0
            z = run_reduce(kernels, dtype, op, xs, z0, form=form, repeat=repeat, srcRep=src_rep, index=1, **kw)
            positions = np.array([r * lanes + lane for r, lane in pos])
            check_reduced(op, z[0], index_bits(z, 1) if op != "Sum" else None, xs[idx], positions, True,
                          f"Reduce{op} form {form} srcRepStride {src_rep}")


WHOLE_CASES = [(t, op, order) for t, op in REDUCE_CASES for order in (ORDERS if op != "Sum" else ["ONLY_VALUE"])]


@pytest.mark.parametrize("dtype,op,order", WHOLE_CASES)
def test_whole_reduce_rows(kernels, dtype, op, order):
    """WholeReduce*: one result per repeat (a row of <= one repeat), written at dst + r*dstRepStride units;
    the unit is two elements for VALUE_INDEX/INDEX_VALUE, one element otherwise and for Sum. The index is
    the lane within the repeat, stored as bits of the value type."""
    dt = NP[dtype]
    es = np.dtype(dt).itemsize
    x, z0 = reduce_inputs(dtype, op, True)
    row = 48 if es == 2 else 40  # row length: 96 / 160 bytes = 3 / 5 blocks
    rows = 7
    pair = op != "Sum" and order in ("VALUE_INDEX", "INDEX_VALUE")
    for form, dst_rep, src_blk, src_rep, active in (
        (3, 1, 1, row * es // 32, list(range(row))),   # the sample's per-row idiom
        (3, 3, 1, row * es // 32 + 2, list(range(row - 5))),
        (4, 2, 2, 20, mask_lanes(dt, bits=(0x0F0F_FFFF_0000_FF01, 0x1))),
    ):
        mask = {"count": len(active)} if form == 3 else {"mask0": 0x0F0F_FFFF_0000_FF01, "mask1": 0x1}
        z = run_reduce(kernels, dtype, op, x, z0, form=form, repeat=rows, dstRep=dst_rep, srcBlk=src_blk,
                       srcRep=src_rep, index=ORDERS.index(order), **mask)
        want = z0.copy()
        written = np.zeros(z0.size, bool)
        unit = 2 if pair else 1
        for r in range(rows):
            vals = np.array([x[elem_index(dt, r, lane, src_blk, src_rep)] for lane in active])
            out = r * dst_rep * unit
            if op == "Sum":
                want[out] = vals.astype(np.float64).sum()
                written[out] = True
                continue
            k = int(np.argmax(vals) if op == "Max" else np.argmin(vals))
            lane = np.array([active[k]], UINT[es]).view(dt)[0]
            slots = {"VALUE_INDEX": [vals[k], lane], "INDEX_VALUE": [lane, vals[k]], "ONLY_VALUE": [vals[k]],
                     "ONLY_INDEX": [lane]}[order]
            for j, v in enumerate(slots):
                want[out + j] = v
                written[out + j] = True
        got_bits = z.view(UINT[es])
        want_bits = want.view(UINT[es])
        bad = np.flatnonzero(got_bits != want_bits)
        assert bad.size == 0, (f"WholeReduce{op} {order} form {form}: differs at {bad[:8].tolist()}: "
                               f"got {got_bits[bad[:8]].tolist()} want {want_bits[bad[:8]].tolist()}")
        assert written.sum() == rows * len(slots if op != "Sum" else [0])


@pytest.mark.parametrize("dtype,op", REDUCE_CASES)
def test_block_reduce(kernels, dtype, op):
    """BlockReduce*: each 32-byte block of a repeat reduces to one value; the 8 values of repeat r go to
    dst + r*dstRepStride*8 elements (dstRepStride unit: 8 elements)."""
    dt = NP[dtype]
    per = 32 // np.dtype(dt).itemsize
    x, z0 = reduce_inputs(dtype, op, True)
    full = (1 << 64) - 1
    bits = (0x8001_0203_0408_1121, 0x4000_8000_0101_FFFF) if per == 16 else (0x8102_0408_1020_4080, 0)
    for form, mask, dst_rep, src_blk, src_rep in ((5, {"count": 256 // np.dtype(dt).itemsize}, 1, 1, 8),
                                                  (5, {"count": 7 * per + 3}, 2, 2, 16),
                                                  (6, {"mask0": bits[0], "mask1": bits[1]}, 1, 1, 9),
                                                  (6, {"mask0": full, "mask1": full}, 3, 1, 8)):
        active = (mask_lanes(dt, count=mask["count"]) if "count" in mask
                  else mask_lanes(dt, bits=(mask["mask0"], mask["mask1"])))
        repeat = 4
        z = run_reduce(kernels, dtype, op, x, z0, form=form, repeat=repeat, dstRep=dst_rep, srcBlk=src_blk,
                       srcRep=src_rep, **mask)
        want = z0.copy()
        for r in range(repeat):
            for b in range(8):
                lanes = [lane for lane in active if lane // per == b]
                assert lanes, "every block has an active lane in these cases"
                vals = np.array([x[elem_index(dt, r, lane, src_blk, src_rep)] for lane in lanes])
                f = {"Sum": np.sum, "Max": np.max, "Min": np.min}[op]
                want[r * dst_rep * 8 + b] = f(vals.astype(np.float64))
        assert_same(z, want, f"BlockReduce{op} form {form} mask {mask} strides {(dst_rep, src_blk, src_rep)}")


# ---------------------------------------------------------------------------------------------------------
# (7) Compare, Select


CMP_MODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]
SEL_MODES = ["VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"]
CMPSEL_TILING = Tiling("form mode len count", scalar=True)
CMP_LEN = 2048
CMP_FN = {"LT": np.less, "GT": np.greater, "EQ": np.equal, "LE": np.less_equal, "GE": np.greater_equal,
          "NE": np.not_equal}


def cmpsel_inputs(dtype: str):
    rng = rng_for("cmpsel", dtype)
    dt = NP[dtype]
    pool = np.array([-2.5, -1, 0, 0.5, 1, 3.25], dt)  # a small pool: many equal pairs
    x = rng.choice(pool, CMP_LEN)
    y = rng.choice(pool, CMP_LEN)
    sel = rng.integers(0, 256, CMP_LEN // 8, dtype=np.uint16).astype(np.uint8)
    z0 = rng.uniform(-9, 9, CMP_LEN).astype(dt)
    return x, y, sel, z0


def run_cmpsel(kernels, dtype, x, y, sel, z0, ok: bool = True, **tiling) -> SimResult:
    args = [GmIn(x, "x"), GmIn(y, "y"), GmIn(sel, "sel"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (CMP_LEN,), "z"),
            GmOut(np.dtype(np.uint8), (CMP_LEN // 8,), "mask"), CMPSEL_TILING(len=CMP_LEN, **tiling)]
    return kernels.run("api_cmpsel", {"DTYPE": dtype}, args, ok=ok)


def bits_of(flags: np.ndarray) -> np.ndarray:
    return np.packbits(flags.astype(bool), bitorder="little")


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("mode", CMP_MODES)
def test_compare_count_form(kernels, dtype, mode):
    """Compare / Compares write bit i of dst (LSB first in each byte) = src0[i] cmp src1[i]."""
    x, y, sel, z0 = cmpsel_inputs(dtype)
    n = 1024 if dtype == "half" else 512  # count * sizeof(T) a multiple of 256 bytes
    r = run_cmpsel(kernels, dtype, x, y, sel, z0, form=0, mode=CMP_MODES.index(mode), count=n)
    want = sel.copy()
    want[: n // 8] = bits_of(CMP_FN[mode](x[:n], y[:n]))
    assert_same(r.outputs[1], want, f"Compare {mode}")
    assert_same(r.outputs[0], z0, "Compare leaves other tensors alone")
    s = 0.5
    r = run_cmpsel(kernels, dtype, x, y, sel, z0, form=1, mode=CMP_MODES.index(mode), count=n, scalar=s)
    want[: n // 8] = bits_of(CMP_FN[mode](x[:n], NP[dtype](s)))
    assert_same(r.outputs[1], want, f"Compares {mode}")


@pytest.mark.parametrize("mode", CMP_MODES)
def test_compare_int32_eq_only(kernels, mode):
    """int32_t operands: Compare/Compares support CMPMODE::EQ only (ascendc.md §5.9); other modes are an
    `unsupported` fault."""
    rng = rng_for("cmp int32")
    x = rng.integers(-3, 4, CMP_LEN).astype(np.int32)
    y = rng.integers(-3, 4, CMP_LEN).astype(np.int32)
    sel = rng.integers(0, 256, CMP_LEN // 8).astype(np.uint8)
    z0 = np.zeros(CMP_LEN, np.int32)
    for form in (0, 1):
        r = run_cmpsel(kernels, "int32_t", x, y, sel, z0, ok=mode == "EQ", form=form, mode=CMP_MODES.index(mode),
                       count=512, scalar=1)
        if mode != "EQ":
            assert [f.cls for f in r.faults] == ["unsupported"], r.faults
            continue
        want = sel.copy()
        want[:64] = bits_of(x[:512] == (y[:512] if form == 0 else 1))
        assert_same(r.outputs[1], want, f"int32 {'Compare' if form == 0 else 'Compares'} EQ")


def test_compare_unaligned_count_leaves_the_remainder(kernels):
    """count*sizeof(T) not a multiple of 256 bytes: only whole 256-byte repeats are compared (the NPU leaves
    the remainder uncomputed); the simulator warns."""
    x, y, sel, z0 = cmpsel_inputs("half")
    r = run_cmpsel(kernels, "half", x, y, sel, z0, form=0, mode=CMP_MODES.index("LE"), count=1000)
    want = sel.copy()
    want[:112] = bits_of(np.less_equal(x[:896], y[:896]))
    assert_same(r.outputs[1], want, "Compare count 1000 -> 896 elements")
    assert any("256 bytes" in w for w in r.warnings), r.warnings


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("mode", SEL_MODES)
def test_select(kernels, dtype, mode):
    """Select: selMask bit 1 takes src0, 0 takes src1 (the scalar in TENSOR_SCALAR mode). TENSOR_* modes
    consume consecutive bits; VSEL_CMPMASK_SPR reuses the first 256/sizeof(T) bits in every repeat
    (ascendc.md §5.9)."""
    x, y, sel, z0 = cmpsel_inputs(dtype)
    dt = NP[dtype]
    n = 1000
    s = -7.75
    scalar_mode = mode == "VSEL_TENSOR_SCALAR_MODE"
    r = run_cmpsel(kernels, dtype, x, y, sel, z0, form=3 if scalar_mode else 2, mode=SEL_MODES.index(mode),
                   count=n, scalar=s)
    flags = np.unpackbits(sel, bitorder="little").astype(bool)
    if mode == "VSEL_CMPMASK_SPR":
        flags = flags[np.arange(CMP_LEN) % lanes_of(dt)]
    other = np.full(CMP_LEN, s, dt) if scalar_mode else y
    want = z0.copy()
    want[:n] = np.where(flags[:n], x[:n], other[:n])
    assert_same(r.outputs[0], want, f"Select {mode}")


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_compare_then_select(kernels, dtype):
    """The min idiom: Compare(LT) into a mask, then Select(TENSOR_TENSOR) with it."""
    x, y, sel, z0 = cmpsel_inputs(dtype)
    rng = rng_for("cmpsel min", dtype)
    x = rng.uniform(-100, 100, CMP_LEN).astype(NP[dtype])
    n = CMP_LEN
    r = run_cmpsel(kernels, dtype, x, y, sel, z0, form=4, count=n)
    assert_same(r.outputs[0], np.minimum(x, y), "Select(Compare LT) = min")
    assert_same(r.outputs[1], bits_of(x < y), "mask")


# ---------------------------------------------------------------------------------------------------------
# (8) Data movement


COPY_TILING = Tiling("form len outLen count blockCount blockLen srcStride dstStride outSrcStride outDstStride "
                     "isPad leftPadding rightPadding padBits", scalar=True)
COPY_LEN = 2048


def copy_inputs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Random bit patterns with no zero byte, so bytes a copy must not touch (zero in the output) show."""
    rng = rng_for("copy", dtype)
    es = np.dtype(NP[dtype]).itemsize
    x = rng.integers(1, 256, COPY_LEN * es, dtype=np.int32).astype(np.uint8).view(NP[dtype])
    z0 = rng.integers(1, 256, COPY_LEN * es, dtype=np.int32).astype(np.uint8).view(NP[dtype])
    return x, z0


def run_copy(kernels, dtype, x, z0, out_len: int, scalar: float = 0.0, **tiling) -> np.ndarray:
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (out_len,), "z"),
            COPY_TILING(len=x.size, outLen=out_len, scalar=scalar, **tiling)]
    return kernels.run("api_copy", {"DTYPE": dtype}, args).outputs[0].view(np.uint8)


def round32(n: int) -> int:
    return (n + 31) // 32 * 32


COPY_TYPES = ["half", "float"]


@pytest.mark.parametrize("dtype", COPY_TYPES)
def test_data_copy_count_form(kernels, dtype):
    x, z0 = copy_inputs(dtype)
    n = 1024 - 32 // np.dtype(NP[dtype]).itemsize  # a multiple of 32 bytes, not of 256
    z = run_copy(kernels, dtype, x, z0, COPY_LEN, form=0, count=n)
    nb = n * np.dtype(NP[dtype]).itemsize
    assert_same(z[:nb], x.view(np.uint8)[:nb], "copied bytes")
    assert not z[nb:].any(), "GM past count must be untouched"


@pytest.mark.parametrize("dtype", COPY_TYPES)
@pytest.mark.parametrize("rows,blk,src_gap,dst_gap,out_gap", [(5, 2, 1, 0, 3), (3, 4, 0, 2, 0), (8, 1, 5, 1, 2)])
def test_data_copy_params_gaps(kernels, dtype, rows, blk, src_gap, dst_gap, out_gap):
    """DataCopyParams: blockCount blocks of blockLen 32-byte units; srcStride/dstStride are end-to-start
    gaps in 32-byte units on both sides (ascendc.md §4.3). GM -> UB gathers rows past a source gap into UB
    rows dst_gap apart; UB -> GM reads them back (srcStride = the same UB gap) and scatters them out_gap
    apart."""
    x, z0 = copy_inputs(dtype)
    xb = x.view(np.uint8)
    out_len = COPY_LEN
    z = run_copy(kernels, dtype, x, z0, out_len, form=1, blockCount=rows, blockLen=blk, srcStride=src_gap,
                 dstStride=dst_gap, outSrcStride=dst_gap, outDstStride=out_gap)
    want = np.zeros_like(z)
    w = blk * 32
    for i in range(rows):
        want[i * (w + out_gap * 32):][:w] = xb[i * (w + src_gap * 32):][:w]
    assert_same(z, want, "rows gathered and scattered")


@pytest.mark.parametrize("dtype", COPY_TYPES)
@pytest.mark.parametrize("rows,blk,src_gap,dst_gap", [(4, 3, 2, 1), (6, 1, 0, 3), (2, 8, 4, 0)])
def test_data_copy_ub_to_ub(kernels, dtype, rows, blk, src_gap, dst_gap):
    """UB -> UB: the count form copies the seed, then the DataCopyParams form writes rows with gaps on top;
    the gap bytes keep the seed."""
    x, z0 = copy_inputs(dtype)
    xb, zb = x.view(np.uint8), z0.view(np.uint8)
    z = run_copy(kernels, dtype, x, z0, COPY_LEN, form=2, blockCount=rows, blockLen=blk, srcStride=src_gap,
                 dstStride=dst_gap)
    want = zb.copy()
    w = blk * 32
    for i in range(rows):
        want[i * (w + dst_gap * 32):][:w] = xb[i * (w + src_gap * 32):][:w]
    assert_same(z, want, "UB->UB rows")


def pad_in_expect(x, z0, es, rows, blen, src_gap, dst_gap, left, right, is_pad, pad_bytes):
    """UB after DataCopyPad GM->UB (then copied out): block i starts at i*(round32(blockLen+pads) +
    dstStride*32) bytes and holds [left pad][blockLen data bytes][right pad]; with isPad every other byte of the
    32-byte-rounded block is the padding value too. Returns (expected bytes, which bytes are defined)."""
    xb, want = x.view(np.uint8), z0.view(np.uint8).copy()
    defined = np.ones(want.size, bool)
    foot = round32(blen + (left + right) * es)
    for i in range(rows):
        start = i * (foot + dst_gap * 32)
        block = np.tile(np.frombuffer(pad_bytes, np.uint8), foot // es)
        block[left * es:left * es + blen] = xb[i * (blen + src_gap):][:blen]
        want[start:start + foot] = block
        if not is_pad:  # padding bytes are unspecified ("dummy") without isPad
            defined[start:start + foot] = False
            defined[start + left * es:start + left * es + blen] = True
    return want, defined


PAD_CASES = [
    # rows, blockLen bytes, GM srcStride bytes, UB dstStride blocks, left, right, isPad
    (3, 10, 6, 0, 0, 0, 1),
    (4, 22, 0, 1, 2, 3, 1),
    (2, 40, 14, 2, 1, 0, 1),
    (5, 6, 2, 0, 0, 4, 0),
]


@pytest.mark.parametrize("dtype", COPY_TYPES)
@pytest.mark.parametrize("case", range(len(PAD_CASES)))
@pytest.mark.parametrize("ext", [True, False])
def test_data_copy_pad_gm_to_ub(kernels, dtype, case, ext):
    """DataCopyPad GM->UB, with DataCopyExtParams + DataCopyPadExtParams<T> (ext) and with DataCopyParams +
    DataCopyPadParams: blockLen and the GM srcStride in bytes, the UB dstStride in 32-byte blocks, left/right
    padding in elements. Choice (ascendc.md §4.4 leaves it open): with isPad, the whole rest of each
    32-byte-rounded UB block is paddingValue, not only leftPadding/rightPadding elements. The DataCopyPadParams
    paddingValue (uint64_t) holds the raw bits of the element (asc-devkit passes it to set_mov_pad_val as is)."""
    rows, blen, src_gap, dst_gap, left, right, is_pad = PAD_CASES[case]
    dt = NP[dtype]
    es = np.dtype(dt).itemsize
    blen = blen // es * es if blen % es else blen  # a whole number of elements
    x, z0 = copy_inputs(dtype)
    value = -1.5
    pad_bytes = np.array([value], dt).tobytes()
    pad_bits = int.from_bytes(pad_bytes, "little")
    z = run_copy(kernels, dtype, x, z0, COPY_LEN, scalar=value, form=3 if ext else 4, blockCount=rows,
                 blockLen=blen, srcStride=src_gap, dstStride=dst_gap, isPad=is_pad, leftPadding=left,
                 rightPadding=right, padBits=pad_bits)
    want, defined = pad_in_expect(x, z0, es, rows, blen, src_gap, dst_gap, left, right, is_pad, pad_bytes)
    assert_same(z[defined], want[defined], f"DataCopyPad GM->UB {PAD_CASES[case]} ext={ext}")


@pytest.mark.parametrize("dtype", COPY_TYPES)
@pytest.mark.parametrize("rows,blen,src_gap,dst_gap", [(3, 10, 0, 6), (4, 36, 1, 0), (6, 4, 2, 17)])
@pytest.mark.parametrize("ext", [True, False])
def test_data_copy_pad_ub_to_gm(kernels, dtype, rows, blen, src_gap, dst_gap, ext):
    """DataCopyPad UB->GM writes exactly blockLen bytes per block: UB block i starts at
    i*(round32(blockLen) + srcStride*32), GM block i at i*(blockLen + dstStride) bytes; every other GM byte
    is untouched."""
    dt = NP[dtype]
    es = np.dtype(dt).itemsize
    blen = blen // es * es
    x, z0 = copy_inputs(dtype)
    xb = x.view(np.uint8)
    z = run_copy(kernels, dtype, x, z0, COPY_LEN, form=5 if ext else 6, blockCount=rows, blockLen=blen,
                 srcStride=src_gap, dstStride=dst_gap)
    want = np.zeros_like(z)
    for i in range(rows):
        want[i * (blen + dst_gap):][:blen] = xb[i * (round32(blen) + src_gap * 32):][:blen]
    assert_same(z, want, "DataCopyPad UB->GM")


# ---------------------------------------------------------------------------------------------------------
# (9) Mask register helpers with isSetMask = false


MASK_TILING = Tiling("setup op len count repeat maskHi maskLo", scalar=True)
MASK_SETUPS = ["counter", "bits", "reset", "len", "counter_len", "own_mask", "after_count_form", "after_own_mask"]
MASK_OPS = ["Add", "Muls", "Duplicate", "Exp", "WholeReduceSum", "BlockReduceSum", "AddMaskArray"]
MASK_CASES = [(t, setup, op) for t in ("half", "float") for setup in MASK_SETUPS for op in MASK_OPS
              if setup != "own_mask"]
MASK_LEN = 2048


def mask_inputs(dtype: str):
    rng = rng_for("mask", dtype)
    dt = NP[dtype]
    x = rng.integers(-4, 5, MASK_LEN).astype(dt)  # integer values: sums exact in any order
    y = rng.uniform(-10, 10, MASK_LEN).astype(dt)
    z0 = rng.uniform(-10, 10, MASK_LEN).astype(dt)
    return x, y, z0


def run_mask(kernels, dtype, x, y, z0, **tiling) -> np.ndarray:
    args = [GmIn(x, "x"), GmIn(y, "y"), GmIn(z0, "z0"), GmOut(np.dtype(NP[dtype]), (MASK_LEN,), "z"),
            MASK_TILING(len=MASK_LEN, scalar=2.5, **tiling)]
    return kernels.run("api_mask", {"DTYPE": dtype}, args).outputs[0]


def active_per_repeat(dtype, setup: str, count: int, repeat: int, hi: int, lo: int) -> list[list[int]]:
    """Active lanes of each repeat under the mask register: counter mode covers the first `count` elements
    (repeats as many as needed, the repeatTime argument ignored); normal mode applies the same lanes to each
    of `repeat` repeats."""
    n = lanes_of(dtype)
    if setup.startswith("counter"):
        reps = -(-count // n)
        return [list(range(min(n, count - r * n))) for r in range(reps)]
    lanes = {"bits": mask_lanes(dtype, bits=(lo, hi)), "reset": list(range(n)), "after_count_form": list(range(n)),
             "len": mask_lanes(dtype, count=count), "after_own_mask": mask_lanes(dtype, count=count)}[setup]
    return [lanes] * repeat


@pytest.mark.parametrize("dtype,setup,op", MASK_CASES)
def test_mask_register(kernels, dtype, setup, op):
    """SetMaskCount + SetVectorMask<T, COUNTER>(0, n) / SetVectorMask<T, COUNTER>(n), SetMaskNorm +
    SetVectorMask<T>(hi, lo) (high word first) / SetVectorMask<T>(len), and ResetMask (all lanes), read by
    APIs called as Api<T, false>(..., MASK_PLACEHOLDER, ...) (ascendc.md §5.1, §5.10). As in the asc-devkit
    implementations, a count-form API leaves the register in normal mode with every lane set
    (after_count_form), and an API given its own mask (isSetMask = true) leaves that mask in the register
    (after_own_mask)."""
    dt = NP[dtype]
    x, y, z0 = mask_inputs(dtype)
    count = {"counter": 3 * lanes_of(dt) + 29, "counter_len": 700, "len": lanes_of(dt) - 19,
             "after_count_form": 100, "after_own_mask": lanes_of(dt) - 23}.get(setup, 0)
    hi, lo = 0x8000_0000_0000_00F1, 0x0123_4567_89AB_CDEF
    repeat = 1 if setup.startswith("counter") else 3
    if op == "BlockReduceSum" and setup in ("bits", "after_own_mask"):
        lo = 0x0101_0101_0101_0101  # every block of a repeat keeps an active lane
        hi = 0x8000_8000_8000_8001
    z = run_mask(kernels, dtype, x, y, z0, setup=MASK_SETUPS.index(setup), op=MASK_OPS.index(op), count=count,
                 repeat=repeat, maskHi=hi, maskLo=lo)
    plan = active_per_repeat(dt, setup, count, repeat, hi, lo)
    n = lanes_of(dt)
    want = z0.copy()
    idx = np.array([r * n + lane for r, lanes in enumerate(plan) for lane in lanes], dtype=np.int64)
    if op in ("Add", "AddMaskArray"):
        want[idx] = ref_binary("Add", x[idx], y[idx])
    elif op == "Muls":
        want[idx] = ref_scalar("Muls", x[idx], 2.5)
    elif op == "Duplicate":
        want[idx] = 2.5
    elif op == "Exp":
        untouched = np.ones(MASK_LEN, bool)
        untouched[idx] = False
        assert_same(z[untouched], z0[untouched], "Exp: inactive lanes")
        assert_close_unary("Exp", z[idx], x[idx], "Exp under the mask register")
        return
    elif op == "WholeReduceSum":
        for r, lanes in enumerate(plan):
            want[r] = x[[r * n + lane for lane in lanes]].astype(np.float64).sum()
    else:  # BlockReduceSum; what a block without active lanes gets is not documented: left unchecked
        per = 32 // np.dtype(dt).itemsize
        defined = np.ones(MASK_LEN, bool)
        for r, lanes in enumerate(plan):
            for b in range(8):
                block = [r * n + lane for lane in lanes if lane // per == b]
                want[r * 8 + b] = x[block].astype(np.float64).sum()
                defined[r * 8 + b] = bool(block)
        assert defined.sum() > MASK_LEN - 8
        assert_same(z[defined], want[defined], f"{op} with the mask register ({setup})")
        return
    assert_same(z, want, f"{op} with the mask register ({setup})")


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_own_mask_ignores_the_register(kernels, dtype):
    """An API called with isSetMask = true (the default) uses the mask it is given, whatever SetVectorMask
    left in the register."""
    dt = NP[dtype]
    x, y, z0 = mask_inputs(dtype)
    mask = lanes_of(dt) - 3
    z = run_mask(kernels, dtype, x, y, z0, setup=MASK_SETUPS.index("own_mask"), count=mask, repeat=2)
    want = z0.copy()
    idx = np.array([r * lanes_of(dt) + lane for r in range(2) for lane in range(mask)])
    want[idx] = ref_binary("Add", x[idx], y[idx])
    assert_same(z, want, "own mask")


@pytest.mark.parametrize("dtype", COPY_TYPES)
def test_data_copy_zero_blocks_is_a_no_op(kernels, dtype):
    """blockCount or blockLen 0 moves nothing (ascendc.md §4.4)."""
    x, z0 = copy_inputs(dtype)
    for form in (3, 4):
        for rows, blen in ((0, 10), (3, 0)):
            z = run_copy(kernels, dtype, x, z0, COPY_LEN, form=form, blockCount=rows, blockLen=blen, isPad=1,
                         rightPadding=1, padBits=0x1111)
            assert_same(z, z0.view(np.uint8), f"DataCopyPad GM->UB blockCount {rows} blockLen {blen}")
    z = run_copy(kernels, dtype, x, z0, COPY_LEN, form=5, blockCount=0, blockLen=64)
    assert not z.any(), "DataCopyPad UB->GM with blockCount 0"
    z = run_copy(kernels, dtype, x, z0, COPY_LEN, form=1, blockCount=4, blockLen=0)
    assert not z.any(), "DataCopy with blockLen 0"


def test_data_copy_count_not_32_byte_multiple_faults(kernels):
    """DataCopy's count form needs count*sizeof(T) to be a multiple of 32 bytes; the NPU silently drops the
    tail, the simulator (like CANN's CPU debug mode) stops with a `misaligned` fault naming DataCopy."""
    x, z0 = copy_inputs("half")
    args = [GmIn(x, "x"), GmIn(z0, "z0"), GmOut(np.dtype(np.float16), (COPY_LEN,), "z"),
            COPY_TILING(len=x.size, outLen=COPY_LEN, form=0, count=1000 + 5)]
    r = kernels.run("api_copy", {"DTYPE": "half"}, args, ok=False)
    assert [f.cls for f in r.faults] == ["misaligned"], r.faults
    assert r.faults[0].api == "DataCopy"
