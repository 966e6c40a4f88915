"""Normalization APIs of tuner_sim/adv_norm.h: DeepNorm, LayerNormGrad, LayerNormGradBeta, the [A, R] LayerNorm
with rstd, Normalize, WelfordUpdate and WelfordFinalize, run through `simulate`'s build and run steps on
tests/sim/kernels/advanced/norm_apis.cpp and compared with float64 references of the formulas in asc-devkit's
docs (归一化操作/<API>.md), on random inputs, several shapes (rows that need several passes, rows padded to 32
bytes) and both element types where the docs list them.

Tolerances: float results carry a few float roundings per step (relative 2e-5 of max(1, |y|) for the
normalized outputs, whose sums cancel); half inputs are widened and computed in float, then rounded to half
once (DeepNorm's gamma and beta are applied in half after narrowing, as adv_rows.h's LayerNorm: 4e-3).
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
from tuner.sim.run import DEFAULT_SOC, SimResult, run_executable

KERNEL = Path(__file__).resolve().parent / "kernels" / "advanced" / "norm_apis.cpp"
NP = {"half": np.float16, "float": np.float32}
TOL = {"float": 2e-5, "half": 4e-3}

DEEPNORM, DEEPNORM_OWN, LNGRAD, LNGRAD_OWN, LNGRADBETA, LNGRADBETA_OWN = range(6)
LN_AR, LN_AR_OWN, LN_AR_NOBETA, NORMALIZE, NORMALIZE_OWN, NORMALIZE_NOGAMMA = range(6, 12)
WF_UPDATE_INPLACE, WF_UPDATE_OWN, WF_FINAL, WF_FINAL_COUNTS, WF_FINAL_OWN, DEEPNORM_REUSE, BATCHNORM = range(12, 19)


def blk(nbytes: int) -> int:
    return (nbytes + 31) // 32 * 32


class Norm:
    def __init__(self) -> None:
        self._soc = get_soc(DEFAULT_SOC)
        self._exes: dict[str, Executable] = {}

    def run(
        self,
        dtype: str,
        api: int,
        m: int,
        h: int,
        *,
        oh: int | None = None,
        x=None,
        y=None,
        gamma=None,
        beta=None,
        a1=None,
        a2=None,
        fa1=None,
        fa2=None,
        cnt=None,
        tmp: int = 65536,
        work: int = 65536,
        eps: float = 1e-5,
        alpha: float = 1.0,
        ab_compute: int = 0,
        head=(0, 0),
        tail=(0, 0),
        rn: int = 1,
        ab_rec: float = 0.0,
        r_rec: float = 0.0,
    ) -> SimResult:
        if dtype not in self._exes:
            self._exes[dtype] = build_kernel(KERNEL, "norm_apis", self._soc, [f"DTYPE={dtype}"])
        t = NP[dtype]
        n, vlen = m * h, (max(m, h) + 15) // 16 * 16

        def arr(v, size, kind):
            out = np.zeros(size, kind)
            if v is not None:
                flat = np.asarray(v, kind).ravel()
                out[: flat.size] = flat
            return out

        tiling = struct.pack(
            "<6Q2d6Q2d",
            api,
            m,
            h,
            h if oh is None else oh,
            tmp,
            work,
            eps,
            alpha,
            ab_compute,
            head[0],
            head[1],
            tail[0],
            tail[1],
            rn,
            ab_rec,
            r_rec,
        )
        args = [
            GmIn(arr(x, n, t)),
            GmIn(arr(y, n, t)),
            GmIn(arr(gamma, h, t)),
            GmIn(arr(beta, h, t)),
            GmIn(arr(a1, vlen, t)),
            GmIn(arr(a2, vlen, t)),
            GmIn(arr(fa1, vlen, np.float32)),
            GmIn(arr(fa2, vlen, np.float32)),
            GmIn(arr(cnt, vlen, np.int32)),
            GmOut(np.dtype(t), (m, h)),
            GmOut(np.dtype(t), (m, h)),
            GmOut(np.dtype(t), (vlen,)),
            GmOut(np.dtype(t), (vlen,)),
            GmOut(np.dtype(np.float32), (vlen,)),
            GmOut(np.dtype(np.float32), (vlen,)),
            GmOut(np.dtype(t), (h,)),
            GmOut(np.dtype(t), (h,)),
            Struct(tiling),
        ]
        return run_executable(self._exes[dtype], args, 1)


@pytest.fixture(scope="session")
def norm() -> Norm:
    return Norm()


def rng_for(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def check(got, want, tol, what):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    assert err.max() <= tol, f"{what}: max error {err.max():.3g} at {int(err.argmax())} (tol {tol})"


def rows_input(dtype, m, h, oh, key, lo=-2.0, hi=2.0):
    """[m, h] values of dtype, the padding columns (oh..h) zero as the docs require."""
    x = rng_for(key, dtype, m, h).uniform(lo, hi, (m, h)).astype(NP[dtype])
    x[:, oh:] = 0
    return x


def ok(r: SimResult):
    assert r.ok, [f.text for f in r.faults]
    return r.outputs


# ---- DeepNorm ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize(
    "m,h,oh,work", [(16, 64, 64, 65536), (20, 96, 96, 4096), (7, 32, 24, 65536), (40, 256, 256, 8192), (24, 64, 64, 0)]
)
def test_deepnorm_matches_reference(norm, dtype, m, h, oh, work):
    """work 0: GetDeepNormMaxMinTmpSize's minimum (3 H + 2 B*S floats; 2 H + 2 B*S with isReuseSrc)."""
    x = rows_input(dtype, m, h, oh, "dn-x")
    gx = rows_input(dtype, m, h, oh, "dn-gx")
    gamma = rng_for("dn-g", h).uniform(0.5, 1.5, h).astype(NP[dtype])
    beta = rng_for("dn-b", h).uniform(-1, 1, h).astype(NP[dtype])
    alpha, eps = 1.75, 1e-5
    x1 = float(NP[dtype](alpha)) * x.astype(np.float64)[:, :oh] + gx.astype(np.float64)[:, :oh]
    mean = x1.mean(axis=1)
    var = ((x1 - mean[:, None]) ** 2).mean(axis=1)
    want = (x1 - mean[:, None]) / np.sqrt(var[:, None] + float(NP[dtype](eps))) * gamma[:oh] + beta[:oh]
    apis = (DEEPNORM, DEEPNORM_OWN) + ((DEEPNORM_REUSE,) if dtype == "float" else ())
    for api in apis:
        planes = 2 if api == DEEPNORM_REUSE else 3
        w = work or planes * blk(h * 4) + 2 * blk(m * 4)
        r = norm.run(
            dtype,
            api,
            m,
            h,
            oh=oh,
            x=x,
            y=gx,
            gamma=gamma,
            beta=beta,
            work=w,
            tmp=0 if api == DEEPNORM_OWN else w,
            eps=eps,
            alpha=alpha,
        )
        z, _, t1, t2, *_ = ok(r)
        check(z[:, :oh], want, TOL[dtype], f"DeepNorm {api} {dtype} {m}x{h}/{oh} work {w}")
        check(t1[:m], mean, TOL[dtype], "DeepNorm mean")
        check(t2[:m], var, TOL[dtype], "DeepNorm variance")


