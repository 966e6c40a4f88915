"""Timing statistics for device launches: percentiles, launch counts, L2 sizing."""

import numpy as np
import pytest

from tuner.backends.npu.timing import (
    l2_flush_bytes,
    launches_needed,
    percentile,
    rotation_copies,
    summarize,
)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 101, 1000])
def test_percentiles_match_numpy_linear(n):
    rng = np.random.default_rng(n)
    xs = rng.lognormal(mean=3.0, sigma=0.3, size=n)
    s = summarize(list(xs))
    assert s.n == n
    assert s.median_us == pytest.approx(np.median(xs), rel=1e-12)
    assert s.p20_us == pytest.approx(np.percentile(xs, 20), rel=1e-12)
    assert s.p80_us == pytest.approx(np.percentile(xs, 80), rel=1e-12)
    assert s.mean_us == pytest.approx(np.mean(xs), rel=1e-12)
    assert s.min_us == xs.min()
    for q in (0.0, 0.05, 0.33, 0.999, 1.0):
        assert percentile(xs, q) == pytest.approx(np.percentile(xs, 100 * q), rel=1e-12)


def test_percentile_by_hand():
    # h = (5 - 1) * 0.2 = 0.8: 10 + 0.8 * (20 - 10)
    s = summarize([50.0, 10.0, 40.0, 20.0, 30.0])
    assert (s.p20_us, s.median_us, s.p80_us) == (pytest.approx(18.0), 30.0, pytest.approx(42.0))


@pytest.mark.parametrize("bad", [[], [1.0, float("nan")], [float("inf")], [-1.0]])
def test_summarize_rejects_bad_samples(bad):
    with pytest.raises(ValueError):
        summarize(bad)


def test_launches_needed():
    assert launches_needed(5.0) == 100          # fast kernel: 100 launches (0.5 ms)
    assert launches_needed(1000.0) == 100       # 1 ms: 100 launches = 100 ms, both met
    assert launches_needed(2000.0) == 50        # 2 ms: 100 ms reached after 50
    assert launches_needed(3000.0) == 34        # ceil(100 / 3)
    assert launches_needed(250_000.0) == 1      # slower than the time budget: one launch
    assert launches_needed(0.0) == 100
    assert launches_needed(10.0, min_launches=20, min_total_ms=0.1) == 10
    with pytest.raises(ValueError):
        launches_needed(float("nan"))
    with pytest.raises(ValueError):
        launches_needed(5.0, min_launches=0)


def test_l2_flush_and_rotation():
    l2 = 192 * 1024 * 1024  # Ascend910B L2
    assert l2_flush_bytes(l2) == 2 * l2
    assert rotation_copies(3 * l2, l2) == 1                 # one copy already exceeds 2x L2
    assert rotation_copies(2 * l2, l2) == 2                 # exactly 2x L2 is not enough
    assert rotation_copies(1024 * 1024, l2) == 385          # 385 MiB > 384 MiB
    for size in (1, 4096, 10**6, 123_456_789, 2 * l2 - 1):
        k = rotation_copies(size, l2)
        assert k * size > 2 * l2 and (k - 1) * size <= 2 * l2
    with pytest.raises(ValueError):
        l2_flush_bytes(0)
    with pytest.raises(ValueError):
        rotation_copies(0, l2)
