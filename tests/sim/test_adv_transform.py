"""Tensor-transform advanced APIs of the simulator (tuner_sim/adv_transform.h): Broadcast, Pad, UnPad and
Transpose (ConfusionTranspose), run as a real kernel (tests/sim/kernels/advanced/adv_transform.cpp) whose tiling
comes from the host helpers (adv_transform_host.h), compared with numpy references of what the docs say each
computes. These APIs only move data, so the comparison is exact. Also: a sharedTmpBuffer below the documented
minimum faults, and the forms the simulator does not provide fail loudly.
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

KERNEL = Path(__file__).resolve().parent / "kernels" / "advanced" / "adv_transform.cpp"
NP = {"half": np.float16, "float": np.float32, "int16_t": np.int16, "int32_t": np.int32, "int8_t": np.int8}
BRC_LAST, BRC_FIRST, BRC_SCALAR, BRC_COPY, PAD, UNPAD, T0213_ND, T0213_NZ, T_ONLY = range(9)


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def padded(n: int, dtype: str) -> int:
    per = 32 // np.dtype(NP[dtype]).itemsize
    return (n + per - 1) // per * per


class Kernels:
    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(
        self,
        dtype: str,
        x: np.ndarray,
        out_len: int,
        *,
        api: int,
        dims=(0, 0, 0, 0, 0),
        pad_value: int = 0,
        own: bool = False,
        tmp: int = 0,
        tiling_tmp: int = 0,
    ) -> tuple[SimResult, np.ndarray]:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNEL, "adv_transform", self._soc, [f"DTYPE={dtype}"])
        in_len = padded(len(x), dtype)
        xin = np.zeros(in_len, NP[dtype])
        xin[: len(x)] = x
        out_len = padded(out_len, dtype)
        params = struct.pack("<9Ii2I", api, int(own), in_len, out_len, *dims, pad_value, tmp, tiling_tmp)
        r = run_executable(self._exes[dtype], [GmIn(xin), GmOut(np.dtype(NP[dtype]), (out_len,)), Struct(params)], 1)
        return r, (r.outputs[0] if r.ok else None)


@pytest.fixture(scope="session")
def kernels() -> Kernels:
    return Kernels()


def values(dtype: str, n: int, *key) -> np.ndarray:
    rng = rng_for(dtype, n, *key)
    if dtype == "int8_t":
        return rng.integers(-128, 128, n).astype(np.int8)
    if dtype in ("int16_t", "int32_t"):
        return rng.integers(-1000, 1000, n).astype(NP[dtype])
    return rng.uniform(-10, 10, n).astype(NP[dtype])


# ---- Broadcast ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize(
    "m,k,own", [(96, 96, False), (16, 40, False), (300, 16, False), (7, 8, True), (33, 130, False)]
)
def test_broadcast_last_axis(kernels, dtype, m, k, own):
    x = values(dtype, m, "last", k)
    r, y = kernels.run(dtype, x, m * k, api=BRC_LAST, dims=(m, k, 0, 0, 0), own=own)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: m * k].reshape(m, k), np.broadcast_to(x.reshape(m, 1), (m, k)))


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("m,k,own", [(96, 48, False), (13, 64, True), (3, 4096, False)])
def test_broadcast_first_axis(kernels, dtype, m, k, own):
    x = values(dtype, k, "first", m)
    r, y = kernels.run(dtype, x, m * k, api=BRC_FIRST, dims=(m, k, 0, 0, 0), own=own)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: m * k].reshape(m, k), np.broadcast_to(x.reshape(1, k), (m, k)))


@pytest.mark.parametrize("dtype", ["half", "float"])
@pytest.mark.parametrize("api,k", [(BRC_SCALAR, 100), (BRC_COPY, 200), (BRC_COPY, 5)])
def test_broadcast_one_dim(kernels, dtype, api, k):
    x = values(dtype, 1 if api == BRC_SCALAR else k, "1d")
    r, y = kernels.run(dtype, x, k, api=api, dims=(0, k, 0, 0, 0))
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[:k], np.broadcast_to(x, (k,)))


@pytest.mark.parametrize("dtype", ["int8_t", "int16_t", "int32_t"])
@pytest.mark.parametrize("api,m,k", [(BRC_LAST, 33, 70), (BRC_FIRST, 5, 64), (BRC_SCALAR, 1, 90)])
def test_broadcast_integer_types(kernels, dtype, api, m, k):
    x = values(dtype, m if api == BRC_LAST else (1 if api == BRC_SCALAR else k), "int", api)
    r, y = kernels.run(dtype, x, m * k, api=api, dims=(m, k, 0, 0, 0))
    assert r.ok, [f.text for f in r.faults]
    want = np.broadcast_to(x.reshape(m, 1) if api == BRC_LAST else x.reshape(1, -1), (m, k)).ravel()
    np.testing.assert_array_equal(y[: m * k], want)


def test_broadcast_first_axis_unaligned_row_is_refused(kernels):
    r, _ = kernels.run("float", values("float", 12, "u"), 4 * 12, api=BRC_FIRST, dims=(4, 12, 0, 0, 0))
    assert [f.cls for f in r.faults] == ["unsupported"], [f.text for f in r.faults]


def test_broadcast_too_small_tmp_faults(kernels):
    m, k = 16, 41  # float, k not aligned: the minimum is 8 x 8 + 8 x 48 floats = 1792 bytes
    x = values("float", m, "tmp")
    ok, _ = kernels.run("float", x, m * k, api=BRC_LAST, dims=(m, k, 0, 0, 0), tmp=1792)
    assert ok.ok, [f.text for f in ok.faults]
    r, _ = kernels.run("float", x, m * k, api=BRC_LAST, dims=(m, k, 0, 0, 0), tmp=1760)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text and "1792" in r.faults[0].text


# ---- Pad / UnPad ----------------------------------------------------------------------------------------------
def pad_ref(x: np.ndarray, h: int, w: int, ori: int, left: int, right: int, value, out_w: int) -> np.ndarray:
    out = np.zeros((h, out_w), x.dtype)
    src = x.reshape(h, w)
    if left == 0 and w * x.itemsize % 32 == 0:  # aligned: the redundant columns from ori on are overwritten
        out[:, :w] = src
        out[:, ori : ori + right] = value
    else:
        out[:, :left] = value
        out[:, left : left + w] = src
        out[:, left + w : left + w + right] = value
    return out


@pytest.mark.parametrize(
    "dtype,h,w,left,right,tmp",
    [
        ("half", 16, 15, 0, 1, 0),
        ("half", 16, 13, 2, 1, 0),
        ("int16_t", 8, 30, 0, 2, 0),
        ("half", 40, 100, 3, 9, 0),
        ("half", 16, 70, 0, 10, 4096),
        ("half", 4, 200, 0, 8, 1024),
    ],
)
def test_pad_unaligned_two_byte(kernels, dtype, h, w, left, right, tmp):
    x = values(dtype, h * w, "pad", left, right)
    out_w = w + left + right
    r, y = kernels.run(dtype, x, h * out_w, api=PAD, dims=(h, w, w, left, right), pad_value=321, tmp=tmp)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: h * out_w].reshape(h, out_w), pad_ref(x, h, w, w, left, right, 321, out_w))


@pytest.mark.parametrize(
    "dtype,h,w,ori,right",
    [("float", 16, 32, 30, 2), ("half", 300, 32, 29, 3), ("int32_t", 4, 16, 15, 1), ("int16_t", 5, 48, 40, 8)],
)
def test_pad_aligned_fills_the_redundant_columns(kernels, dtype, h, w, ori, right):
    x = values(dtype, h * w, "aligned", ori)
    r, y = kernels.run(dtype, x, h * w, api=PAD, dims=(h, w, ori, 0, right), pad_value=-7)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: h * w].reshape(h, w), pad_ref(x, h, w, ori, 0, right, -7, w))


def test_pad_source_not_32_byte_aligned_is_refused(kernels):
    r, _ = kernels.run("half", values("half", 5 * 13, "n"), 5 * 16, api=PAD, dims=(5, 13, 13, 2, 1))
    assert [f.cls for f in r.faults] == ["unsupported"], [f.text for f in r.faults]
    assert "32" in r.faults[0].text


def test_pad_short_of_the_aligned_width_is_refused(kernels):
    r, _ = kernels.run("half", values("half", 16 * 13, "s"), 16 * 16, api=PAD, dims=(16, 13, 13, 0, 1))
    assert [f.cls for f in r.faults] == ["unsupported"], [f.text for f in r.faults]
    assert "rounded up to 32 bytes (16)" in r.faults[0].text


@pytest.mark.parametrize("dtype,h,w,left,right", [("float", 16, 31, 0, 1), ("int32_t", 8, 13, 2, 1),
                                                  ("float", 20, 70, 1, 1)])
def test_pad_unaligned_four_byte(kernels, dtype, h, w, left, right):
    """Unaligned 4-byte rows go through the 4-byte TransDataTo5HD, as on A2."""
    x = values(dtype, h * w, "pad4", left, right)
    out_w = w + left + right
    r, y = kernels.run(dtype, x, h * out_w, api=PAD, dims=(h, w, w, left, right), pad_value=321)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: h * out_w].reshape(h, out_w), pad_ref(x, h, w, w, left, right, 321, out_w))


def test_pad_too_small_tmp_faults(kernels):
    x = values("half", 16 * 15, "t")
    ok, _ = kernels.run("half", x, 256, api=PAD, dims=(16, 15, 15, 0, 1), tmp=1024)
    assert ok.ok, [f.text for f in ok.faults]
    r, _ = kernels.run("half", x, 256, api=PAD, dims=(16, 15, 15, 0, 1), tmp=992)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text and "1024" in r.faults[0].text


@pytest.mark.parametrize(
    "dtype,h,w,right", [("float", 8, 8, 1), ("half", 20, 32, 5), ("int32_t", 3, 24, 7), ("int16_t", 300, 16, 15)]
)
def test_unpad(kernels, dtype, h, w, right):
    x = values(dtype, h * w, "unpad", right)
    r, y = kernels.run(dtype, x, h * (w - right), api=UNPAD, dims=(h, w, 0, 0, right))
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: h * (w - right)].reshape(h, w - right), x.reshape(h, w)[:, : w - right])


# ---- Transpose (ConfusionTranspose) ---------------------------------------------------------------------------
def nz_index(b, n, s, h, N, S, HN):
    """Element [b, n, s, h] of an [B, N, S, HN] tensor stored NZ: [B, N, HN/16, S/16, 16, 16]."""
    return (((b * N + n) * (HN // 16) + h // 16) * (S // 16) + s // 16) * 256 + (s % 16) * 16 + h % 16


@pytest.mark.parametrize("dtype", ["half", "int16_t"])
@pytest.mark.parametrize("api", [T0213_ND, T0213_NZ])
@pytest.mark.parametrize(
    "B,N,S,HN,tmp,own",
    [(1, 2, 64, 32, 0, False), (2, 3, 48, 16, 0, False), (1, 16, 32, 48, 2048, False), (2, 2, 80, 32, 0, True)],
)
def test_transpose_0213(kernels, dtype, api, B, N, S, HN, tmp, own):
    v = values(dtype, B * N * S * HN, "t0213", B, N, S, HN).reshape(B, N, S, HN)
    b, n, s, h = np.indices(v.shape)
    src = np.zeros(v.size, v.dtype)
    src[nz_index(b, n, s, h, N, S, HN)] = v
    r, y = kernels.run(
        dtype, src, v.size, api=api, dims=(B, N, S, HN, 0), tmp=tmp, own=own, tiling_tmp=16 * 16 * 2 * 2 if own else 0
    )
    assert r.ok, [f.text for f in r.faults]
    want = np.zeros(v.size, v.dtype)
    if api == T0213_ND:  # [B, S, N, HN]
        want[((b * S + s) * N + n) * HN + h] = v
    else:  # per [b, s]: [HN/16, N, 16]
        want[(b * S + s) * N * HN + (h // 16) * N * 16 + n * 16 + h % 16] = v
    np.testing.assert_array_equal(y[: v.size], want)


@pytest.mark.parametrize("dtype", ["half", "int16_t"])
@pytest.mark.parametrize("H,W", [(16, 16), (32, 48), (64, 16)])
def test_transpose_nd_only(kernels, dtype, H, W):
    x = values(dtype, H * W, "only", H, W)
    r, y = kernels.run(dtype, x, H * W, api=T_ONLY, dims=(H, W, 0, 0, 0))
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: H * W].reshape(W, H), x.reshape(H, W).T)


def test_transpose_too_small_tmp_faults(kernels):
    B, N, S, HN = 1, 2, 32, 16
    src = values("half", B * N * S * HN, "tt")
    r, _ = kernels.run("half", src, src.size, api=T0213_ND, dims=(B, N, S, HN, 0), tmp=256, tiling_tmp=512)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text


def test_transpose_four_byte_is_unsupported(kernels):
    B, N, S, HN = 1, 2, 32, 16
    src = values("float", B * N * S * HN, "tf")
    r, _ = kernels.run("float", src, src.size, api=T0213_ND, dims=(B, N, S, HN, 0))
    assert [f.cls for f in r.faults] == ["unsupported"], [f.text for f in r.faults]


# ---- TransData ------------------------------------------------------------------------------------------------
TO_6HD, FROM_6HD, TO_FZ, FROM_FZ = range(9, 13)


def transdata_case(api: int, n: int, c: int, d: int, h: int, w: int, dtype: str):
    """(input, expected output, a mask of the output elements the docs define) for one conversion. NCDHW tensors
    hold H * W padded to 16 (TransData.md 约束说明); C and N are padded with zeros to C1 * 16 and N1 * 16."""
    c1, n1, hw = (c + 15) // 16, (n + 15) // 16, h * w
    hwp = (hw + 15) // 16 * 16
    rng = rng_for("transdata", api, n, c, d, h, w, dtype)
    v = rng.integers(-1000, 1000, (n, c, d, hw)).astype(NP[dtype])
    ncdhw = np.zeros((n, c, d, hwp), v.dtype)
    ncdhw[..., :hw] = v
    cpad = np.zeros((n, c1 * 16, d, hw), v.dtype)
    cpad[:, :c] = v
    hd = cpad.reshape(n, c1, 16, d, hw).transpose(0, 3, 1, 4, 2)  # [n, d, c1, hw, c0]
    ncpad = np.zeros((n1 * 16, c1 * 16, d, hw), v.dtype)
    ncpad[:n, :c] = v
    fz = ncpad.reshape(n1, 16, c1, 16, d, hw).transpose(4, 2, 5, 0, 1, 3)  # [d, c1, hw, n1, n0, c0]
    valid = np.zeros((n, c, d, hwp), bool)
    valid[..., :hw] = True
    if api == TO_6HD:
        return ncdhw.ravel(), hd.ravel(), np.ones(hd.size, bool)
    if api == FROM_6HD:
        return hd.ravel(), ncdhw.ravel(), valid.ravel()
    if api == TO_FZ:
        return ncdhw.ravel(), fz.ravel(), np.ones(fz.size, bool)
    return fz.ravel(), ncdhw.ravel(), valid.ravel()


@pytest.mark.parametrize("api", [TO_6HD, FROM_6HD, TO_FZ, FROM_FZ])
@pytest.mark.parametrize(
    "n,c,d,h,w,dtype,own",
    [
        (16, 16, 1, 3, 5, "half", False),
        (3, 20, 2, 4, 4, "half", False),
        (17, 33, 1, 1, 3, "int16_t", False),
        (2, 16, 3, 4, 8, "half", True),
    ],
)
def test_transdata(kernels, api, n, c, d, h, w, dtype, own):
    src, want, valid = transdata_case(api, n, c, d, h, w, dtype)
    r, y = kernels.run(dtype, src, want.size, api=api, dims=(n, c, d, h, w), own=own)
    assert r.ok, [f.text for f in r.faults]
    np.testing.assert_array_equal(y[: want.size][valid], want[valid])


def test_transdata_too_small_tmp_faults(kernels):
    n, c, d, h, w = 16, 16, 1, 3, 5  # NCDHW -> NDC1HWC0 takes (d * 16 + d * 16 * 16) * 2 = 544 bytes
    src, _, _ = transdata_case(TO_6HD, n, c, d, h, w, "half")
    ok, _ = kernels.run("half", src, 16 * 16 * 15, api=TO_6HD, dims=(n, c, d, h, w), tmp=544)
    assert ok.ok, [f.text for f in ok.faults]
    r, _ = kernels.run("half", src, 16 * 16 * 15, api=TO_6HD, dims=(n, c, d, h, w), tmp=512)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "sharedTmpBuffer" in r.faults[0].text and "544" in r.faults[0].text


T012_ND, T012_NZ = 13, 14


@pytest.mark.parametrize("dtype", ["half", "int16_t"])
@pytest.mark.parametrize("api", [T012_ND, T012_NZ])
@pytest.mark.parametrize(
    "B,N,S,HN,own", [(1, 2, 32, 16, False), (2, 3, 16, 32, False), (1, 2, 48, 8, False), (2, 4, 16, 24, True)]
)
def test_transpose_012_without_n(kernels, dtype, api, B, N, S, HN, own):
    hnb, sb = (HN + 15) // 16, (S + 15) // 16
    H = N * HN
    align_h = (H + 15) // 16 * 16
    v = values(dtype, B * N * S * HN, "t012", B, N, S, HN).reshape(B, N, S, HN)
    b, n, s, h = np.indices(v.shape)
    src = values(dtype, B * N * hnb * sb * 256, "junk", B, N, S, HN)  # the NZ padding columns hold junk
    src[(((b * N + n) * hnb + h // 16) * sb + s // 16) * 256 + (s % 16) * 16 + h % 16] = v
    out = B * sb * 16 * align_h
    r, y = kernels.run(dtype, src, out, api=api, dims=(B, N, S, HN, 0), own=own)
    assert r.ok, [f.text for f in r.faults]
    hh = n * HN + h  # the column of [B, S, H]
    if api == T012_ND:
        at = (b * sb * 16 + s) * align_h + hh
    else:
        at = b * align_h * sb * 16 + (hh // 16) * sb * 256 + (s // 16) * 256 + (s % 16) * 16 + hh % 16
    np.testing.assert_array_equal(y[at], v)