def test_deepnorm_faults_on_a_temporary_space_smaller_than_its_tiling(norm):
    m, h = 16, 64
    x = rows_input("float", m, h, h, "dn-f")
    r = norm.run("float", DEEPNORM, m, h, x=x, y=x, tmp=2048, work=65536)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "DeepNorm" in r.faults[0].text and "sharedTmpBuffer" in r.faults[0].text


# ---- BatchNorm ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("b,sh,work", [(8, 64, 65536), (5, 160, 0), (16, 96, 4096)])
def test_batchnorm_matches_reference(norm, dtype, b, sh, work):
    """Over the B axis of [B, S*H], gamma and beta per b (BatchNorm.md); work 0: GetBatchNormMaxMinTmpSize's
    minimum (3 B blocks + 2 S*H floats)."""
    x = rows_input(dtype, b, sh, sh, "bn-x", -3, 3)
    gamma = rng_for("bn-g", b).uniform(0.5, 1.5, b).astype(NP[dtype])
    beta = rng_for("bn-b", b).uniform(-1, 1, b).astype(NP[dtype])
    eps = 1e-5
    xd = x.astype(np.float64)
    mean = xd.mean(axis=0)
    var = ((xd - mean) ** 2).mean(axis=0)
    want = gamma[:, None] * (xd - mean) / np.sqrt(var + float(NP[dtype](eps))) + beta[:, None]
    work = work or 3 * b * (64 if dtype == "half" else 32) + 2 * blk(sh * 4)
    for tmp in (work, 0):
        z, _, t1, t2, *_ = ok(
            norm.run(dtype, BATCHNORM, b, sh, x=x, gamma=gamma, beta=beta, work=work, tmp=tmp, eps=eps)
        )
        check(z, want, TOL[dtype], f"BatchNorm {dtype} {b}x{sh} work {work} tmp {tmp}")
        check(t1[:sh], mean, TOL[dtype], "BatchNorm mean")
        check(t2[:sh], var, TOL[dtype], "BatchNorm variance")


