"""Quantization, index, filter and sort advanced APIs of the simulator (adv_quant.h, adv_filter.h, adv_sort.h):
AscendQuant, AscendDequant, Arange, Select (byte mask), DropOut, Concat / Sort / Extract and TopK, run through a
real kernel (tests/sim/kernels/advanced/quant_sort.cpp) and compared with numpy references on random inputs.

References: AscendQuant computes in half on the NPU (asc-devkit narrows float input, scale and offset to half),
so its reference rounds to half after each step (numpy's float16 arithmetic rounds each operation once) and
then to the nearest even integer; AscendDequant multiplies in float; DropOut multiplies in T; Arange, Select,
Sort and TopK move or pick elements and must match exactly.
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

QUANT_TMP, QUANT_OWN, QUANT_CHANNEL, QUANT_CHANNEL_SCALAR = 0, 1, 2, 3
DEQUANT, DEQUANT_SCALAR, DEQUANT_U64 = 4, 5, 6
ARANGE, ARANGE_I32, ARANGE_I16 = 7, 8, 9
DEQUANT_CALCOUNT = 26
SELECT, SELECT_REVERSE, SELECT_COPY_MASK = 10, 11, 12
DROPOUT = 13
SORT = 14
TOPK, TOPK_SMALL = 15, 16
ANTIQUANT, ANTIQUANT_NO_OFFSET, ANTIQUANT_TRANSPOSE, ANTIQUANT_TENSOR, ANTIQUANT_BF16, ANTIQUANT_BF16_TENSOR = range(
    20, 26
)


def pad32(b: bytes) -> bytes:
    return b + bytes(-len(b) % 32 or 0) if len(b) % 32 else b


class Kernels:
    """Builds the driver once per element type and runs one API on one block."""

    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(
        self,
        dtype: str,
        api: int,
        x: np.ndarray,
        y: np.ndarray | None = None,
        *,
        n: int,
        m: int = 1,
        k: int = 0,
        p0: int = 0,
        p1: int = 0,
        s0: float = 0.0,
        s1: float = 0.0,
        z_bytes: int,
        w_bytes: int = 32,
        tmp: int = 0,
    ) -> SimResult:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNELS / "quant_sort.cpp", "quant_sort", self._soc, [f"DTYPE={dtype}"])
        xb = pad32(x.tobytes())
        yb = pad32(y.tobytes()) if y is not None else bytes(32)
        z_bytes = (z_bytes + 31) // 32 * 32
        w_bytes = (w_bytes + 31) // 32 * 32
        tiling = struct.pack("<11Q2d", api, n, m, k, p0, p1, len(xb), len(yb), z_bytes, w_bytes, tmp, s0, s1)
        args = [
            GmIn(np.frombuffer(xb, np.uint8)),
            GmIn(np.frombuffer(yb, np.uint8)),
            GmOut(np.dtype(np.uint8), (z_bytes,)),
            GmOut(np.dtype(np.uint8), (w_bytes,)),
            Struct(tiling),
        ]
        return run_executable(self._exes[dtype], args, 1)


@pytest.fixture(scope="session")
def kernels() -> Kernels:
    return Kernels()


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def ok(r: SimResult) -> None:
    assert r.ok, [f.text for f in r.faults]


def f16(v) -> np.ndarray:
    return np.asarray(v, dtype=np.float64).astype(np.float16)


def quant_ref(x: np.ndarray, scale, offset) -> np.ndarray:
    """int8(rint(half(half(x) * half(scale)) + half(offset))), each step rounded to half."""
    h = x.astype(np.float16)
    y = (h * f16(scale)).astype(np.float16)
    y = (y + f16(offset)).astype(np.float16)
    return np.clip(np.rint(y.astype(np.float64)), -128, 127).astype(np.int8)


# ---- AscendQuant --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("n,tmp", [(1024, 512), (4096, 2048), (2016, 0)])
def test_ascend_quant_per_tensor(kernels, dtype, n, tmp):
    x = rng_for("quant", dtype, n).uniform(-20, 20, n).astype(NP[dtype])
    scale, offset = 2.5, 0.9
    api = QUANT_TMP if tmp else QUANT_OWN
    count = n - 32
    r = kernels.run(dtype, api, x, n=count, s0=scale, s1=offset, z_bytes=n, tmp=tmp)
    ok(r)
    got = r.outputs[0][:n].view(np.int8)
    assert np.array_equal(got[:count], quant_ref(x[:count], scale, offset))
    assert not np.any(got[count:]), "elements past calCount were written"


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("with_offset_tensor", [True, False])
def test_ascend_quant_per_channel(kernels, dtype, with_offset_tensor):
    rows, k = 6, 64
    n = rows * k
    g = rng_for("quant-channel", dtype, with_offset_tensor)
    x = g.uniform(-10, 10, n).astype(NP[dtype])
    scale = g.uniform(0.5, 3, k).astype(NP[dtype])
    offset = g.uniform(-2, 2, k).astype(NP[dtype])
    y = np.concatenate([scale, offset])
    api = QUANT_CHANNEL if with_offset_tensor else QUANT_CHANNEL_SCALAR
    r = kernels.run(dtype, api, x, y, n=n, k=k, s1=-1.25, z_bytes=n, tmp=512)
    ok(r)
    got = r.outputs[0][:n].view(np.int8).reshape(rows, k)
    off = offset if with_offset_tensor else np.full(k, -1.25)
    want = quant_ref(x.reshape(rows, k), scale.astype(np.float64)[None, :], off.astype(np.float64)[None, :])
    assert np.array_equal(got, want)


def test_ascend_quant_small_tmp_faults(kernels):
    x = np.ones(256, np.float32)
    assert kernels.run("float", QUANT_TMP, x, n=256, s0=1.0, s1=0.0, z_bytes=256, tmp=512).ok
    r = kernels.run("float", QUANT_TMP, x, n=256, s0=1.0, s1=0.0, z_bytes=256, tmp=480)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text and "512" in r.faults[0].text


# ---- AscendDequant ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m,n,cal", [(128, 32, 32), (4, 96, 80), (300, 8, 8)])
def test_ascend_dequant_float(kernels, m, n, cal):
    g = rng_for("dequant", m, n, cal)
    src = g.integers(-1000, 1000, (m, n)).astype(np.int32)
    scale = g.uniform(-3, 3, n).astype(np.float32)
    tmp = (64 + n + n + 8) * 4  # GetAscendDequantMaxMinTmpSize's minimum: one row at a time
    r = kernels.run("float", DEQUANT, src, scale, n=n, m=m, k=cal, z_bytes=m * n * 4, tmp=tmp)
    ok(r)
    got = r.outputs[0].view(np.float32)[: m * n].reshape(m, n)
    want = (src.astype(np.float32) * scale[None, :]).astype(np.float32)
    assert np.array_equal(got[:, :cal], want[:, :cal])
    r = kernels.run("float", DEQUANT_SCALAR, src, n=n, m=m, k=cal, s0=0.375, z_bytes=m * n * 4, tmp=tmp)
    ok(r)
    got = r.outputs[0].view(np.float32)[: m * n].reshape(m, n)
    assert np.array_equal(got[:, :cal], (src.astype(np.float32) * np.float32(0.375))[:, :cal])


def test_ascend_dequant_calcount_form(kernels):
    m, n, count = 10, 64, 64 * 7 + 40  # the last row in part
    g = rng_for("dequant-calcount")
    src = g.integers(-1000, 1000, (m, n)).astype(np.int32)
    scale = g.uniform(-3, 3, n).astype(np.float32)
    r = kernels.run(
        "float", DEQUANT_CALCOUNT, src, scale, n=n, m=m, k=count, z_bytes=m * n * 4, tmp=(64 + 2 * n + 8) * 4
    )
    ok(r)
    got = r.outputs[0].view(np.float32)[: m * n]
    want = (src.astype(np.float32) * scale[None, :]).astype(np.float32).ravel()
    assert np.array_equal(got[:count], want[:count])
    assert not np.any(got[count:]), "elements past calCount were written"


def test_ascend_dequant_uint64_scale_to_half(kernels):
    m, n = 16, 64
    g = rng_for("dequant-u64")
    src = g.integers(-200, 200, (m, n)).astype(np.int32)
    scale = g.uniform(0.01, 0.2, n).astype(np.float32)
    deq = scale.view(np.uint32).astype(np.uint64)  # the float scale in the low 32 bits
    r = kernels.run("float", DEQUANT_U64, src, deq, n=n, m=m, k=n, z_bytes=m * n * 2, tmp=(64 + 2 * n + 8) * 4)
    ok(r)
    got = r.outputs[0].view(np.float16)[: m * n].reshape(m, n)
    want = (src.astype(np.float32) * scale[None, :]).astype(np.float16)
    assert np.array_equal(got, want)


def test_ascend_dequant_small_tmp_faults(kernels):
    src = np.ones((4, 32), np.int32)
    scale = np.ones(32, np.float32)
    minimum = (64 + 32 + 32 + 8) * 4
    assert kernels.run("float", DEQUANT, src, scale, n=32, m=4, k=32, z_bytes=512, tmp=minimum).ok
    r = kernels.run("float", DEQUANT, src, scale, n=32, m=4, k=32, z_bytes=512, tmp=minimum - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]


# ---- Arange -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("n", [5, 40, 104, 1000])
def test_arange_exact_steps(kernels, dtype, n):
    first, diff = -3.5, 0.25  # every element is exact in half and float
    r = kernels.run(dtype, ARANGE, np.zeros(8, np.float32), n=n, s0=first, s1=diff, z_bytes=(n + 128) * 4)
    ok(r)
    got = r.outputs[0].view(NP[dtype])[:n].astype(np.float64)
    assert np.array_equal(got, first + diff * np.arange(n))


def test_arange_float_rounding_and_ints(kernels):
    n = 3000
    r = kernels.run("float", ARANGE, np.zeros(8, np.float32), n=n, s0=1.234, s1=5.678, z_bytes=(n + 64) * 4)
    ok(r)
    got = r.outputs[0].view(np.float32)[:n].astype(np.float64)
    want = np.float32(1.234) + np.float64(np.float32(5.678)) * np.arange(n)
    assert np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))) < 1e-5
    for api, dt in ((ARANGE_I32, np.int32), (ARANGE_I16, np.int16)):
        r = kernels.run("float", api, np.zeros(8, np.float32), n=700, s0=-100, s1=3, z_bytes=(700 + 128) * 4)
        ok(r)
        assert np.array_equal(r.outputs[0].view(dt)[:700], (-100 + 3 * np.arange(700)).astype(dt))


# ---- Select with a byte mask --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("rows,src_last,mask_last", [(2, 32, 32), (3, 64, 96), (40, 128, 160), (1, 4096, 4096)])
def test_select_bytes_mask(kernels, dtype, rows, src_last, mask_last):
    g = rng_for("select", dtype, rows, src_last, mask_last)
    x = g.uniform(-4, 4, (rows, src_last)).astype(NP[dtype])
    mask = g.integers(0, 2, (rows, mask_last)).astype(np.uint8) * g.integers(1, 5, (rows, mask_last)).astype(np.uint8)
    scalar = 1.5
    keep = mask[:, :src_last] == 0
    size = x.nbytes
    tmp = 1024 + 512 + size * 2 + rows * src_last  # above GetSelectMinTmpSize for every form here
    for api, want in (
        (SELECT, np.where(keep, x, NP[dtype](scalar))),
        (SELECT_REVERSE, np.where(keep, NP[dtype](scalar), x)),
        (SELECT_COPY_MASK, np.where(keep, x, NP[dtype](scalar))),
    ):
        r = kernels.run(dtype, api, x, mask.copy(), n=src_last, m=rows, k=mask_last, s0=scalar, z_bytes=size, tmp=tmp)
        ok(r)
        got = r.outputs[0].view(NP[dtype])[: rows * src_last].reshape(rows, src_last)
        assert np.array_equal(got, want), f"api {api}"


def test_select_small_tmp_faults(kernels):
    x = np.ones((2, 32), np.float32)
    mask = np.zeros((2, 32), np.uint8)
    assert kernels.run("float", SELECT, x, mask, n=32, m=2, k=32, s0=1.0, z_bytes=256, tmp=1024).ok
    r = kernels.run("float", SELECT, x, mask, n=32, m=2, k=32, s0=1.0, z_bytes=256, tmp=992)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]


# ---- DropOut ------------------------------------------------------------------------------------------------
def bits_lsb_first(mask: np.ndarray, n: int) -> np.ndarray:
    return np.unpackbits(mask, axis=1, bitorder="little")[:, :n]


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("mode", ["byte", "byte-padded", "bit", "bit-padded"])
def test_dropout(kernels, dtype, mode):
    rows, n = 4, 256
    g = rng_for("dropout", dtype, mode)
    x = g.uniform(-100, 100, (rows, n)).astype(NP[dtype])
    if mode.startswith("byte"):
        k = n if mode == "byte" else n + 32
        mask = g.integers(0, 2, (rows, k)).astype(np.uint8)
        keep = mask[:, :n].astype(NP[dtype])
    else:
        k = n // 8 if mode == "bit" else n // 8 + 32
        mask = g.integers(0, 256, (rows, k)).astype(np.uint8)
        keep = bits_lsb_first(mask, n).astype(NP[dtype])
    prob = 0.7
    div = NP[dtype](np.float32(1.0) / np.float32(prob))
    r = kernels.run(dtype, DROPOUT, x, mask, n=n, m=rows, k=k, s0=prob, z_bytes=x.nbytes, tmp=2048)
    ok(r)
    got = r.outputs[0].view(NP[dtype])[: rows * n].reshape(rows, n)
    want = ((x * keep).astype(NP[dtype]) * div).astype(NP[dtype])
    assert np.array_equal(got, want)


def test_dropout_small_tmp_faults(kernels):
    x = np.ones((1, 64), np.float32)
    mask = np.ones((1, 64), np.uint8)
    r = kernels.run("float", DROPOUT, x, mask, n=64, m=1, k=64, s0=0.5, z_bytes=256, tmp=256)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]


# ---- Concat / Sort / Extract --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("n", [32, 128, 160, 640])
def test_full_sort(kernels, dtype, n):
    g = rng_for("sort", dtype, n)
    x = g.permutation(np.linspace(-1000, 1000, n)).astype(NP[dtype])  # distinct scores
    idx = g.permutation(n).astype(np.uint32)
    # Extract's half form gathers the indices with twice the repeats of the scores (asc-devkit's A2 code): it
    # writes 2n indices, the last n from past the sorted list, so dstIndex must hold 2n.
    w_bytes = n * 4 * (2 if dtype == "half" else 1)
    r = kernels.run(dtype, SORT, x, idx, n=n, z_bytes=x.nbytes, w_bytes=w_bytes, tmp=2 * n * 8)
    ok(r)
    order = np.argsort(-x.astype(np.float64), kind="stable")
    assert np.array_equal(r.outputs[0].view(NP[dtype])[:n], x[order])
    assert np.array_equal(r.outputs[1].view(np.uint32)[:n], idx[order])


# ---- TopK ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize(
    "rows,inner,k,largest", [(2, 32, 1, False), (3, 128, 5, True), (2, 544, 20, False), (1, 2048, 9, True)]
)
def test_topk_normal(kernels, dtype, rows, inner, k, largest):
    g = rng_for("topk", dtype, rows, inner, k, largest)
    x = np.stack([g.permutation(np.linspace(-500, 500, inner)) for _ in range(rows)]).astype(NP[dtype])
    finish = np.zeros(32, np.bool_)
    finish[:rows] = g.integers(0, 2, rows).astype(np.bool_)
    kpad = (k + 7) // 8 * 8 if dtype == "float" else (k + 15) // 16 * 16
    kpad_i = (k + 7) // 8 * 8
    tmp = 20 * inner
    r = kernels.run(
        dtype,
        TOPK,
        x,
        finish,
        n=inner,
        m=rows,
        k=k,
        p0=int(largest),
        p1=inner,
        z_bytes=rows * kpad * x.itemsize,
        w_bytes=rows * kpad_i * 4,
        tmp=tmp,
    )
    ok(r)
    vals = r.outputs[0].view(NP[dtype])[: rows * kpad].reshape(rows, kpad)[:, :k]
    idxs = r.outputs[1].view(np.int32)[: rows * kpad_i].reshape(rows, kpad_i)[:, :k]
    xf = x.astype(np.float64)
    order = np.argsort(-xf if largest else xf, axis=1, kind="stable")[:, :k]
    assert np.array_equal(vals, np.take_along_axis(x, order, axis=1))
    want_idx = np.where(finish[:rows, None], inner, order)
    assert np.array_equal(idxs, want_idx)


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("rows,k,largest", [(4, 3, True), (5, 20, False), (1, 32, True)])
def test_topk_small(kernels, dtype, rows, k, largest):
    g = rng_for("topk-small", dtype, rows, k, largest)
    x = np.stack([g.permutation(np.linspace(-50, 50, 32)) for _ in range(rows)]).astype(NP[dtype])
    io = rows * 32
    tmp = io * 8 + 64 + (0 if largest else io * 4) + io * 4
    r = kernels.run(
        dtype,
        TOPK_SMALL,
        x,
        n=32,
        m=rows,
        k=k,
        p0=int(largest),
        p1=32,
        z_bytes=rows * k * x.itemsize,
        w_bytes=rows * k * 4,
        tmp=tmp,
    )
    ok(r)
    xf = x.astype(np.float64)
    order = np.argsort(-xf if largest else xf, axis=1, kind="stable")[:, :k]
    assert np.array_equal(r.outputs[0].view(NP[dtype])[: rows * k].reshape(rows, k), np.take_along_axis(x, order, 1))
    assert np.array_equal(r.outputs[1].view(np.int32)[: rows * k].reshape(rows, k), order)


def test_topk_small_tmp_faults(kernels):
    x = np.arange(64, dtype=np.float32)
    r = kernels.run(
        "float", TOPK, x, np.zeros(32, np.bool_), n=64, m=1, k=4, p0=1, p1=64, z_bytes=64, w_bytes=64, tmp=20 * 64 - 32
    )
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "TopK" in r.faults[0].text


# ---- AscendAntiQuant ----------------------------------------------------------------------------------------
def to_bf16_bits(v: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, round to nearest even."""
    u = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16_bits(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("k,n", [(8, 128), (300, 96), (3, 160)])
def test_antiquant_half_per_channel(kernels, k, n):
    g = rng_for("antiquant", k, n)
    src = g.integers(-128, 128, (k, n)).astype(np.int8)
    offset = g.uniform(-10, 10, n).astype(np.float16)
    scale = g.uniform(-10, 10, n).astype(np.float16)
    y = np.concatenate([offset, scale])
    h = src.astype(np.float16)
    for api, want in (
        (ANTIQUANT, ((h + offset).astype(np.float16) * scale).astype(np.float16)),
        (ANTIQUANT_NO_OFFSET, (h * scale).astype(np.float16)),
    ):
        r = kernels.run("half", api, src, y, n=n, m=k, z_bytes=k * n * 2, tmp=0 if k < 8 else 1024)
        ok(r)
        assert np.array_equal(r.outputs[0].view(np.float16)[: k * n].reshape(k, n), want), f"api {api}"


@pytest.mark.parametrize("rows,kk,groups", [(16, 64, 1), (8, 128, 2), (16, 64, 2)])
def test_antiquant_half_transposed_groups(kernels, rows, kk, groups):
    g = rng_for("antiquant-t", rows, kk, groups)
    src = g.integers(-128, 128, (rows, kk)).astype(np.int8)
    offset = g.uniform(-10, 10, (rows, groups)).astype(np.float16)
    scale = g.uniform(-2, 2, (rows, groups)).astype(np.float16)
    y = np.concatenate([offset.ravel(), scale.ravel()])  # rows x groups is a multiple of 16: scale 32-byte aligned
    r = kernels.run("half", ANTIQUANT_TRANSPOSE, src, y, n=kk, m=rows, p1=groups, z_bytes=src.size * 2, tmp=1024)
    ok(r)
    o = np.repeat(offset, kk // groups, axis=1)
    sc = np.repeat(scale, kk // groups, axis=1)
    want = ((src.astype(np.float16) + o).astype(np.float16) * sc).astype(np.float16)
    assert np.array_equal(r.outputs[0].view(np.float16)[: src.size].reshape(rows, kk), want)


def test_antiquant_half_per_tensor(kernels):
    src = rng_for("antiquant-tensor").integers(-128, 128, 1024).astype(np.int8)
    r = kernels.run("half", ANTIQUANT_TENSOR, src, n=1024, m=4, s0=0.3, s1=-1.5, z_bytes=2048, tmp=1024)
    ok(r)
    want = ((src.astype(np.float16) + f16(-1.5)).astype(np.float16) * f16(0.3)).astype(np.float16)
    assert np.array_equal(r.outputs[0].view(np.float16)[:1024], want)


def test_antiquant_bf16(kernels):
    k, n = 8, 128
    g = rng_for("antiquant-bf16")
    src = g.integers(-128, 128, (k, n)).astype(np.int8)
    off_b = to_bf16_bits(g.uniform(-10, 10, n))
    sc_b = to_bf16_bits(g.uniform(-3, 3, n))
    tmp = n * 2 * 4 + 64 * k * 4  # GetAscendAntiQuantMaxMinTmpSize's minimum (bfloat16_t, per channel)
    r = kernels.run("half", ANTIQUANT_BF16, src, np.concatenate([off_b, sc_b]), n=n, m=k, z_bytes=k * n * 2, tmp=tmp)
    ok(r)
    f = ((src.astype(np.float32) + from_bf16_bits(off_b)) * from_bf16_bits(sc_b)).astype(np.float32)
    assert np.array_equal(r.outputs[0].view(np.uint16)[: k * n].reshape(k, n), to_bf16_bits(f))
    r = kernels.run(
        "half", ANTIQUANT_BF16, src, np.concatenate([off_b, sc_b]), n=n, m=k, z_bytes=k * n * 2, tmp=tmp - 32
    )
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    r = kernels.run("half", ANTIQUANT_BF16_TENSOR, src, n=n, m=k, s0=0.75, s1=2.0, z_bytes=k * n * 2, tmp=1024)
    ok(r)
    f = ((src.astype(np.float32) + np.float32(2.0)) * np.float32(0.75)).astype(np.float32)
    assert np.array_equal(r.outputs[0].view(np.uint16)[: k * n], to_bf16_bits(f.ravel()))


def test_unsupported_element_type_is_a_compile_error():
    from tuner.errors import CompileError

    with pytest.raises(CompileError) as err:
        build_kernel(KERNELS / "quant_sort.cpp", "quant_sort", get_soc(DEFAULT_SOC), ["DTYPE=int16_t"])
    text = str(err.value) + err.value.diagnostics
    assert "this element type is not supported" in text
    assert any(api in text for api in ("AscendQuant", "Arange", "Concat", "Sort", "TopK", "DropOut"))
