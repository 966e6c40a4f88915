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
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tuner.data.socs import get_soc
from tuner.sim.args import GmIn, GmOut, Struct
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
    return np.random.default_rng(abs(hash(repr(key))) % 2**32)


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
    return r.astype(dt)


def binary_inputs(dtype: str, op: str, n: int = BIN_LEN):
    dt = NP[dtype]
    rng = rng_for("binary", dtype, op)
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


@pytest.mark.parametrize("dtype,op", BINARY_CASES)
def test_binary_count_form(kernels, dtype, op):
    x, y, z0 = binary_inputs(dtype, op)
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
# (10) Rounding of half results


def half_ties(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (a, b) of halves with b = +-ulp(a)/2: the exact sum (also exact in float) is a tie between two
    adjacent halves (except a - ulp/2 at a power of two, which is exact)."""
    a = rng.uniform(1, 1000, n).astype(np.float16)
    half_ulp = (np.spacing(a).astype(np.float32) / 2).astype(np.float16)
    return a, np.where(rng.random(n) < 0.5, half_ulp, -half_ulp).astype(np.float16)


def test_half_add_ties_round_to_even(kernels):
    rng = rng_for("ties")
    a, b = half_ties(rng, BIN_LEN)
    z0 = np.zeros(BIN_LEN, np.float16)
    z = run_binary(kernels, "half", "Add", a, b, z0, form=0, count=BIN_LEN)
    exact = a.astype(np.float64) + b.astype(np.float64)
    lo = exact.astype(np.float16)  # numpy rounds float64 -> half to nearest even in one step
    assert_same(z, lo, "ties to even")
    # Not ties-away: for about half of the cases the result is the neighbour toward zero.
    away = np.where(np.abs(lo.astype(np.float64)) < np.abs(exact), True, False)
    assert away.any() and (~away).any()
    # Overflow: 65504 + 16 is the tie between 65504 (odd mantissa) and 65536 -> rounds to inf.
    a2 = np.full(BIN_LEN, 65504, np.float16)
    b2 = np.full(BIN_LEN, 16, np.float16)
    z = run_binary(kernels, "half", "Add", a2, b2, z0, form=0, count=BIN_LEN)
    assert np.all(np.isinf(z)) and np.all(z > 0)
    b2[:] = 15.5  # just under the tie: stays 65504
    b2 = b2.astype(np.float16)
    z = run_binary(kernels, "half", "Add", a2, b2, z0, form=0, count=BIN_LEN)
    assert_same(z, (f32(a2) + f32(b2)).astype(np.float16), "below the overflow tie")