def test_batchnorm_faults_on_a_temporary_space_smaller_than_its_tiling(norm):
    x = rows_input("float", 8, 64, 64, "bn-f")
    r = norm.run("float", BATCHNORM, 8, 64, x=x, gamma=np.ones(8), beta=np.zeros(8), work=65536, tmp=1024)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "BatchNorm" in r.faults[0].text


# ---- LayerNormGrad / LayerNormGradBeta ----------------------------------------------------------------------
def lngrad_ref(dy, x, var, mean, gamma, eps, oh):
    dy, x = dy[:, :oh].astype(np.float64), x[:, :oh].astype(np.float64)
    var, mean, gamma = var.astype(np.float64), mean.astype(np.float64), gamma[:oh].astype(np.float64)
    pd_xl = dy * gamma
    xm = x - mean[:, None]
    rstd = (var[:, None] + eps) ** -0.5
    pd_var = np.sum(-0.5 * pd_xl * xm * rstd**3, axis=1, keepdims=True)
    pd_mean = np.sum(-pd_xl * rstd, axis=1, keepdims=True) + pd_var / oh * np.sum(-2.0 * xm, axis=1, keepdims=True)
    pd_x = pd_xl * rstd + pd_var * 2.0 / oh * xm + pd_mean / oh
    return pd_x, xm * rstd


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize(
    "m,h,oh,work", [(64, 16, 16, 6144), (16, 128, 128, 65536), (24, 96, 80, 16384), (5, 64, 64, 65536)]
)
def test_layernorm_grad_matches_reference(norm, dtype, m, h, oh, work):
    x = rows_input(dtype, m, h, oh, "lg-x")
    dy = rows_input(dtype, m, h, oh, "lg-dy")
    gamma = rng_for("lg-g", h).uniform(-1.5, 1.5, h).astype(NP[dtype])
    xd = x.astype(np.float64)[:, :oh]
    mean = xd.mean(axis=1).astype(NP[dtype])
    var = ((xd - mean.astype(np.float64)[:, None]) ** 2).mean(axis=1).astype(NP[dtype])
    eps = 1e-4
    pd_x, res = lngrad_ref(dy, x, var, mean, gamma, float(NP[dtype](eps)), oh)
    for api in (LNGRAD, LNGRAD_OWN):
        z, z2, *_ = ok(
            norm.run(
                dtype,
                api,
                m,
                h,
                oh=oh,
                x=x,
                y=dy,
                gamma=gamma,
                a1=mean,
                a2=var,
                work=work,
                tmp=work if api == LNGRAD else 0,
                eps=eps,
            )
        )
        scale = max(1.0, np.abs(pd_x).max())
        check(z[:, :oh] / scale, pd_x / scale, TOL[dtype], f"LayerNormGrad pd_x {api} {dtype} {m}x{h}/{oh}")
        check(z2[:, :oh], res, TOL[dtype], f"LayerNormGrad res_for_gamma {api} {dtype}")


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("m,h,work", [(64, 16, 128), (16, 128, 65536), (37, 96, 4096)])
def test_layernorm_grad_beta_matches_reference(norm, dtype, m, h, work):
    res = rows_input(dtype, m, h, h, "lb-r")
    dy = rows_input(dtype, m, h, h, "lb-dy")
    want_g = (dy.astype(np.float64) * res.astype(np.float64)).sum(axis=0)
    want_b = dy.astype(np.float64).sum(axis=0)
    work = max(work, (4 if dtype == "half" else 2) * h * 4)  # GetLayerNormGradBetaMaxMinTmpSize's minimum
    for api in (LNGRADBETA, LNGRADBETA_OWN):
        out = ok(norm.run(dtype, api, m, h, x=res, y=dy, work=work, tmp=work if api == LNGRADBETA else 0))
        g1, g2 = out[6], out[7]
        scale = 4.0 * np.sqrt(m)  # sums of m terms of magnitude <= 4
        check(g1 / scale, want_g / scale, TOL[dtype], f"LayerNormGradBeta pd_gamma {api} {dtype} {m}x{h}")
        check(g2 / scale, want_b / scale, TOL[dtype], f"LayerNormGradBeta pd_beta {api} {dtype} {m}x{h}")


