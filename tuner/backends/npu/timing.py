"""Timing statistics for device launches: how many to run, how to keep L2 cold, how to pick a winner.

Device times are noisy (clock boosts, other work on the card, the host's launch queue), so one launch is
never a measurement. The rules here follow Triton's `do_bench`, the practice the tuner's peers share: time many
launches, report the median with p20/p80 beside it, flush L2 (or rotate the inputs) so every launch reads cold
data as the simulator's default model does, and re-time the few best candidates against each other,
interleaved, so a drift of the device over time does not favour whichever was timed first. All functions are
pure: the NPU backend supplies the clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TimingStats:
    """Summary of one candidate's launch times, in microseconds; `n` is the number of samples."""

    median_us: float
    p20_us: float
    p80_us: float
    n: int
    mean_us: float
    min_us: float


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-quantile (0 <= q <= 1) by linear interpolation between closest ranks.

    With the samples sorted as x[0] <= ... <= x[n-1], h = (n - 1) * q, i = floor(h):
    result = x[i] + (h - i) * (x[i+1] - x[i]) (just x[n-1] when i = n - 1). This is numpy's default
    (`method="linear"`, Hyndman & Fan type 7), so the numbers match `np.percentile(samples, 100 * q)`.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} is outside [0, 1]")
    xs = sorted(float(x) for x in samples)
    if not xs:
        raise ValueError("no samples")
    h = (len(xs) - 1) * q
    i = math.floor(h)
    if i >= len(xs) - 1:
        return xs[-1]
    return xs[i] + (h - i) * (xs[i + 1] - xs[i])


def summarize(samples_us: Sequence[float]) -> TimingStats:
    """Median, p20, p80 (see `percentile`), count, mean and minimum of launch times in microseconds.

    The median is what the tuner ranks by: robust to the occasional slow launch that skews a mean. p20/p80
    show the spread, and min is kept for reference. Raises ValueError for no samples or a non-finite or
    negative one (a clock error must not become a fast candidate).
    """
    xs = [float(x) for x in samples_us]
    if not xs:
        raise ValueError("no samples")
    bad = [x for x in xs if not math.isfinite(x) or x < 0]
    if bad:
        raise ValueError(f"invalid launch time {bad[0]} us (times must be finite and >= 0)")
    xs.sort()
    return TimingStats(
        median_us=percentile(xs, 0.5),
        p20_us=percentile(xs, 0.2),
        p80_us=percentile(xs, 0.8),
        n=len(xs),
        mean_us=math.fsum(xs) / len(xs),
        min_us=xs[0],
    )


def launches_needed(first_us: float, min_launches: int = 100, min_total_ms: float = 100.0) -> int:
    """How many launches to time, given the first (warm) launch took `first_us`.

    The rule is "at least `min_launches` launches or at least `min_total_ms` of device time", i.e. the
    smallest count meeting either: min(min_launches, ceil(min_total_ms / first)). A fast kernel gets
    `min_launches` samples; a slow one stops once `min_total_ms` has been spent, at least one launch. A first
    time of 0 (below the clock's resolution) gives `min_launches`.
    """
    if min_launches < 1:
        raise ValueError(f"min_launches must be >= 1, got {min_launches}")
    if not math.isfinite(first_us) or first_us < 0:
        raise ValueError(f"first launch time {first_us} us is not a finite time >= 0")
    if min_total_ms <= 0:
        return min_launches
    if first_us == 0:
        return min_launches
    by_time = math.ceil(min_total_ms * 1000.0 / first_us - 1e-9)
    return max(1, min(min_launches, by_time))


def l2_flush_bytes(l2_bytes: int) -> int:
    """Size of the buffer to write before each timed launch so no input is left in L2: twice the L2 size.

    Writing 2x L2 of other data evicts the previous launch's lines whatever the replacement policy's
    leftovers, so each launch reads its inputs from HBM (the cold case the simulator models by default).
    """
    if l2_bytes <= 0:
        raise ValueError(f"L2 size must be > 0 bytes, got {l2_bytes}")
    return 2 * int(l2_bytes)


def rotation_copies(input_bytes: int, l2_bytes: int) -> int:
    """How many copies of the inputs to rotate through so consecutive launches read cold data.

    The alternative to a flush: launch k on copy k mod N. When the N copies together exceed 2x L2
    (strictly), a copy has been evicted by the time it is used again. Returns the smallest such N, which
    is 1 when one copy alone is already larger than 2x L2.
    """
    if input_bytes <= 0:
        raise ValueError(f"input size must be > 0 bytes, got {input_bytes}")
    return l2_flush_bytes(l2_bytes) // int(input_bytes) + 1
