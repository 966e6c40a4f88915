"""Basic-API extras of the simulator, against numpy/float64 references on random inputs:

- races between blocks: writes of identical bytes to the same GM bytes are not a gm-race (as on the NPU, whose
  result is the same whichever block writes last), different bytes and reads against writes still are;
- the advanced Axpy (half/float mixes, Cast + Muls + Add passes), ReduceMax / ReduceMin over one axis (AR and
  RA, every branch of the A2 expansion, sharedTmpBuffer / own space / isReuseSource);
- ListTensorDesc / TensorDesc, InitOutput, a custom TBufPool (EXTERN_IMPL_BUFPOOL), Cast between int4b_t and half;
- and the faults where the docs set a rule (temporary space below the minimum, a list index past the list, a
  buffer outside its pool, an odd int4b_t count).

Kernels in tests/sim/kernels/advanced/basic_*.cpp.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from tuner.backends.args import GmIn, GmOut, Scalar
from tuner.data.socs import get_soc
from tuner.errors import CompileError
from tuner.sim.build import Executable, build_kernel
from tuner.sim.run import DEFAULT_SOC, SimResult, run_executable

KERNELS = Path(__file__).resolve().parent / "kernels" / "advanced"


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


class Builds:
    """Builds each (kernel, defines) once per session."""

    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[tuple, Executable] = {}

    def get(self, source: str, kernel: str, *defines: str) -> Executable:
        key = (source, kernel, defines)
        if key not in self._exes:
            self._exes[key] = build_kernel(KERNELS / source, kernel, self._soc, list(defines))
        return self._exes[key]


@pytest.fixture(scope="session")
def builds() -> Builds:
    return Builds()


# ---- writes of identical bytes by several blocks -------------------------------------------------------

RACE_N = 256


def run_race(builds: Builds, mode: int, blocks: int) -> tuple[SimResult, np.ndarray]:
    src = rng_for("race", mode, blocks).standard_normal(RACE_N * (blocks + 1)).astype(np.float32)
    exe = builds.get("basic_race.cpp", "basic_race", f"MODE={mode}")
    args = [
        GmIn(src, "src"),
        GmOut(np.dtype(np.float32), (RACE_N * (blocks + 1),), "dst"),
        GmOut(np.dtype(np.float32), (RACE_N * blocks,), "out"),
        Scalar("u32", RACE_N),
    ]
    return run_executable(exe, args, blocks), src


@pytest.mark.parametrize("blocks", [2, 8])
@pytest.mark.parametrize("mode", [0, 2, 3, 6])
def test_blocks_storing_identical_bytes_are_not_a_race(builds, mode, blocks):
    r, src = run_race(builds, mode, blocks)
    assert r.faults == [], [f.text for f in r.faults]
    dst = r.outputs[0]
    if mode == 2:  # block b stored src[b*n/2, b*n/2 + n) at the same offset
        end = RACE_N // 2 * (blocks - 1) + RACE_N
        np.testing.assert_array_equal(dst[:end], src[:end])
    else:
        k = RACE_N - 3 if mode == 3 else RACE_N
        np.testing.assert_array_equal(dst[:k], src[:k])


@pytest.mark.parametrize("blocks", [2, 8])
def test_blocks_storing_different_bytes_are_a_race(builds, blocks):
    r, _ = run_race(builds, 1, blocks)
    assert [f.cls for f in r.faults] == ["gm-race"]
    assert "both write the same GM bytes" in r.faults[0].text


def test_a_different_last_value_is_a_race(builds):
    """Blocks agree on their first store but not on their last: what GM ends with depends on the order."""
    r, _ = run_race(builds, 5, 4)
    assert [f.cls for f in r.faults] == ["gm-race"]
    assert "both write the same GM bytes" in r.faults[0].text


def test_reading_identical_bytes_another_block_writes_is_still_a_race(builds):
    r, _ = run_race(builds, 4, 4)
    assert [f.cls for f in r.faults] == ["gm-race"]
    assert "reads (DataCopy at" in r.faults[0].text


# ---- the advanced Axpy -----------------------------------------------------------------------------------

NP = {"half": np.float16, "float": np.float32}


def run_axpy(builds: Builds, dst: str, src: str, n: int, tmp: int, a: float = 1.75):
    padded = (n + 15) // 16 * 16
    rng = rng_for("axpy", dst, src, n, tmp)
    x = rng.uniform(-4, 4, padded).astype(NP[src])
    y = rng.uniform(-4, 4, padded).astype(NP[dst])
    exe = builds.get("basic_axpy.cpp", "basic_axpy", f"DST={dst}", f"SRC={src}")
    args = [
        GmIn(x),
        GmIn(y),
        GmOut(np.dtype(NP[dst]), (padded,)),
        Scalar("u32", n),
        Scalar("u32", padded),
        Scalar("u32", tmp),
        Scalar("f32", a),
    ]
    return run_executable(exe, args, 1), x, y, float(NP[src](a))


@pytest.mark.parametrize("n", [64, 200, 1000, 4096])
@pytest.mark.parametrize(
    ("dst", "src", "tmp"),
    [
        ("half", "half", 1024),
        ("half", "half", 4096),
        ("float", "half", 1024),
        ("float", "half", 3072),
        ("float", "float", 0),
    ],
)
def test_axpy(builds, dst, src, tmp, n):
    r, x, y, a = run_axpy(builds, dst, src, n, tmp)
    assert r.faults == [], [f.text for f in r.faults]
    want = a * x[:n].astype(np.float64) + y[:n].astype(np.float64)
    got = r.outputs[0]
    rtol = 1e-3 if dst == "half" else 1e-6
    err = np.abs(got[:n].astype(np.float64) - want) / np.maximum(1.0, np.abs(want))
    assert err.max() <= rtol, (int(err.argmax()), err.max())
    np.testing.assert_array_equal(got[n:], y[n:])  # past calCount, dst is left alone


def test_axpy_tmp_below_minimum_is_a_fault(builds):
    r, *_ = run_axpy(builds, "float", "half", 512, 992)
    assert [f.cls for f in r.faults] == ["out-of-bounds"]
    assert "Axpy: sharedTmpBuffer holds 992 bytes, below the minimum temporary size 1024" in r.faults[0].text


# ---- ReduceMax / ReduceMin over one axis -----------------------------------------------------------------


def reduce_tmp_bytes(dtype: str, pattern: int, first: int, last: int, op: int = 0) -> int:
    """GetReduceMax/Min/SumMaxMinTmpSize (reduce_tiling.cpp) for isReuseSource false."""
    size = np.dtype(NP[dtype]).itemsize
    if pattern == 0 and op == 2:
        k = 1 << (last.bit_length() - 1)
        if k == last and first > 1:
            k >>= 1
        return 0 if last <= 64 else first * k * 4
    if pattern == 0:
        blk, rep = 32 // size, 256 // size
        return 0 if last <= blk else first * blk * size if last < rep else first * rep * size
    k = 1 << (first.bit_length() - 1)
    if k == first and first > 1:
        k >>= 1
    return k * ((last * size + 31) // 32 * 32)


def run_reduce(
    builds: Builds, dtype: str, op: int, pattern: int, form: int, first: int, last: int, tmp: int | None = None
):
    size = np.dtype(NP[dtype]).itemsize
    pad = (last * size + 31) // 32 * 32 // size
    rng = rng_for("reduce", dtype, op, pattern, form, first, last)
    x = np.full((first, pad), -60000.0 if op == 1 else 60000.0)  # padding a reduction must not see
    if op == 2:
        x[:] = 1e6
    x[:, :last] = rng.uniform(-100, 100, (first, last))
    x = x.astype(NP[dtype])
    outs = first if pattern == 0 else last
    out_len = (outs * size + 31) // 32 * 32 // size
    if tmp is None:
        tmp = max(reduce_tmp_bytes(dtype, pattern, first, last, op), 32)
    exe = builds.get("basic_reduce.cpp", "basic_reduce", f"DTYPE={dtype}")
    args = [
        GmIn(x.reshape(-1)),
        GmOut(np.dtype(NP[dtype]), (out_len,)),
        Scalar("u32", first),
        Scalar("u32", last),
        Scalar("u32", pad),
        Scalar("u32", out_len),
        Scalar("u32", op),
        Scalar("u32", pattern),
        Scalar("u32", form),
        Scalar("u32", tmp),
    ]
    return run_executable(exe, args, 1), x[:, :last], outs


# AR: every branch of the A2 expansion (a row under a block, one block, under a repeat, up to 255 blocks, longer)
AR_SHAPES = {
    "float": [(3, 5), (9, 5), (17, 8), (5, 20), (9, 63), (4, 64), (3, 100), (2, 300), (2, 2100)],
    "half": [(9, 7), (12, 16), (5, 40), (3, 128), (4, 200), (2, 4100)],
}
RA_SHAPES = [(1, 24), (2, 16), (7, 40), (8, 100), (13, 72), (32, 136)]


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("op", [0, 1])
@pytest.mark.parametrize("dtype", ["float", "half"])
def test_reduce_ar(builds, dtype, op, form):
    for first, last in AR_SHAPES[dtype]:
        r, x, outs = run_reduce(builds, dtype, op, 0, form, first, last)
        assert r.faults == [], ((first, last), [f.text for f in r.faults])
        want = x.max(axis=1) if op == 0 else x.min(axis=1)
        np.testing.assert_array_equal(r.outputs[0][:outs], want, err_msg=f"shape {(first, last)}")


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("op", [0, 1])
@pytest.mark.parametrize("dtype", ["float", "half"])
def test_reduce_ra(builds, dtype, op, form):
    for first, last in RA_SHAPES:
        r, x, outs = run_reduce(builds, dtype, op, 1, form, first, last)
        assert r.faults == [], ((first, last), [f.text for f in r.faults])
        want = x.max(axis=0) if op == 0 else x.min(axis=0)
        np.testing.assert_array_equal(r.outputs[0][:outs], want, err_msg=f"shape {(first, last)}")


@pytest.mark.parametrize(("pattern", "first", "last"), [(0, 5, 20), (1, 7, 40)])
def test_reduce_tmp_below_minimum_is_a_fault(builds, pattern, first, last):
    need = reduce_tmp_bytes("float", pattern, first, last)
    r, *_ = run_reduce(builds, "float", 0, pattern, 0, first, last, tmp=need - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"]
    assert f"below the minimum temporary size {need} bytes (GetReduceMaxMaxMinTmpSize)" in r.faults[0].text


# ---- ListTensorDesc / TensorDesc -------------------------------------------------------------------------


def run_list(builds: Builds, dim: int, rows: int, cols: int, bad: int = 0):
    rng = rng_for("list", dim, rows, cols)
    n = rows * cols
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    exe = builds.get("basic_list.cpp", "basic_list", f"DIM={dim}", f"BAD_INDEX={bad}")
    args = [
        GmIn(x),
        GmIn(y),
        GmOut(np.dtype(np.uint64), (16,)),
        GmOut(np.dtype(np.float32), (n,)),
        GmOut(np.dtype(np.int64), (8,)),
        Scalar("u32", rows),
        Scalar("u32", cols),
    ]
    return run_executable(exe, args, 1), x, y


@pytest.mark.parametrize(("dim", "rows", "cols"), [(2, 4, 64), (2, 8, 256), (0, 2, 128)])
def test_list_tensor_desc(builds, dim, rows, cols):
    r, x, y = run_list(builds, dim, rows, cols)
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[1], x + y)
    meta = r.outputs[2]
    assert meta[0] == 2  # GetSize
    if dim:
        assert list(meta[1:7]) == [2, 1, rows, cols, rows * cols, 1]  # dim, index, shape, GetDataObj's size, ptr


@pytest.mark.parametrize("dim", [2, 0])
def test_list_tensor_desc_index_past_the_list_is_a_fault(builds, dim):
    r, *_ = run_list(builds, dim, 2, 64, bad=1)
    assert [f.cls for f in r.faults] == ["crash"]
    assert "index 2, the list has 2 tensors" in r.faults[0].text


# ---- InitOutput -----------------------------------------------------------------------------------------


def run_init_output(builds: Builds, dtype: str, n: int, reserved: int = 0):
    npt = {"float": np.float32, "half": np.float16, "int32_t": np.int32}[dtype]
    exe = builds.get("basic_init_output.cpp", "basic_init_output", f"DTYPE={dtype}")
    args = [GmOut(np.dtype(npt), (n + 64,)), Scalar("u32", n), Scalar("f32", -3.0), Scalar("u32", reserved)]
    return run_executable(exe, args, 1), npt


# 16320 floats (32640 halves) are one burst of 255 repeats: sizes below, at and past it
@pytest.mark.parametrize(
    ("dtype", "n"),
    [("float", 8), ("float", 1000), ("float", 16320), ("float", 16320 + 77), ("half", 40000), ("int32_t", 333)],
)
def test_init_output(builds, dtype, n):
    r, npt = run_init_output(builds, dtype, n)
    assert r.faults == [], [f.text for f in r.faults]
    z = r.outputs[0]
    np.testing.assert_array_equal(z[:n], np.full(n, -3, npt))
    np.testing.assert_array_equal(z[n:], np.zeros(64, npt))  # nothing past size


def test_init_output_without_ub_left_is_a_fault(builds):
    r, _ = run_init_output(builds, "float", 100, reserved=get_soc(DEFAULT_SOC).ub_stack_end - 16)
    assert [f.cls for f in r.faults] == ["ub-overflow"]
    assert "InitOutput stages its value in the UB left after InitBuffer" in r.faults[0].text


# ---- a custom TBufPool (EXTERN_IMPL_BUFPOOL) --------------------------------------------------------------


def run_bufpool(builds: Builds, tbuf: int, n: int, bug: int = 0):
    rng = rng_for("bufpool", tbuf, n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    exe = builds.get("basic_bufpool.cpp", "basic_bufpool", f"TBUF={tbuf}", f"BUG={bug}")
    args = [GmIn(x), GmIn(y), GmOut(np.dtype(np.float32), (n,)), Scalar("u32", n)]
    return run_executable(exe, args, 1), x, y


@pytest.mark.parametrize("n", [64, 4096])
@pytest.mark.parametrize("tbuf", [0, 1])
def test_custom_bufpool(builds, tbuf, n):
    r, x, y = run_bufpool(builds, tbuf, n)
    assert r.faults == [], [f.text for f in r.faults]
    np.testing.assert_array_equal(r.outputs[0], x + y)


def test_custom_bufpool_buffer_past_the_pool_is_a_fault(builds):
    r, *_ = run_bufpool(builds, 0, 64, bug=1)
    assert [f.cls for f in r.faults] == ["ub-overflow"]
    assert "InitBufHandle: a buffer of 256 bytes at UB address 672 lies outside its pool [64, 832)" in r.faults[0].text
    assert "InitBufHandle at" in r.faults[0].text and "basic_bufpool.cpp" in r.faults[0].text


def test_custom_bufpool_handle_past_bufid_size_is_a_fault(builds):
    r, *_ = run_bufpool(builds, 0, 64, bug=2)
    assert [f.cls for f in r.faults] == ["queue-misuse"]
    assert "GetBufHandle(4): the pool has 4 buffers" in r.faults[0].text
    assert "GetBufHandle at" in r.faults[0].text


# ---- Cast between int4b_t and half -----------------------------------------------------------------------

NONE, RINT, FLOOR, CEIL, ROUND, TRUNC, ODD = range(7)
ROUNDING = {
    NONE: np.rint,
    RINT: np.rint,
    FLOOR: np.floor,
    CEIL: np.ceil,
    TRUNC: np.trunc,
    ROUND: lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
}


def run_int4(builds: Builds, to_int4: bool, n: int, form: int, mode: int, mask: int = 128, count: int | None = None):
    rng = rng_for("int4", to_int4, n, form, mode, mask)
    if to_int4:
        x = rng.uniform(-10, 9, n).astype(np.float16)
        x[:8] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 7.5, -8.5]  # ties, and both ends of the range
        out = GmOut(np.dtype(np.int8), (n // 2,))
    else:
        x = rng.integers(-128, 128, n // 2).astype(np.int8)
        out = GmOut(np.dtype(np.float16), (n,))
    exe = builds.get("basic_int4.cpp", "basic_int4", f"TO_INT4={int(to_int4)}")
    args = [
        GmIn(x),
        out,
        Scalar("u32", n),
        Scalar("u32", form),
        Scalar("u32", mode),
        Scalar("u32", mask),
        Scalar("u32", n if count is None else count),
    ]
    return run_executable(exe, args, 1), x


def pack_int4(v: np.ndarray) -> np.ndarray:
    nib = (np.clip(v, -8, 7).astype(np.int64) & 0xF).astype(np.uint8)
    return (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8).view(np.int8)


def unpack_int4(b: np.ndarray) -> np.ndarray:
    u = b.view(np.uint8)
    lo, hi = (u & 0xF).astype(np.int64), (u >> 4).astype(np.int64)
    v = np.empty(2 * len(u), np.int64)
    v[0::2], v[1::2] = np.where(lo > 7, lo - 16, lo), np.where(hi > 7, hi - 16, hi)
    return v


@pytest.mark.parametrize("mode", [NONE, RINT, FLOOR, CEIL, ROUND, TRUNC])
@pytest.mark.parametrize(("n", "form", "count"), [(64, 0, 64), (1024, 0, 1000), (512, 1, 512)])
def test_cast_half_to_int4(builds, mode, n, form, count):
    r, x = run_int4(builds, True, n, form, mode, count=count)
    assert r.faults == [], [f.text for f in r.faults]
    want = np.full(n // 2, 0x55, np.uint8).view(np.int8)  # past count: what the kernel put there
    want[: count // 2] = pack_int4(ROUNDING[mode](x[:count].astype(np.float64)))
    np.testing.assert_array_equal(r.outputs[0], want)


def test_cast_half_to_int4_masked_lanes_keep_their_nibbles(builds):
    r, x = run_int4(builds, True, 512, 1, CEIL, mask=48)  # 48 of 128 lanes a repeat: 24 bytes of 64 written
    assert r.faults == [], [f.text for f in r.faults]
    want = np.full(256, 0x55, np.uint8).view(np.int8)
    got_all = pack_int4(np.ceil(x.astype(np.float64)))
    for rep in range(4):
        want[rep * 64 : rep * 64 + 24] = got_all[rep * 64 : rep * 64 + 24]
    np.testing.assert_array_equal(r.outputs[0], want)


@pytest.mark.parametrize(("n", "form", "count"), [(64, 0, 64), (1024, 0, 1000), (512, 1, 512)])
def test_cast_int4_to_half(builds, n, form, count):
    r, x = run_int4(builds, False, n, form, NONE, count=count)
    assert r.faults == [], [f.text for f in r.faults]
    want = np.full(n, 100, np.float16)
    want[:count] = unpack_int4(x)[:count]
    np.testing.assert_array_equal(r.outputs[0], want)


@pytest.mark.parametrize(
    ("to_int4", "form", "mode", "mask", "count", "why"),
    [
        (True, 0, CEIL, 128, 63, "count 63 is odd"),
        (True, 1, CEIL, 33, 128, "enables lane 32 but not lane 33"),
        (False, 0, RINT, 128, 128, "int4b_t -> half with round mode CAST_RINT is not supported"),
        (True, 0, ODD, 128, 128, "half -> int4b_t with round mode CAST_ODD is not supported"),
    ],
)
def test_cast_int4_outside_the_docs_is_a_fault(builds, to_int4, form, mode, mask, count, why):
    r, _ = run_int4(builds, to_int4, 128, form, mode, mask, count)
    assert [f.cls for f in r.faults] == ["unsupported"], [f.text for f in r.faults]
    assert why in r.faults[0].text


# ---- what the docs do not offer is a compile error that names it ---------------------------------------

COMPILE_ERRORS = {
    "Cast<int4b_t, float>": (
        "LocalTensor<int4b_t> q; LocalTensor<float> f; Cast(q, f, RoundMode::CAST_RINT, 64);",
        "Cast: int4b_t converts to and from half only",
    ),
    "ReduceMean with a pattern": (
        "LocalTensor<float> a, b; uint32_t s[2] = {1, 8}; ReduceMean<float, Pattern::Reduce::AR>(a, b, s, true);",
        "ReduceMean over one axis",
    ),
    "ReduceSum of half": (
        "LocalTensor<half> a, b; uint32_t s[2] = {1, 16}; ReduceSum<half, Pattern::Reduce::AR>(a, b, s, true);",
        "AdvReduceSum: this element type is not supported",
    ),
    "ReduceMax with another pattern": (
        "LocalTensor<float> a, b; uint32_t s[2] = {1, 8}; ReduceMax<float, int>(a, b, s, true);",
        "the pattern must be Pattern::Reduce::AR or Pattern::Reduce::RA",
    ),
    "Axpy (half, float)": (
        "LocalTensor<half> a; LocalTensor<float> b; LocalTensor<uint8_t> t; Axpy(a, b, 1.0f, t, 64);",
        "(dstTensor, srcTensor) must be (half, half), (float, float) or (float, half)",
    ),
}


@pytest.mark.parametrize("case", sorted(COMPILE_ERRORS))
def test_unsupported_forms_are_compile_errors(tmp_path, case):
    body, message = COMPILE_ERRORS[case]
    src = tmp_path / "k.cpp"
    src.write_text(
        '#include "kernel_operator.h"\nusing namespace AscendC;\n'
        f'extern "C" __global__ __aicore__ void k(GM_ADDR x) {{ {body} }}\n'
    )
    with pytest.raises(CompileError) as e:
        build_kernel(src, "k", get_soc(DEFAULT_SOC), [])
    assert message in str(e.value), str(e.value)[:2000]


# ReduceSum (float): AR rows of at most a block, up to a repeat, longer (the tail added along the rows or row by
# row, a power-of-two row), more than 248 rows; RA as the others.
SUM_AR_SHAPES = [(3, 5), (17, 8), (9, 20), (5, 64), (3, 100), (20, 128), (2, 300), (250, 72), (2, 2100), (260, 100)]


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize("pattern", [0, 1])
def test_reduce_sum(builds, pattern, form):
    for first, last in SUM_AR_SHAPES if pattern == 0 else RA_SHAPES:
        r, x, outs = run_reduce(builds, "float", 2, pattern, form, first, last)
        assert r.faults == [], ((first, last), [f.text for f in r.faults])
        want = x.astype(np.float64).sum(axis=1 - pattern)
        got = r.outputs[0][:outs].astype(np.float64)
        err = np.abs(got - want) / np.maximum(1.0, np.abs(x).astype(np.float64).sum(axis=1 - pattern))
        assert err.max() < 1e-6, ((first, last), err.max())


def test_reduce_sum_tmp_below_minimum_is_a_fault(builds):
    need = reduce_tmp_bytes("float", 0, 3, 100, op=2)
    r, *_ = run_reduce(builds, "float", 2, 0, 0, 3, 100, tmp=need - 32)
    assert [f.cls for f in r.faults] == ["out-of-bounds"]
    assert f"below the minimum temporary size {need} bytes (GetReduceSumMaxMinTmpSize)" in r.faults[0].text


# ---- the host helpers ------------------------------------------------------------------------------------

HOST_SHAPES = [(3, 5), (5, 20), (9, 64), (3, 100), (2, 2100), (8, 16), (7, 40), (32, 136), (1, 24)]


def test_host_temporary_sizes(tmp_path):
    """GetReduceMax/Min/SumMaxMinTmpSize and GetAxpyMaxMinTmpSize, compiled as a host program includes them."""
    calls = []
    for first, last in HOST_SHAPES:
        for pattern in (0, 1):
            for fn, dt in (("Max", 0), ("Max", 1), ("Min", 1), ("Sum", 0)):
                calls.append(
                    f"GetReduce{fn}MaxMinTmpSize(TensorShape({{{first}, {last}}}), DT({dt}), ReducePattern({pattern}), "
                    f'true, false, mx, mn); printf("%u %u\\n", mx, mn);'
                )
    for n, size in ((512, 2), (40, 2), (512, 4)):
        calls.append(f'GetAxpyMaxMinTmpSize(TensorShape({{{n}}}), {size}, false, mx, mn); printf("%u %u\\n", mx, mn);')
    src = tmp_path / "host.cpp"
    src.write_text(
        '#include <cstdio>\n#include "tuner_sim/adv_host.h"\nusing namespace AscendC;\n'
        "enum DT { DT_FLOAT_ = 0 };\nint main() { uint32_t mx = 7, mn = 7;\n" + "\n".join(calls) + "\n}\n"
    )
    import subprocess

    inc = Path(__file__).resolve().parents[2] / "tuner" / "sim" / "include"
    exe = tmp_path / "host"
    subprocess.run(["g++", "-std=c++17", f"-I{inc}", str(src), "-o", str(exe)], check=True)
    got = [
        tuple(map(int, line.split()))
        for line in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    ]
    want = []
    for first, last in HOST_SHAPES:
        for pattern in (0, 1):
            for op, dtype in ((0, "float"), (0, "half"), (1, "half"), (2, "float")):
                v = reduce_tmp_bytes(dtype, pattern, first, last, op)
                want.append((v, v))
    want += [(4 * 512 * 2, 1024), (1024, 1024), (0, 0)]
    assert got == want