# ---- [A, R] LayerNorm and Normalize -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize(
    "a,rp,r,work", [(32, 32, 32, 384), (10, 64, 50, 65536), (37, 144, 144, 4096), (9, 16, 16, 65536)]
)
def test_layernorm_rstd_matches_reference(norm, dtype, a, rp, r, work):
    x = rows_input(dtype, a, rp, r, "lnr-x", -3, 3)
    x[:, r:] = 7  # padding that the API zeroes before its sums
    gamma = rng_for("lnr-g", rp).uniform(0.5, 1.5, rp).astype(NP[dtype])
    beta = rng_for("lnr-b", rp).uniform(-1, 1, rp).astype(NP[dtype])
    eps = 1e-5
    xd = x.astype(np.float64)[:, :r]
    mean = xd.mean(axis=1)
    var = ((xd - mean[:, None]) ** 2).mean(axis=1)
    rstd = 1.0 / np.sqrt(var + eps)
    norm_x = (xd - mean[:, None]) * rstd[:, None]
    for api in (LN_AR, LN_AR_OWN, LN_AR_NOBETA):
        z, _, _, _, f1, f2, *_ = ok(
            norm.run(
                dtype,
                api,
                a,
                rp,
                oh=r,
                x=x,
                gamma=gamma,
                beta=beta,
                work=work,
                tmp=0 if api == LN_AR_OWN else 65536,
                eps=eps,
            )
        )
        want = norm_x * gamma[:r] + (0 if api == LN_AR_NOBETA else beta[:r])
        check(z[:, :r], want, TOL[dtype], f"LayerNorm[A,R] {api} {dtype} {a}x{rp}/{r}")
        check(f1[:a], mean, TOL[dtype], "LayerNorm[A,R] mean")
        check(f2[:a] / rstd, np.ones(a), TOL[dtype], "LayerNorm[A,R] rstd")


