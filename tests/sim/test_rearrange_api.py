"""Semantics of the data-rearrangement, reduce and sort APIs added in issue 16 (Gather, Gatherb, GatherMask,
Transpose, Sort32, MrgSort, Interleave/DeInterleave, ShiftLeft/ShiftRight, Axpy, CreateVecIndex, PairReduceSum,
ReducePairElem, RepeatReduceSum, ReduceRepeat, ReduceDataBlock and the reduce special registers).

Real Ascend C kernels (tests/sim/kernels/rearrange/) run through the simulator's build and run steps; their
outputs are compared with numpy references written from asc-devkit's API pages (docs/zh/api/SIMD-API/基础API/
Memory矢量计算/...) and the golden data of its examples, not from the simulator's code. Each API also has a fault
case (an operand past its buffer) and its SoC restrictions are compile errors naming it.
Where the pages leave a semantics open, the choice is written next to the test as "Choice:".
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Struct
from tuner.data.socs import get_soc
from tuner.errors import CompileError
from tuner.sim.build import Executable, build_kernel
from tuner.sim.run import SimResult, run_executable, simulate

KERNELS = Path(__file__).resolve().parent / "kernels" / "rearrange"
A2, P310, S950 = "Ascend910B1", "Ascend310P3", "Ascend950PR_9589"
NP = {"half": np.float16, "float": np.float32, "int16_t": np.int16, "uint16_t": np.uint16, "int32_t": np.int32,
      "uint32_t": np.uint32, "int8_t": np.int8, "uint8_t": np.uint8}


class Kernels:
    """Builds each (kernel, defines, SoC) once per session and runs it on one block."""

    def __init__(self) -> None:
        self._exes: dict[tuple, Executable] = {}

    def run(self, name: str, defines: dict[str, str], args: list, *, soc: str = A2, ok: bool = True) -> SimResult:
        key = (name, tuple(sorted(defines.items())), soc)
        if key not in self._exes:
            self._exes[key] = build_kernel(KERNELS / f"{name}.cpp", name, get_soc(soc),
                                           [f"{k}={v}" for k, v in sorted(defines.items())])
        result = run_executable(self._exes[key], args, 1)
        if ok:
            assert result.ok, [f.text for f in result.faults]
        return result


@pytest.fixture(scope="module")
def kernels() -> Kernels:
    return Kernels()


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def tiling(fields: str, values: dict, scalar: float | None = None) -> Struct:
    names = fields.split()
    unknown = set(values) - set(names)
    assert not unknown, unknown
    data = struct.pack("<" + "Q" * len(names), *[int(values.get(f, 0)) & (2**64 - 1) for f in names])
    if scalar is not None:
        data += struct.pack("<d", scalar)
    return Struct(data)


def pad32(b: bytes, n: int | None = None) -> np.ndarray:
    n = max(n or 0, len(b))
    n = (n + 31) // 32 * 32
    return np.frombuffer(b + bytes(n - len(b)), np.uint8).copy()


def assert_same(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    got, want = np.asarray(got), np.asarray(want).astype(np.asarray(got).dtype)
    bad = ~((got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else (got == want))
    if bad.any():
        idx = np.flatnonzero(bad)[:8]
        pytest.fail(f"{what}: {bad.sum()} of {bad.size} differ; first at {idx.tolist()}: "
                    f"got {got.ravel()[idx].tolist()} want {want.ravel()[idx].tolist()}")


def values(rng, dtype, n: int) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, endpoint=True).astype(dt)
    return rng.integers(-1000, 1000, n).astype(dt) / dt.type(8)


def faults(result: SimResult) -> list[str]:
    return [f"{f.cls}: {f.text}" for f in result.faults]


# ---------------------------------------------------------------------------------------------------------
# Gather / Gatherb / GatherMask

GATHER = ("form xBytes yBytes zBytes count repeat mask0 mask1 base dstBlk dstRep src0Blk src0Rep src1Rep reduceMode "
          "srcView")


def run_gather(kernels, dtype, x: np.ndarray, y: bytes, z0: np.ndarray, soc=A2, ok=True, **t) -> SimResult:
    xb, yb, zb = x.tobytes(), y, z0.tobytes()
    n = max(len(xb), len(yb))
    n = (n + 31) // 32 * 32
    args = [GmIn(pad32(xb, n)), GmIn(pad32(yb, n)), GmIn(pad32(zb)), GmOut(np.dtype(np.uint8), (len(pad32(zb)),))]
    t.update(xBytes=n, yBytes=n, zBytes=len(pad32(zb)))
    return kernels.run("rearrange_gather", {"DTYPE": dtype}, [*args, tiling(GATHER, t)], soc=soc, ok=ok)


@pytest.mark.parametrize("dtype", ["half", "float", "int32_t", "uint16_t"])
def test_gather_count_form(kernels, dtype):
    """Gather.md: dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)], offsets in bytes."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    for trial in range(3):
        rng = rng_for("gather", dtype, trial)
        src = values(rng, t, 512)
        count = int(rng.integers(1, 300))
        base = int(rng.integers(0, 64)) * es
        idx = rng.integers(0, 512 - base // es, count)
        z0 = values(rng, t, 320)
        out = run_gather(kernels, dtype, src, (idx * es).astype(np.uint32).tobytes(), z0, form=0, count=count,
                         base=base).outputs[0].view(t)
        want = z0.copy()
        want[:count] = src[base // es + idx]
        assert_same(out[:320], want, f"{dtype} trial {trial}")


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_gather_mask_forms(kernels, dtype):
    """Gather.md mask forms: lane i of repeat r takes srcOffset[r * lanes + i] and lands at dst + r * dstRepStride
    blocks + i; lanes outside the mask keep dst."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    lanes = 256 // es
    for form, trial in [(1, 0), (1, 1), (2, 0), (2, 1)]:
        rng = rng_for("gather-mask", dtype, form, trial)
        repeat = int(rng.integers(1, 4))
        dst_rep = int(rng.choice([8, 10, 16]))
        src = values(rng, t, 1024)
        idx = rng.integers(0, 1024, repeat * lanes)
        z_len = (repeat - 1) * dst_rep * 32 // es + lanes + 32
        z0 = values(rng, t, z_len)
        if form == 1:
            k = int(rng.integers(1, lanes + 1))
            active = list(range(k))
            extra = {"count": k}
        else:
            m0, m1 = int(rng.integers(0, 2**63)) | 1, int(rng.integers(0, 2**63)) if es == 2 else 0
            active = [i for i in range(lanes) if ((m0 >> i) & 1 if i < 64 else (m1 >> (i - 64)) & 1)]
            extra = {"mask0": m0, "mask1": m1}
        out = run_gather(kernels, dtype, src, (idx * es).astype(np.uint32).tobytes(), z0, form=form, repeat=repeat,
                         dstRep=dst_rep, **extra).outputs[0].view(t)
        want = z0.copy()
        for r in range(repeat):
            for i in active:
                want[r * dst_rep * 32 // es + i] = src[idx[r * lanes + i]]
        assert_same(out[:z_len], want, f"{dtype} form {form} trial {trial}")


@pytest.mark.parametrize("dtype", ["uint16_t", "uint32_t"])
def test_gatherb(kernels, dtype):
    """Gatherb(ISASI).md: block j of repeat r is the 32 bytes at src + offset[r*8 + j], written at dst +
    (r * dstRepStride + j * dstBlkStride) blocks (dstBlkStride 0 counts as 1)."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    for trial, (blk, rep) in enumerate([(1, 8), (0, 8), (2, 16)]):
        rng = rng_for("gatherb", dtype, trial)
        repeat = int(rng.integers(1, 4))
        src = values(rng, t, 2048 // es * 2)
        blocks = rng.integers(0, len(src) * es // 32, repeat * 8)
        step = blk or 1
        z_len = ((repeat - 1) * rep + 7 * step + 1) * 32 // es
        z0 = values(rng, t, z_len)
        out = run_gather(kernels, dtype, src, (blocks * 32).astype(np.uint32).tobytes(), z0, form=3, repeat=repeat,
                         dstBlk=blk, dstRep=rep).outputs[0].view(t)
        want = z0.copy()
        per = 32 // es
        for r in range(repeat):
            for j in range(8):
                at = (r * rep + j * step) * per
                want[at:at + per] = src[blocks[r * 8 + j] * per:(blocks[r * 8 + j] + 1) * per]
        assert_same(out[:z_len], want, f"{dtype} blk {blk} rep {rep}")


def test_gather_faults(kernels):
    src = np.arange(256, dtype=np.float32)
    z0 = np.zeros(64, np.float32)
    # An offset past the source buffer (the source view starts 64 elements before its end).
    offs = np.array([0, 4, 8, 256], np.uint32)
    r = run_gather(kernels, "float", src, offs.tobytes(), z0, ok=False, form=0, count=4, srcView=192)
    assert any("out-of-bounds" in f and "src" in f for f in faults(r)), faults(r)
    # An offset that is not a multiple of the element size.
    r = run_gather(kernels, "float", src, np.array([0, 6], np.uint32).tobytes(), z0, ok=False, form=0, count=2)
    assert any("misaligned" in f and "srcOffset[1]" in f for f in faults(r)), faults(r)
    # More offsets than the offset tensor's buffer holds.
    r = run_gather(kernels, "float", src, np.zeros(8, np.uint32).tobytes(), z0, ok=False, form=0, count=400)
    assert any("out-of-bounds" in f for f in faults(r)), faults(r)
    # Gatherb: a block offset off the 32-byte grid.
    r = run_gather(kernels, "uint32_t", src.view(np.uint32), np.array([16] + [0] * 7, np.uint32).tobytes(),
                   z0.view(np.uint32), ok=False, form=3, repeat=1, dstBlk=1, dstRep=8)
    assert any("misaligned" in f and "offset[0]" in f for f in faults(r)), faults(r)


def builtin_bits(pattern: int, n: int) -> np.ndarray:
    k = np.arange(n)
    return {1: k % 2 == 0, 2: k % 2 == 1, 7: np.ones(n, bool)}.get(pattern, k % 4 == pattern - 3)


@pytest.mark.parametrize("dtype", ["float", "half", "int16_t"])
def test_gather_mask_builtin_patterns(kernels, dtype):
    """GatherMask.md built-in patterns 1..7 in normal mode: per 256-byte repeat (src0 at src0RepeatStride blocks),
    the selected elements are packed into dst; rsvdCnt counts them. Example of the page: pattern 2 over
    1..256 (float, 4 repeats) keeps 2, 4, ..., 256 and rsvdCnt 128."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    lanes = 256 // es
    for pattern in range(1, 8):
        rng = rng_for("gm-builtin", dtype, pattern)
        repeat = int(rng.integers(1, 5))
        src_rep = int(rng.choice([8, 12]))
        src = values(rng, t, 2048 // es)
        z0 = values(rng, t, repeat * lanes + 32 // es)
        out = run_gather(kernels, dtype, src, b"", z0, form=5, base=pattern, repeat=repeat, src0Blk=1,
                         src0Rep=src_rep).outputs[0]
        picked = np.concatenate([src[r * src_rep * 32 // es:][:lanes][builtin_bits(pattern, lanes)]
                                 for r in range(repeat)])
        want = z0.copy()
        want[:len(picked)] = picked
        got = out.view(t)
        assert_same(got[:len(z0) - 8 // es], want[:len(z0) - 8 // es], f"{dtype} pattern {pattern}")
        assert int(out[-8:].view(np.uint64)[0]) == len(picked)
    # The page's example.
    src = np.arange(1, 257, dtype=np.float32)
    out = run_gather(kernels, "float", src, b"", np.zeros(264, np.float32), form=5, base=2, repeat=4, src0Blk=1,
                     src0Rep=8).outputs[0]
    assert_same(out.view(np.float32)[:128], np.arange(2, 257, 2, dtype=np.float32), "page example")
    assert int(out[-8:].view(np.uint64)[0]) == 128


def test_gather_mask_user_pattern(kernels):
    """GatherMask.md user pattern: bits read LSB first, each repeat's from src1RepeatStride blocks on. Counter
    mode reproduces the gather example's scenario 2 golden (uint32, mask 70, {1, 2, 4, 0}, pattern 0x7E7C00A5);
    normal mode with random patterns and strides is checked the same way."""
    rng = rng_for("gm-user")
    src = rng.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    pattern = np.full(32, 0x7E7C00A5, np.uint32)
    bits = np.unpackbits(pattern.view(np.uint8), bitorder="little").astype(bool)
    golden = np.zeros(256, np.uint32)
    at = 0
    for i in range(2):
        sel = src[i * 4 * 8:i * 4 * 8 + 70][bits[:70]]
        golden[at:at + len(sel)] = sel
        at += len(sel)
    out = run_gather(kernels, "uint32_t", src, pattern.tobytes(), np.zeros(260, np.uint32), form=4, count=70,
                     repeat=2, src0Blk=1, src0Rep=4, src1Rep=0, reduceMode=1).outputs[0]
    assert_same(out.view(np.uint32)[:256], golden, "example scenario 2")
    assert int(out[-8:].view(np.uint64)[0]) == at
    for dtype in ["half", "float"]:
        t = NP[dtype]
        es = np.dtype(t).itemsize
        lanes = 256 // es
        for trial in range(2):
            rng = rng_for("gm-user", dtype, trial)
            repeat, src1_rep = int(rng.integers(1, 4)), int(rng.choice([0, 1, 2]))
            src = values(rng, t, repeat * lanes)
            pat = rng.integers(0, 256, 32 * 8, dtype=np.uint8)
            bits = np.unpackbits(pat, bitorder="little").astype(bool)
            picked = np.concatenate([src[r * lanes:(r + 1) * lanes][bits[r * src1_rep * 256:][:lanes]]
                                     for r in range(repeat)])
            z0 = values(rng, t, repeat * lanes + 32 // es)
            out = run_gather(kernels, dtype, src, pat.tobytes(), z0, form=4, repeat=repeat, src0Blk=1, src0Rep=8,
                             src1Rep=src1_rep).outputs[0]
            want = z0.copy()
            want[:len(picked)] = picked
            assert_same(out.view(t)[:repeat * lanes], want[:repeat * lanes], f"{dtype} trial {trial}")
            assert int(out[-8:].view(np.uint64)[0]) == len(picked)


def test_gather_mask_faults(kernels):
    src = np.arange(64, dtype=np.float32)
    # src0 runs past its buffer: 4 repeats of 256 bytes over a 256-byte source.
    r = run_gather(kernels, "float", src, b"", np.zeros(264, np.float32), ok=False, form=5, base=7, repeat=4,
                   src0Blk=1, src0Rep=8)
    assert any("out-of-bounds" in f and "src0" in f for f in faults(r)), faults(r)
    # Pattern 0 is not a pattern; pattern 7 is not on 310P.
    r = run_gather(kernels, "float", src, b"", np.zeros(72, np.float32), ok=False, form=5, base=0, repeat=1,
                   src0Blk=1, src0Rep=8)
    assert any("unsupported" in f and "pattern 0" in f for f in faults(r)), faults(r)
    r = run_gather(kernels, "float", src, b"", np.zeros(72, np.float32), soc=P310, ok=False, form=5, base=7,
                   repeat=1, src0Blk=1, src0Rep=8)
    assert any("unsupported" in f and "pattern 7" in f for f in faults(r)), faults(r)


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_compare_into_cmp_mask(kernels, dtype):
    """Compare（结果存入寄存器）.md + GetCmpMask(ISASI).md: one 256-byte repeat compared into the 128-bit CmpMask
    register, read back as 16 bytes (bit i = lane i, LSB first). As the compare example's golden (scenario 2,
    64 floats) has it, bits past the lanes read 0. Choice: lanes outside the mask read 0 too."""
    t = NP[dtype]
    lanes = 256 // np.dtype(t).itemsize
    ops = [np.less, np.greater, np.equal, np.less_equal, np.greater_equal, np.not_equal]  # CMPMODE order
    for mode in range(6):
        rng = rng_for("cmpmask", dtype, mode)
        a = rng.integers(-4, 4, lanes).astype(t)
        b = rng.integers(-4, 4, lanes).astype(t)
        k = lanes if mode % 2 == 0 else int(rng.integers(1, lanes))
        z0 = np.full(32, 0xAB, np.uint8)
        out = run_gather(kernels, dtype, a, b.tobytes(), z0, form=6, base=mode, count=k).outputs[0]
        bits = np.zeros(128, bool)
        bits[:k] = ops[mode](a, b)[:k]
        assert_same(out[:16], np.packbits(bits, bitorder="little"), f"{dtype} mode {mode} mask {k}")
        assert_same(out[16:32], z0[16:], "bytes past the register are untouched")


def test_set_and_get_cmp_mask(kernels):
    """SetCmpMask(ISASI).md / GetCmpMask(ISASI).md: 16 bytes in, the same 16 bytes out; a destination that is not
    16-byte aligned, or too short for 16 bytes, is a fault."""
    reg = rng_for("setcmp").integers(0, 256, 32, dtype=np.uint8)
    out = run_gather(kernels, "half", np.zeros(16, np.float16), reg.tobytes(), np.zeros(64, np.uint8), form=7,
                     count=16).outputs[0]
    assert_same(out[16:32], reg[:16], "round trip")
    assert not out[:16].any() and not out[32:].any()
    r = run_gather(kernels, "half", np.zeros(16, np.float16), reg.tobytes(), np.zeros(64, np.uint8), ok=False,
                   form=7, count=8)
    assert any("misaligned" in f and "16-byte" in f for f in faults(r)), faults(r)
    r = run_gather(kernels, "half", np.zeros(16, np.float16), reg.tobytes(), np.zeros(32, np.uint8), ok=False,
                   form=7, count=32)
    assert any("out-of-bounds" in f and "dst" in f for f in faults(r)), faults(r)


# ---------------------------------------------------------------------------------------------------------
# Transpose / Sort32 / MrgSort / Interleave

SORT = "form xBytes zBytes n c h w type tmpBytes repeat len0 len1 len2 len3 validBit suspend mrgRepeat count"


def run_sort(kernels, dtype, x: bytes, y: bytes, z_bytes: int, soc=A2, ok=True, defines=None, **t) -> SimResult:
    n = (max(len(x), len(y), 32) + 31) // 32 * 32
    z_bytes = (z_bytes + 31) // 32 * 32
    args = [GmIn(pad32(x, n)), GmIn(pad32(y, n)), GmIn(np.zeros(z_bytes, np.uint8)),
            GmOut(np.dtype(np.uint8), (z_bytes,))]
    t.update(xBytes=n, zBytes=z_bytes)
    return kernels.run("rearrange_sort", {"DTYPE": dtype, **(defines or {})}, [*args, tiling(SORT, t)], soc=soc,
                       ok=ok)


@pytest.mark.parametrize("dtype", ["half", "int16_t", "uint16_t"])
def test_transpose_16x16(kernels, dtype):
    """Transpose.md: the plain form is src.T of one 16x16 matrix."""
    t = NP[dtype]
    for trial in range(2):
        m = values(rng_for("t16", dtype, trial), t, 256)
        out = run_sort(kernels, dtype, m.tobytes(), b"", 512, form=0).outputs[0].view(t)
        assert_same(out, m.reshape(16, 16).T.ravel(), dtype)


@pytest.mark.parametrize("dtype", ["float", "half", "int8_t"])
def test_transpose_ext_nchw_nhwc(kernels, dtype):
    """Transpose.md TransposeParamsExt: NCHW2NHWC is np.transpose(0, 2, 3, 1), NHWC2NCHW (0, 3, 1, 2); the
    sharedTmpBuffer must hold (C + 2) (resp. 2C + 1) * h0 * w0 * sizeof(T) bytes."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    h0, w0 = (32 if es == 1 else 16), 32 // es
    for kind, (n, c, h, w) in [(11, (2, 3, 4, 8)), (12, (1, 5, 2, 16)), (11, (3, 2, 1, 32))]:
        rng = rng_for("t-ext", dtype, kind, n, c)
        x = values(rng, t, n * c * h * w)
        tmp = ((c + 2) if kind == 11 else (2 * c + 1)) * h0 * w0 * es
        out = run_sort(kernels, dtype, x.tobytes(), b"", x.nbytes, form=1, n=n, c=c, h=h, w=w, type=kind,
                       tmpBytes=tmp).outputs[0].view(t)[:x.size]
        if kind == 11:
            want = x.reshape(n, c, h, w).transpose(0, 2, 3, 1)
        else:
            want = x.reshape(n, h, w, c).transpose(0, 3, 1, 2)
        assert_same(out, want.ravel(), f"{dtype} type {kind} {(n, c, h, w)}")
        # One byte short of the page's minimum for the temporary buffer is a fault.
        r = run_sort(kernels, dtype, x.tobytes(), b"", x.nbytes, ok=False, form=1, n=n, c=c, h=h, w=w, type=kind,
                     tmpBytes=tmp - 32)
        assert any("sharedTmpBuffer" in f for f in faults(r)), faults(r)


def test_transpose_faults(kernels):
    # The 16x16 form writes 512 bytes: a 256-byte destination is too small.
    r = run_sort(kernels, "half", bytes(512), b"", 256, ok=False, form=0)
    assert any("out-of-bounds" in f and "dst" in f for f in faults(r)), faults(r)
    # TRANSPOSE_ND2ND_B16 through TransposeParamsExt takes uint16_t only on A2 (Transpose.md).
    r = run_sort(kernels, "half", bytes(512), b"", 512, ok=False, form=1, n=1, c=1, h=16, w=16, type=10,
                 tmpBytes=32)
    assert any("unsupported" in f and "uint16_t" in f for f in faults(r)), faults(r)
    r = run_sort(kernels, "uint16_t", np.arange(256, dtype=np.uint16).tobytes(), b"", 512, form=1, n=1, c=1, h=16,
                 w=16, type=10, tmpBytes=32)
    assert_same(r.outputs[0].view(np.uint16), np.arange(256).reshape(16, 16).T.ravel(), "ext ND2ND_B16")


@pytest.mark.parametrize("dtype", ["half", "int16_t"])
def test_trans_data_to_5hd(kernels, dtype):
    """TransDataTo5HD.md with the transpose example's scenario 3: NCHW with C = 16 per group to NC1HWC0, lists at
    the 16 channels (src) and the first 16 positions (dst), srcRepStride 1, dstRepStride 16, h*w/16 repeats; both
    the address-value and the LocalTensor-list forms."""
    t = NP[dtype]
    for form, (groups, h, w) in [(7, (2, 16, 16)), (8, (3, 4, 8)), (7, (1, 4, 8))]:
        x = values(rng_for("5hd", dtype, form, groups), t, groups * 16 * h * w)
        out = run_sort(kernels, dtype, x.tobytes(), b"", x.nbytes, form=form, n=groups, h=h, w=w, c=16, type=1,
                       repeat=h * w // 16).outputs[0].view(t)
        want = x.reshape(groups, 16, h * w).transpose(0, 2, 1)
        assert_same(out, want.ravel(), f"form {form} {(groups, h, w)}")
    # repeatTimes 1 (the page): the blocks start one stride after the lists; strides 0 use the lists themselves.
    x = values(rng_for("5hd-1", dtype), t, 16 * 16 + 16)
    out = run_sort(kernels, dtype, x.tobytes(), b"", 512, form=8, n=1, h=4, w=4, c=0, type=0,
                   repeat=1).outputs[0].view(t)
    assert_same(out, x[:256].reshape(16, 16).T.ravel(), "repeat 1, strides 0")
    out = run_sort(kernels, dtype, x.tobytes(), b"", 512, form=8, n=1, h=4, w=4, c=0, type=1,
                   repeat=1).outputs[0].view(t)
    assert_same(out, x[16:272].reshape(16, 16).T.ravel(), "repeat 1, srcRepStride 1")
    # One repeat more than the source holds runs past it (the tensor-list form knows the buffer).
    x = np.zeros(16 * 16, t)
    r = run_sort(kernels, dtype, x.tobytes(), b"", x.nbytes, ok=False, form=8, n=1, h=4, w=4, c=16, type=1,
                 repeat=2)
    assert any("out-of-bounds" in f for f in faults(r)), faults(r)


def test_trans_data_to_5hd_b32(kernels):
    """asc_transto5hd.md, b32: each block holds 8 elements; for position j the 16 source blocks' element j make
    two destination blocks, 2j (source blocks 0-7) and 2j + 1 (blocks 8-15): the 16 x 8 matrix transposed."""
    for dtype in ("float", "int32_t"):
        x = values(rng_for("5hd-b32", dtype), NP[dtype], 16 * 8 + 8)
        out = run_sort(kernels, dtype, x.tobytes(), b"", 512, form=8, n=1, h=2, w=4, c=0, type=0,
                       repeat=1).outputs[0].view(NP[dtype])
        assert_same(out, x[:128].reshape(16, 8).T.ravel(), f"{dtype} repeat 1, strides 0")


def sort32_ref(scores: np.ndarray, idx: np.ndarray) -> list[tuple]:
    """Sort32.md: descending by score, equal scores in input order."""
    order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
    return [(scores[i], idx[i]) for i in order]


def entries(raw: np.ndarray, dtype) -> list[tuple]:
    """(score, index) of each 8-byte entry: score in the low bytes, index in the high 4."""
    t = NP[dtype]
    e = raw.reshape(-1, 8)
    return [(e[k, :np.dtype(t).itemsize].view(t)[0], e[k, 4:].view(np.uint32)[0]) for k in range(len(e))]


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_sort32(kernels, dtype):
    t = NP[dtype]
    for trial in range(3):
        rng = rng_for("sort32", dtype, trial)
        repeat = int(rng.integers(1, 5))
        scores = rng.integers(-20, 20, 32 * repeat).astype(t)  # many ties
        idx = rng.integers(0, 2**32, 32 * repeat, dtype=np.uint64).astype(np.uint32)
        out = run_sort(kernels, dtype, scores.tobytes(), idx.tobytes(), 256 * repeat, form=2,
                       repeat=repeat).outputs[0]
        got = entries(out, dtype)
        for r in range(repeat):
            want = sort32_ref(scores[32 * r:32 * (r + 1)], idx[32 * r:32 * (r + 1)])
            assert got[32 * r:32 * (r + 1)] == want, f"{dtype} trial {trial} repeat {r}"
        if dtype == "half":  # the 2 reserved bytes after a half score are written 0 (Choice).
            assert not out.reshape(-1, 8)[:, 2:4].any()


def test_sort32_fault(kernels):
    r = run_sort(kernels, "float", bytes(256), bytes(256), 256, ok=False, form=2, repeat=2)
    assert any("out-of-bounds" in f and "dst" in f for f in faults(r)), faults(r)


def merge_ref(queues: list[list[tuple]], suspend: bool) -> tuple[list[tuple], list[int]]:
    """MrgSort.md: descending by score, equal scores from the lower-numbered queue first; with
    ifExhaustedSuspension the merge stops once one queue is empty."""
    pos = [0] * len(queues)
    out = []
    while True:
        live = [q for q in range(len(queues)) if pos[q] < len(queues[q])]
        if not live or (suspend and len(live) < len(queues)):
            break
        best = max(live, key=lambda q: (float(queues[q][pos[q]][0]), -q))
        out.append(queues[best][pos[best]])
        pos[best] += 1
    return out, pos


@pytest.mark.parametrize("dtype", ["float", "half"])
def test_mrg_sort(kernels, dtype):
    """Sort32 then MrgSort of 2, 3 or 4 sorted queues (lengths in 8-byte entries), with and without
    ifExhaustedSuspension, and GetMrgSortResult's per-queue counts."""
    t = NP[dtype]
    cases = [((32, 32, 0, 0), 3, False), ((32, 64, 32, 0), 7, False), ((32, 32, 32, 32), 15, False),
             ((64, 32, 32, 32), 15, True), ((16, 32, 48, 32), 15, True)]
    for trial, (lens, valid, suspend) in enumerate(cases):
        rng = rng_for("mrg", dtype, trial)
        total = sum(lens)
        repeat = (total + 31) // 32
        scores = rng.integers(-50, 50, 32 * repeat).astype(t)
        idx = np.arange(32 * repeat, dtype=np.uint32)
        out = run_sort(kernels, dtype, scores.tobytes(), idx.tobytes(), total * 8 + 32, form=3, repeat=repeat,
                       len0=lens[0], len1=lens[1], len2=lens[2], len3=lens[3], validBit=valid,
                       suspend=int(suspend), mrgRepeat=1).outputs[0]
        # The queues as MrgSort sees them: consecutive slices of the Sort32 output.
        sorted32 = [e for r in range(repeat) for e in sort32_ref(scores[32 * r:32 * (r + 1)],
                                                                idx[32 * r:32 * (r + 1)])]
        nq = {3: 2, 7: 3, 15: 4}[valid]
        queues, at = [], 0
        for q in range(4):
            queues.append(sorted32[at:at + lens[q]])
            at += lens[q]
        want, pos = merge_ref(queues[:nq], suspend)
        got = entries(out[:len(want) * 8], dtype)
        assert got == want, f"{dtype} case {trial}"
        assert out[-8:].view(np.uint16).tolist() == pos + [0] * (4 - nq), f"{dtype} case {trial} counts"


def test_mrg_sort_repeat_and_faults(kernels):
    """repeatTimes 2 merges two groups of 4 contiguous queues (MrgSort.md's example, 8 x 32 entries)."""
    rng = rng_for("mrg-repeat")
    scores = rng.standard_normal(256).astype(np.float32)
    idx = np.arange(256, dtype=np.uint32)
    out = run_sort(kernels, "float", scores.tobytes(), idx.tobytes(), 256 * 8 + 32, form=3, repeat=8, len0=32,
                   len1=32, len2=32, len3=32, validBit=15, mrgRepeat=2).outputs[0]
    got = entries(out[:256 * 8], "float")
    for g in range(2):
        part = np.arange(128 * g, 128 * (g + 1))
        want = sorted(((scores[i], idx[i]) for i in part), key=lambda e: -float(e[0]))
        assert got[128 * g:128 * (g + 1)] == want
    r = run_sort(kernels, "float", bytes(1024), bytes(1024), 64 * 8 + 32, ok=False, form=3, repeat=2, len0=32,
                 len1=32, validBit=5, mrgRepeat=1)
    assert any("unsupported" in f and "validBit 5" in f for f in faults(r)), faults(r)
    # The destination is smaller than the merged queues.
    r = run_sort(kernels, "float", bytes(1024), bytes(1024), 32 * 8, ok=False, form=3, repeat=2, len0=32, len1=32,
                 validBit=3, mrgRepeat=1)
    assert any("out-of-bounds" in f and "dst" in f for f in faults(r)), faults(r)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_interleave_on_950(kernels, dtype):
    """Interleave.md / DeInterleave.md and the interleave_pair example's golden: Interleave spreads src0[i],
    src1[i] pairs over dst0 then dst1; DeInterleave takes the even and odd elements of src0||src1 (or of src)."""
    t = NP[dtype]
    rng = rng_for("interleave", dtype)
    n = 256
    a, b = values(rng, t, n), values(rng, t, n)
    inter = np.empty(2 * n, t)
    inter[0::2], inter[1::2] = a, b
    d = {"WITH_INTERLEAVE": "1"}
    out = run_sort(kernels, dtype, a.tobytes(), b.tobytes(), 2 * a.nbytes, soc=S950, defines=d, form=4,
                   count=n).outputs[0].view(t)
    assert_same(out, inter, "Interleave")
    both = np.concatenate([a, b])
    out = run_sort(kernels, dtype, a.tobytes(), b.tobytes(), 2 * a.nbytes, soc=S950, defines=d, form=5,
                   count=n).outputs[0].view(t)
    assert_same(out, np.concatenate([both[0::2], both[1::2]]), "DeInterleave")
    out = run_sort(kernels, dtype, a.tobytes(), b"", a.nbytes, soc=S950, defines=d, form=6,
                   count=n).outputs[0].view(t)
    assert_same(out, np.concatenate([a[0::2], a[1::2]]), "DeInterleave one source")
    r = run_sort(kernels, dtype, a.tobytes(), b.tobytes(), a.nbytes, soc=S950, defines=d, ok=False, form=4, count=n)
    assert any("out-of-bounds" in f for f in faults(r)), faults(r)


PROPOSAL = "form xLen zLen repeat mode len0 len1 len2 len3 validBit suspend"


def rp_sort16(props: np.ndarray) -> np.ndarray:
    """RpSort16.md: each group of 16 proposals by score (element 4), descending, equal scores in input order."""
    groups = []
    for r in range(len(props) // 16):
        g = props[16 * r:16 * (r + 1)]
        groups.append(g[sorted(range(16), key=lambda i: (-float(g[i, 4]), i))])
    return np.concatenate(groups)


def run_proposal(kernels, dtype, x: np.ndarray, z0: np.ndarray, ok=True, soc=P310, **t) -> SimResult:
    t.update(xLen=len(x), zLen=len(z0))
    args = [GmIn(x), GmIn(z0), GmOut(z0.dtype, z0.shape), tiling(PROPOSAL, t)]
    return kernels.run("rearrange_proposal", {"DTYPE": dtype}, args, soc=soc, ok=ok)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_region_proposals_on_310p(kernels, dtype):
    """ProposalConcat.md / ProposalExtract.md: element i of src goes to element `modeNumber` of proposal i (8
    elements each), 16 a repeat, and back; RpSort16.md: 16 proposals a repeat by score (element 4), descending,
    equal scores in input order; MrgSort4.md: 4 sorted proposal queues merged by score, with GetMrgSortResult."""
    t = NP[dtype]
    rng = rng_for("proposal", dtype)
    repeat = 3
    n = 16 * repeat
    for mode in (0, 4, 5):
        src = values(rng, t, n)
        z0 = values(rng, t, 8 * n)
        out = run_proposal(kernels, dtype, src, z0, form=0, repeat=repeat, mode=mode).outputs[0]
        want = z0.copy().reshape(n, 8)
        want[:, mode] = src
        assert_same(out, want.ravel(), f"concat mode {mode}")
        props = values(rng, t, 8 * n)
        z1 = values(rng, t, n + 16)
        out = run_proposal(kernels, dtype, props, z1, form=1, repeat=repeat, mode=mode).outputs[0]
        want = z1.copy()
        want[:n] = props.reshape(n, 8)[:, mode]
        assert_same(out, want, f"extract mode {mode}")
    props = values(rng, t, 8 * n).reshape(n, 8)
    props[:, 4] = rng.integers(-3, 3, n)  # ties
    out = run_proposal(kernels, dtype, props.ravel(), np.zeros(8 * n, t), form=2, repeat=repeat).outputs[0]
    assert_same(out, rp_sort16(props).ravel(), "RpSort16")
    # RpSort16 then MrgSort4 over 4 queues of 16 (one per repeat), with and without suspension.
    props = values(rng, t, 8 * 64).reshape(64, 8)
    props[:, 4] = rng.integers(-20, 20, 64)
    sorted16 = rp_sort16(props)
    for lens, suspend in [((16, 16, 16, 16), 0), ((8, 16, 24, 16), 1)]:
        queues, at = [], 0
        for q in range(4):
            queues.append([tuple(row) for row in sorted16[at:at + lens[q]]])
            at += lens[q]
        keyed = [[(e[4], e) for e in q] for q in queues]
        merged, pos = merge_ref(keyed, bool(suspend))
        out = run_proposal(kernels, dtype, props.ravel(), np.zeros(8 * 64 + 32 // np.dtype(t).itemsize, t), form=3,
                           repeat=4, len0=lens[0], len1=lens[1], len2=lens[2], len3=lens[3], validBit=15,
                           suspend=suspend).outputs[0]
        got = out[:8 * len(merged)].reshape(-1, 8)
        assert_same(got, np.array([e for _, e in merged], t).reshape(-1, 8), f"MrgSort4 {lens}")
        assert out.view(np.uint16)[-4:].tolist() == pos
    # A proposal count past the destination is a fault.
    r = run_proposal(kernels, dtype, values(rng, t, 32), np.zeros(8 * 16, t), ok=False, form=0, repeat=2, mode=0)
    assert any("out-of-bounds" in f for f in faults(r)), faults(r)


# ---------------------------------------------------------------------------------------------------------
# ShiftLeft / ShiftRight / Axpy / CreateVecIndex / pair and repeat reductions

VEC = "form xLen zLen count repeat mask0 mask1 dstBlk dstRep srcBlk srcRep order round"


def run_vec(kernels, dtype, x: np.ndarray, z0: np.ndarray, otype=None, soc=A2, ok=True, scalar=0.0,
            **t) -> SimResult:
    defines = {"DTYPE": dtype, **({"OTYPE": otype} if otype else {})}
    t.update(xLen=len(x), zLen=len(z0))
    args = [GmIn(x), GmIn(z0), GmOut(z0.dtype, z0.shape), tiling(VEC, t, scalar)]
    return kernels.run("rearrange_vec", defines, args, soc=soc, ok=ok)


def lanes_index(es: int, r: int, lane: int, blk: int, rep: int) -> int:
    per = 32 // es
    return ((r * rep + (lane // per) * blk) * 32) // es + lane % per


def shift_ref(x: np.ndarray, n: int, left: bool, round_en: bool) -> np.ndarray:
    """ShiftLeft.md / ShiftRight.md: unsigned logical; signed left keeps the sign bit, signed right copies it;
    roundEn adds bit n-1 of the source (signed types)."""
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    signed = x.dtype.kind == "i"
    full = (1 << bits) - 1
    if left:
        if not signed:
            r = (u << np.uint64(n)) & np.uint64(full) if n < bits else u * 0
        else:
            sign = u & np.uint64(1 << (bits - 1))
            body = ((u << np.uint64(n)) & np.uint64(full >> 1)) if n < bits else u * 0
            r = sign | body
        return r.astype(np.dtype(f"u{x.dtype.itemsize}")).view(x.dtype)
    if not signed:
        return (u >> np.uint64(n)).astype(x.dtype) if n < bits else np.zeros_like(x)
    r = (x.astype(np.int64) >> min(n, 63)).astype(x.dtype)
    if round_en and n > 0:
        r = (r.astype(np.int64) + ((u >> np.uint64(n - 1)) & np.uint64(1)).astype(np.int64)).astype(x.dtype)
    return r


@pytest.mark.parametrize("dtype", ["int16_t", "uint16_t", "int32_t", "uint32_t"])
def test_shift(kernels, dtype):
    t = NP[dtype]
    es = np.dtype(t).itemsize
    lanes = 256 // es
    bits = es * 8
    # The pages' examples: 0b1010101010101010 (int16) << 1, << 3, >> 1.
    if dtype == "int16_t":
        x = np.full(128, 0b1010101010101010, np.uint16).view(np.int16)
        for form, n, want in [(0, 1, 0b1101010101010100), (0, 3, 0b1101010101010000), (3, 1, 0b1101010101010101)]:
            out = run_vec(kernels, dtype, x, np.zeros(128, t), form=form, count=128, scalar=n).outputs[0]
            assert int(out.view(np.uint16)[0]) == want
    for trial, (form, n) in enumerate([(0, 1), (3, 5), (1, 7), (4, 0), (2, bits - 1), (5, 3), (4, 3), (0, bits)]):
        rng = rng_for("shift", dtype, trial)
        left = form < 3
        round_en = trial == 6
        repeat = int(rng.integers(1, 4))
        blk, rep = (1, 8) if trial % 2 else (2, 16)
        x = values(rng, t, repeat * lanes * 2 + 64)
        z0 = values(rng, t, repeat * lanes * 2 + 64)
        extra = {}
        if form in (0, 3):
            count = int(rng.integers(1, len(x)))
            extra = {"count": count}
        elif form in (1, 4):
            extra = {"count": int(rng.integers(1, lanes + 1)), "repeat": repeat, "dstBlk": blk, "dstRep": rep,
                     "srcBlk": blk, "srcRep": rep}
        else:
            extra = {"mask0": int(rng.integers(0, 2**63)), "mask1": int(rng.integers(0, 2**63)), "repeat": repeat,
                     "dstBlk": blk, "dstRep": rep, "srcBlk": blk, "srcRep": rep}
        out = run_vec(kernels, dtype, x, z0, form=form, scalar=n, round=int(round_en), **extra).outputs[0]
        ref = shift_ref(x, n, left, round_en)
        want = z0.copy()
        if form in (0, 3):
            want[:extra["count"]] = ref[:extra["count"]]
        else:
            for r in range(repeat):
                for i in range(lanes):
                    on = i < extra["count"] if form in (1, 4) else (
                        (extra["mask0"] >> i) & 1 if i < 64 else (extra["mask1"] >> (i - 64)) & 1 if es == 2 else 0)
                    if on:
                        k = lanes_index(es, r, i, blk, rep)
                        want[k] = ref[k]
        assert_same(out, want, f"{dtype} form {form} by {n}")
    # A shift count outside [0, bit width] is refused (ShiftLeft.md, A2/A3).
    r = run_vec(kernels, dtype, np.zeros(lanes, t), np.zeros(lanes, t), ok=False, form=0, count=lanes,
                scalar=bits + 1)
    assert any("unsupported" in f and "shift count" in f for f in faults(r)), faults(r)
    # The count runs past the source.
    r = run_vec(kernels, dtype, np.zeros(lanes, t), np.zeros(2 * lanes, t), ok=False, form=0, count=2 * lanes,
                scalar=1)
    assert any("out-of-bounds" in f and "src0" in f for f in faults(r)), faults(r)


@pytest.mark.parametrize(("dtype", "otype"), [("half", None), ("float", None), ("half", "float")])
def test_axpy(kernels, dtype, otype):
    """Axpy.md: dst = scalar * src + dst. Choice: computed in float with one rounding (fused) to dst's type;
    the inputs are small integers over 8, so fused and unfused agree."""
    t, o = NP[dtype], NP[otype or dtype]
    lanes = 256 // max(np.dtype(t).itemsize, np.dtype(o).itemsize)
    eo, ei = np.dtype(o).itemsize, np.dtype(t).itemsize
    for trial, form in enumerate([10, 11, 12, 10]):
        rng = rng_for("axpy", dtype, otype, trial)
        repeat = int(rng.integers(1, 4))
        x = values(rng, t, repeat * lanes + 64)
        z0 = values(rng, o, repeat * lanes + 64)
        s = float(rng.integers(-8, 8)) / 4
        ref = (np.float32(s) * x.astype(np.float32) + z0.astype(np.float32)).astype(o)
        want = z0.copy()
        extra = {}
        if form == 10:
            count = int(rng.integers(1, len(x)))
            want[:count] = ref[:count]
            extra = {"count": count}
        else:
            m0 = int(rng.integers(0, 2**63)) if form == 12 else 0
            m1 = int(rng.integers(0, 2**63)) if form == 12 and lanes == 128 else 0
            k = int(rng.integers(1, lanes + 1))
            extra = ({"count": k} if form == 11 else {"mask0": m0, "mask1": m1})
            extra.update(repeat=repeat, dstBlk=1, dstRep=lanes * eo // 32, srcBlk=1, srcRep=lanes * ei // 32)
            for r in range(repeat):
                for i in range(lanes):
                    on = i < k if form == 11 else ((m0 >> i) & 1 if i < 64 else (m1 >> (i - 64)) & 1)
                    if on:
                        want[r * lanes + i] = ref[r * lanes + i]
        out = run_vec(kernels, dtype, x, z0, otype=otype, form=form, scalar=s, **extra).outputs[0]
        assert_same(out, want, f"{dtype}->{otype} form {form}")
    r = run_vec(kernels, dtype, np.zeros(64, t), np.zeros(128, o), otype=otype, ok=False, form=10, count=128)
    assert any("out-of-bounds" in f for f in faults(r)), faults(r)


@pytest.mark.parametrize("dtype", ["int16_t", "half", "int32_t", "float"])
def test_create_vec_index(kernels, dtype):
    """CreateVecIndex.md: dst[i] = firstValue + i (the page's example: 0 .. 127). Choice: in the mask form lane i
    of repeat r holds firstValue + r * lanes + i."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    lanes = 256 // es
    z0 = values(rng_for("cvi", dtype), t, 4 * lanes)
    out = run_vec(kernels, dtype, np.zeros(32 // es, t), np.zeros(128, t), form=6, count=128).outputs[0]
    assert_same(out, np.arange(128), "page example")
    out = run_vec(kernels, dtype, np.zeros(32 // es, t), z0, form=6, count=200, scalar=-7).outputs[0]
    want = z0.copy()
    want[:200] = np.arange(-7, 193) if dtype != "half" else np.arange(-7, 193).astype(np.float16)
    assert_same(out, want, "count form")
    out = run_vec(kernels, dtype, np.zeros(32 // es, t), z0, form=7, count=lanes // 2 + 3, repeat=2, dstBlk=1,
                  dstRep=lanes * es // 32 + 2, scalar=5).outputs[0]
    want = z0.copy()
    for r in range(2):
        for i in range(lanes // 2 + 3):
            want[lanes_index(es, r, i, 1, lanes * es // 32 + 2)] = 5 + r * lanes + i
    assert_same(out, want, "mask form")
    r = run_vec(kernels, dtype, np.zeros(32 // es, t), np.zeros(lanes, t), ok=False, form=6, count=lanes + 1)
    assert any("out-of-bounds" in f and "dst" in f for f in faults(r)), faults(r)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_pair_reduce(kernels, dtype):
    """PairReduceSum / ReducePairElem<SUM> (ReducePairElem.md): lanes (2k, 2k+1) of each repeat sum into element k
    of a 128-byte result slot (dstRepStride counts slots); a pair with neither lane in the mask keeps dst.
    Choice: a pair with one lane in the mask takes that lane alone."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    lanes = 256 // es
    for trial, form in enumerate([20, 21, 22, 23, 21]):
        rng = rng_for("pair", dtype, trial)
        repeat = int(rng.integers(1, 4))
        dst_rep, src_blk, src_rep = int(rng.choice([1, 2])), 1, int(rng.choice([8, 9]))
        x = values(rng, t, (repeat * src_rep + 8) * 32 // es)
        z0 = values(rng, t, (repeat * dst_rep + 1) * 128 // es)
        if form in (20, 22):
            k = int(rng.integers(1, lanes + 1))
            on = [i < k for i in range(lanes)]
            extra = {"count": k}
        else:
            m0, m1 = int(rng.integers(0, 2**64, dtype=np.uint64)), int(rng.integers(0, 2**64, dtype=np.uint64))
            m1 = m1 if es == 2 else 0
            on = [bool((m0 >> i) & 1 if i < 64 else (m1 >> (i - 64)) & 1) for i in range(lanes)]
            extra = {"mask0": m0, "mask1": m1}
        out = run_vec(kernels, dtype, x, z0, form=form, repeat=repeat, dstRep=dst_rep, srcBlk=src_blk,
                      srcRep=src_rep, **extra).outputs[0]
        want = z0.copy()
        for r in range(repeat):
            for p in range(lanes // 2):
                a, b = on[2 * p], on[2 * p + 1]
                if not (a or b):
                    continue
                va = x[lanes_index(es, r, 2 * p, src_blk, src_rep)]
                vb = x[lanes_index(es, r, 2 * p + 1, src_blk, src_rep)]
                s = (np.float32(va) + np.float32(vb)) if a and b else np.float32(va if a else vb)
                want[r * dst_rep * 128 // es + p] = t(s)
        assert_same(out, want, f"{dtype} form {form} trial {trial}")
    r = run_vec(kernels, dtype, np.zeros(lanes, t), np.zeros(lanes // 2, t), ok=False, form=20, count=lanes,
                repeat=2, dstRep=1, srcBlk=1, srcRep=8)
    assert any("out-of-bounds" in f and "src" in f for f in faults(r)), faults(r)


@pytest.mark.parametrize("dtype", ["half", "float"])
def test_repeat_and_block_reduce(kernels, dtype):
    """ReduceRepeat<SUM|MAX|MIN> (ReduceRepeat.md), RepeatReduceSum and ReduceDataBlock<SUM|MAX> (ReduceDataBlock.md)
    against numpy on small integers (exact in every order), with strides and masks."""
    t = NP[dtype]
    es = np.dtype(t).itemsize
    lanes, per = 256 // es, 32 // es
    for trial, form in enumerate([24, 25, 26, 27, 28, 29]):
        rng = rng_for("rr", dtype, trial)
        repeat, src_rep = int(rng.integers(1, 4)), int(rng.choice([8, 10]))
        x = rng.integers(-30, 30, (repeat * src_rep + 8) * per).astype(t)
        z0 = values(rng, t, 8 * 16 * repeat)
        if form in (27, 29):
            m0 = int(rng.integers(1, 2**63))
            m1 = int(rng.integers(0, 2**63)) if es == 2 else 0
            on = [bool((m0 >> i) & 1 if i < 64 else (m1 >> (i - 64)) & 1) for i in range(lanes)]
            extra = {"mask0": m0, "mask1": m1}
        else:
            k = int(rng.integers(1, lanes + 1))
            on = [i < k for i in range(lanes)]
            extra = {"count": k}
        out = run_vec(kernels, dtype, x, z0, form=form, repeat=repeat, dstRep=1, srcBlk=1, srcRep=src_rep,
                      order=0, **extra).outputs[0]
        want = z0.copy()
        for r in range(repeat):
            vals = [(i, x[lanes_index(es, r, i, 1, src_rep)]) for i in range(lanes) if on[i]]
            if form in (24, 25):
                want[r] = t(sum(float(v) for _, v in vals))
            elif form in (26, 27):
                pick = max if form == 26 else min
                i, v = pick(vals, key=lambda e: (float(e[1]), -e[0]) if form == 26 else (float(e[1]), e[0]))
                want[2 * r] = v
                want[2 * r + 1] = np.array([i], np.dtype(f"u{es}")).view(t)[0]
            else:
                for b in range(8):
                    blk = [v for i, v in vals if i // per == b]
                    if blk:
                        want[r * 8 + b] = t(sum(float(v) for v in blk)) if form == 28 else max(blk)
        assert_same(out, want, f"{dtype} form {form} trial {trial}")


def test_reduce_special_registers(kernels):
    """GetReduceRepeatSumSpr after ReduceSum's count form (the reduce_computation example) and
    GetReduceRepeatMaxMinSpr after ReduceRepeat<MAX>: the extreme over all repeats and its index as bits of T.
    Choice: the index is the element's position in the repeat sequence (repeat * lanes + lane)."""
    x = np.arange(-100, 412, dtype=np.float32) / 4
    np.random.default_rng(3).shuffle(x)
    out = run_vec(kernels, "float", x, np.zeros(64, np.float32), form=30, count=512).outputs[0]
    assert out[0] == out[-2] and out[-2] == np.float32(x.astype(np.float64).sum())
    out = run_vec(kernels, "float", x, np.zeros(64, np.float32), form=31, count=64, repeat=8, dstRep=1, srcBlk=1,
                  srcRep=8).outputs[0]
    assert out[-2] == x.max()
    assert out[-1:].view(np.uint32)[0] == int(np.argmax(x))


# ---------------------------------------------------------------------------------------------------------
# Sync hazards: the new APIs report the UB bytes they read to the ordering checks

HAZARD = KERNELS / "rearrange_hazard.cpp"


@pytest.mark.parametrize(("api", "name"), [(0, "Gather"), (1, "GatherMask"), (2, "Sort32"), (3, "Transpose")])
def test_unordered_dma_source_is_a_sync_hazard(api, name):
    x = np.arange(256, dtype=np.float32)
    args = [GmIn(x), GmOut(np.dtype(np.float32), (512,))]
    bad = simulate(HAZARD, "rearrange_hazard", 1, args, defines=[f"API={api}", "SYNC=0"])
    assert any(f.cls == "sync-hazard" and f.api == name for f in bad.faults), faults(bad)
    good = simulate(HAZARD, "rearrange_hazard", 1, args, defines=[f"API={api}", "SYNC=1"])
    assert good.ok, faults(good)


# ---------------------------------------------------------------------------------------------------------
# SoC restrictions: an API a SoC lacks is a compile error naming it

CERR = KERNELS / "rearrange_cerr.cpp"


@pytest.mark.parametrize(("err", "soc", "words"), [
    (1, P310, "Sort32 is not available on Ascend310P3"),
    (2, P310, "ShiftLeft is not available on Ascend310P3"),
    (3, A2, "Interleave is not available on Ascend910B1"),
    (4, P310, "Gatherb is not available on Ascend310P3"),
    (5, S950, "GetReduceRepeatMaxMinSpr is not available on Ascend950PR_9589"),
    (7, A2, "Gather: this element type is not supported on Ascend910B1"),
    (12, A2, "TransDataTo5HD: the tuner simulator provides the 2- and 4-byte forms"),
    (8, P310, "MrgSort is not available on Ascend310P3"),
    (9, A2, "DeInterleave is not available on Ascend910B1"),
    (10, A2, "ProposalConcat is not available on Ascend910B1"),
    (11, S950, "MrgSort4 is not available on Ascend950PR_9589"),
], ids=["Sort32-310P", "ShiftLeft-310P", "Interleave-A2", "Gatherb-310P", "MaxMinSpr-950", "Gather-int8-A2",
        "TransDataTo5HD-int8", "MrgSort-310P", "DeInterleave-A2", "ProposalConcat-A2", "MrgSort4-950"])
def test_soc_restrictions_are_compile_errors(err, soc, words):
    with pytest.raises(CompileError) as exc:
        simulate(CERR, "rearrange_cerr", 1, [GmIn(np.zeros(8, np.float32))], soc=soc, defines=[f"ERR={err}"])
    assert words in exc.value.summary, exc.value.summary


def test_the_same_calls_compile_where_supported():
    for err, soc in [(0, A2), (6, A2), (6, S950), (1, A2), (2, S950), (3, S950), (4, A2), (5, A2), (9, S950),
                     (10, P310), (11, P310)]:
        result = simulate(CERR, "rearrange_cerr", 1, [GmIn(np.zeros(8, np.float32))], soc=soc,
                          defines=[f"ERR={err}"])
        assert result.report["soc"] == soc
