"""Kernel Tuner's simulation mode for tuner's search: a small space measured exhaustively into a Kernel Tuner cache
file, resumed without measuring again, and the run's real loop replayed on it."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import yaml

from tuner.errors import ErrorClass
from tuner.search.config import RunConfig
from tuner.search.evaluate import Measurement
from tuner.search.loop import GATE_MIN_LAUNCHES
from tuner.search.simulation import ModelError, SpaceCache, exhaust, replay

FROZEN = Path(__file__).parent / "data" / "softmax"
ONE_BUILD = {"buffer_num": [2], "copy": ["data_copy"], "spread": ["contiguous"], "sync": ["queue"],
             "compute": ["fp32"], "reduce": ["api"]}


@pytest.fixture
def small_project(tmp_path) -> Path:
    """The frozen softmax project with one build per variant and few tilings: 20 points at 4x64."""
    project = tmp_path / "project"
    shutil.copytree(FROZEN, project)
    path = project / "search_spaces" / "softmax.yaml"
    space = yaml.safe_load(path.read_text())
    for variant in space["variants"].values():
        for name, choices in ONE_BUILD.items():
            variant["knobs"][name]["choices"] = choices
    space["variants"]["rows"]["knobs"]["rows_per_tile"]["choices"] = [1, 2, 4, 64]
    space["variants"]["split"]["knobs"]["tile_cols"]["choices"] = [256]
    path.write_text(yaml.safe_dump(space, sort_keys=False))
    return project


def config(project: Path, **kwargs) -> RunConfig:
    return RunConfig(op="softmax", shape=(4, 64), dtype="float16", project=project, **kwargs)


def synthetic(cache: SpaceCache) -> dict[str, float | None]:
    """Every point given a made-up time (block_dim 3 wrong), so the loop's replay can be checked exactly."""
    times: dict[str, float | None] = {}
    for variant, params in cache.points():
        wrong = params["block_dim"] == 3
        value = 10.0 / params["block_dim"] + params.get("rows_per_tile", 0) / 10 + (variant.name == "split")
        cache.add(variant.name, params, Measurement(error_class=ErrorClass.WRONG_RESULT, measured=True) if wrong
                  else Measurement(value=value, measured=True))
        times[cache.key(variant.name, params)] = None if wrong else value
    cache.save("simulated, Ascend910B2 model", "test")
    return times


def test_the_loop_replayed_on_a_cache_measures_each_point_once_and_finds_the_optimum(small_project, tmp_path):
    cache = SpaceCache(tmp_path / "cache.json", config(small_project))
    times = synthetic(cache)
    assert len(times) == 20 and cache.complete
    assert cache.optimum() == min(t for t in times.values() if t is not None) == pytest.approx(2.6)
    saved = json.loads((tmp_path / "cache.json").read_text())  # Kernel Tuner's cache file
    assert saved["tune_params_keys"] == ["variant", "block_dim", "rows_per_tile", "buffer_num", "copy", "spread",
                                         "sync", "compute", "reduce", "tile_cols"]
    assert saved["tune_params"]["tile_cols"] == ["-", 256] and saved["objective"] == "time"
    wrong = next(e for e in saved["cache"].values() if e["block_dim"] == 3)
    assert wrong["time"] == "RuntimeFailedConfig" and wrong["error_class"] == "wrong_result"

    reread = SpaceCache(tmp_path / "cache.json", config(small_project))
    run = replay(config(small_project, budget=100, seed=3), reread)
    assert "every feasible point" in run.stop_reason
    assert sorted(run.times, key=lambda t: math.inf if t is None else t) == \
        sorted(times.values(), key=lambda t: math.inf if t is None else t)
    assert run.times[0] == pytest.approx(10.0 / 4 + 6.4)  # the baseline first: all cores, 64 rows per tile
    assert run.best_after(20) == cache.optimum() and run.trials_to_within(cache.optimum()) <= 20
    assert replay(config(small_project, budget=6, seed=3), reread).times == run.times[:6]


def test_on_a_replayed_device_the_gate_keeps_candidates_predicted_slow_off_it(small_project, tmp_path):
    cache = SpaceCache(tmp_path / "cache.json", config(small_project))
    synthetic(cache)
    exact = ModelError(spread=0.0, bias=1.3)  # the model's order kept: the gate can skip only slower points
    ungated = replay(config(small_project, budget=100, seed=3, gate=None), cache, exact)
    assert ungated.not_launched == 0 and len(ungated.times) == 20
    assert ungated.best_after(20) == pytest.approx(1.3 * cache.optimum())
    gated = replay(config(small_project, budget=100, seed=3, gate=0.0), cache, exact)
    assert gated.not_launched > 0 and len(gated.times) < 20
    assert gated.unpredicted == 0  # a repeat of a gated point is seen at its twin's prediction too
    assert gated.best_after(20) == ungated.best_after(20)
    assert replay(config(small_project, budget=4, seed=3, gate=0.0), cache, exact).times == gated.times[:4]

    # The sampler sees a gated candidate at its prediction carried to the device, and the scheduler counts it: with an
    # exact model the gated run asks what the ungated run asks, in the same order, and launches fewer of them.
    best_before = [min((u for u in ungated.times[:i] if u is not None), default=math.inf)
                   for i in range(len(ungated.times))]
    assert gated.times == tuple(t for t, best in zip(ungated.times, best_before, strict=True)
                                if t is None or t <= best)

    # auto: no gate before GATE_MIN_LAUNCHES launches carry a model error; an exact model's spread is 0, so then the
    # margin is GATE_FLOOR
    auto = replay(config(small_project, budget=100, seed=3, gate="auto"), cache, exact)
    assert auto.times[:GATE_MIN_LAUNCHES] == ungated.times[:GATE_MIN_LAUNCHES]
    assert auto.not_launched > 0 and len(auto.times) < 20 and auto.best_after(20) == ungated.best_after(20)

    noisy = ModelError(spread=0.3, bias=1.3, seed=5)  # a point's device time is fixed by the seed
    first, again = (replay(config(small_project, budget=100, seed=3, gate=None), cache, noisy) for _ in range(2))
    assert first.times == again.times and sorted(map(str, first.times)) != sorted(map(str, ungated.times))


@pytest.mark.e2e
def test_exhaust_measures_every_point_once_and_resumes(small_project, tmp_path):
    path = tmp_path / "cache.json"
    seen: list[tuple[int, int]] = []
    cache = exhaust(config(small_project), path, on_point=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (20, 20) and cache.complete
    entries = json.loads(path.read_text())["cache"].values()
    assert all(isinstance(e["time"], float) and e["time"] > 0 and e["compile_time"] >= 0 for e in entries)
    assert json.loads(path.read_text())["tuner"]["time_source"] == "simulated, Ascend910B2 model"
    again: list[tuple[int, int]] = []
    exhaust(config(small_project), path, on_point=lambda done, total: again.append((done, total)))
    assert again == []


def test_a_cache_named_gz_is_kept_gzipped(small_project, tmp_path):
    path = tmp_path / "cache.json.gz"
    cache = SpaceCache(path, config(small_project))
    variant, params = next(iter(cache.points()))
    cache.add(variant.name, params, Measurement(value=1.5, measured=True))
    cache.save("simulated, Ascend910B2 model", "test")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert SpaceCache(path, config(small_project)).measurement(variant.name, params).value == 1.5