@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("a,rp,tmp", [(32, 32, 256), (20, 64, 65536), (13, 128, 1024), (70, 16, 4096)])
def test_normalize_matches_reference(norm, dtype, a, rp, tmp):
    x = rows_input(dtype, a, rp, rp, "nl-x", -3, 3)
    gamma = rng_for("nl-g", rp).uniform(0.5, 1.5, rp).astype(NP[dtype])
    beta = rng_for("nl-b", rp).uniform(-1, 1, rp).astype(NP[dtype])
    mean = rng_for("nl-m", a).uniform(-1, 1, a).astype(np.float32)
    var = rng_for("nl-v", a).uniform(0.2, 3, a).astype(np.float32)
    eps = 1e-3
    rstd = 1.0 / np.sqrt(var.astype(np.float64) + float(np.float32(eps)))
    norm_x = (x.astype(np.float64) - mean[:, None]) * rstd[:, None]
    # the minimum size (GetNormalizeMaxMinTmpSize): 2 R floats, 4 R for half gamma / beta
    tmp = max(tmp, (4 if dtype == "half" else 2) * rp * 4, (a + 7) // 8 * 32)
    for api in (NORMALIZE, NORMALIZE_OWN, NORMALIZE_NOGAMMA):
        z, _, _, _, _, f2, *_ = ok(
            norm.run(
                dtype,
                api,
                a,
                rp,
                x=x,
                gamma=gamma,
                beta=beta,
                fa1=mean,
                fa2=var,
                tmp=0 if api == NORMALIZE_OWN else tmp,
                eps=eps,
            )
        )
        want = norm_x * (1.0 if api == NORMALIZE_NOGAMMA else gamma) + beta
        check(z, want, TOL[dtype], f"Normalize {api} {dtype} {a}x{rp} tmp {tmp}")
        check(f2[:a] / rstd, np.ones(a), 1e-6, "Normalize rstd")


# ---- WelfordUpdate / WelfordFinalize ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float", "half"])
@pytest.mark.parametrize("ab,compute,tmp", [(64, 35, 512), (256, 256, 768), (208, 200, 4096)])
def test_welford_update_matches_reference(norm, dtype, ab, compute, tmp):
    g = rng_for("wu", dtype, ab)
    x = g.uniform(1, 100, ab).astype(NP[dtype])
    in_mean = g.uniform(-600, 600, ab).astype(np.float32)
    in_var = g.uniform(0, 600, ab).astype(np.float32)
    n_rec = 1.0 / 8
    xd, md, vd = x.astype(np.float64), in_mean.astype(np.float64), in_var.astype(np.float64)
    mean = md + (xd - md) * n_rec
    var = vd + (xd - md) * (xd - mean)
    tmp = max(tmp, 768 if dtype == "half" else 512)
    for api in (WF_UPDATE_INPLACE, WF_UPDATE_OWN):
        out = ok(
            norm.run(
                dtype,
                api,
                1,
                ab,
                x=x,
                fa1=in_mean,
                fa2=in_var,
                tmp=tmp if api == WF_UPDATE_INPLACE else 0,
                ab_compute=compute,
                alpha=n_rec,
            )
        )
        f1, f2 = out[4], out[5]
        check(f1[:compute], mean[:compute], 1e-6, f"WelfordUpdate mean {api} {dtype} {ab}/{compute}")
        check(f2[:compute] / 600, var[:compute] / 600, 1e-6, f"WelfordUpdate variance {api} {dtype}")
        rest_m = in_mean[compute:ab] if api == WF_UPDATE_INPLACE else np.zeros(ab - compute)
        rest_v = in_var[compute:ab] if api == WF_UPDATE_INPLACE else np.zeros(ab - compute)
        assert np.array_equal(f1[compute:ab], rest_m) and np.array_equal(f2[compute:ab], rest_v)


def test_welford_update_faults_below_its_minimum_temporary_size(norm):
    x = np.ones(64, np.float32)
    r = norm.run("float", WF_UPDATE_INPLACE, 1, 64, x=x, tmp=256, ab_compute=64, alpha=0.5)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "WelfordUpdate" in r.faults[0].text


@pytest.mark.parametrize("ab,tmp", [(8, 1024), (64, 1024), (200, 1536), (1024, 1024)])
def test_welford_finalize_matches_reference(norm, ab, tmp):
    g = rng_for("wf", ab)
    mean = g.uniform(-5, 5, ab).astype(np.float32)
    var = g.uniform(0, 20, ab).astype(np.float32)
    counts = g.integers(1, 9, ab).astype(np.int32)
    md, vd = mean.astype(np.float64), var.astype(np.float64)
    # no tail: every partial from rn samples; R = rn * ab
    rn = 6
    mu = md.mean()
    want = ((vd + rn * (md - mu) ** 2) / (rn * ab)).sum()
    for api in (WF_FINAL, WF_FINAL_OWN):
        out = ok(
            norm.run(
                "float",
                api,
                1,
                ab,
                fa1=mean,
                fa2=var,
                tmp=tmp if api == WF_FINAL else 0,
                rn=rn,
                ab_rec=1.0 / ab,
                r_rec=1.0 / (rn * ab),
            )
        )
        f1, f2 = out[4], out[5]
        check(f1[:1], [mu], 1e-6, f"WelfordFinalize mean {api} {ab}")
        check(f2[:1], [want], 1e-5, f"WelfordFinalize variance {api} {ab}")
        assert not f1[1:8].any() and not f2[1:8].any()
    # counts
    total = counts.sum()
    mu = (md * counts).sum() / total
    want = ((vd + counts * (md - mu) ** 2) / total).sum()
    out = ok(norm.run("float", WF_FINAL_COUNTS, 1, ab, fa1=mean, fa2=var, cnt=counts, tmp=tmp, r_rec=1.0 / total))
    check(out[4][:1], [mu], 1e-6, f"WelfordFinalize counts mean {ab}")
    check(out[5][:1], [want], 1e-5, f"WelfordFinalize counts variance {ab}")
    # tail: the first `hl` partials from 5 samples, the rest from 3
    hl, hc, tc = ab // 2 + 3 if ab > 8 else 5, 5, 3
    w = np.where(np.arange(ab) < hl, hc, tc)
    total = w.sum()
    mu = (md * w).sum() / total
    want = ((vd + w * (md - mu) ** 2) / total).sum()
    out = ok(
        norm.run(
            "float", WF_FINAL, 1, ab, fa1=mean, fa2=var, tmp=tmp, head=(hc, hl), tail=(tc, ab - hl), r_rec=1.0 / total
        )
    )
    check(out[4][:1], [mu], 1e-6, f"WelfordFinalize tail mean {ab}")
    check(out[5][:1], [want], 1e-5, f"WelfordFinalize tail variance {ab}")


def test_welford_finalize_faults_below_its_minimum_temporary_size(norm):
    mean = np.ones(64, np.float32)
    r = norm.run("float", WF_FINAL, 1, 64, fa1=mean, fa2=mean, tmp=512, ab_rec=1 / 64, r_rec=1 / 64)
    assert [f.cls for f in r.faults] == ["out-of-bounds"], [f.text for f in r.faults]
    assert "WelfordFinalize" in r.faults[0].text


def test_options_outside_the_a2_implementation_are_compile_errors():
    """The variance output of the [A, R] LayerNorm, Normalize's other reduce patterns and WelfordFinalize's
    isCorrection are Ascend 950 features (LayerNorm.md, Normalize.md, WelfordFinalize.md)."""
    with pytest.raises(CompileError) as err:
        build_kernel(KERNEL, "norm_apis", get_soc(DEFAULT_SOC), ["DTYPE=float", "NORM_BAD_CONFIG"])
    text = err.value.diagnostics
    for said in ("isOutputRstd = false", "only ReducePattern::AR", "isCorrection"):
        assert said in text, text[:2000]
