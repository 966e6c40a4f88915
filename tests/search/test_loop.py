"""The optimize loop on softmax, at shapes small enough to run in seconds. The loop's tests search a frozen copy of
the softmax space and templates (tests/search/data/softmax/, as they were before the kernel library), so that a
refactoring of the packaged templates changes none of their kernels; those of its own rules (budget, dedupe,
resume, samplers, stops) answer from a recording of the simulator (`replayed`, tests/conftest.py), one candidate
at a time so that a run asks what was recorded; the compile cache, the parallel workers and the packaged kernels
at odd shapes run the simulator."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from tuner.search.evaluate import INPUT_SETS
from tuner.search.loop import RunConfig, optimize
from tuner.search.storage import open_storage, run_studies
from tuner.space.spaces import PROJECT_ROOT

optuna.logging.set_verbosity(optuna.logging.WARNING)
LOOP_PROJECT = Path(__file__).parent / "data" / "softmax"
JSON_KEYS = {"run", "storage", "studies", "op", "shape", "dtype", "soc", "backend", "trials", "baseline_us", "best_us",
             "speedup", "roofline_us", "roofline_pct", "best_study", "best_variant", "best_params", "best_dir"}


def _config(tmp_path: Path, **overrides) -> RunConfig:
    values = {"op": "softmax", "shape": (16, 200), "budget": 14, "runs_dir": tmp_path / "runs", "seed": 1, "jobs": 1,
              "project": LOOP_PROJECT}
    values.update(overrides)
    return RunConfig(**values)


def _trials(config: RunConfig) -> dict[str, list[optuna.trial.FrozenTrial]]:
    storage, _ = open_storage(config.storage, config.runs_dir)
    return {info.variant: optuna.load_study(study_name=info.name, storage=storage).trials
            for info in run_studies(storage, config.run_name)[config.run_name]}


def _measured(trials: dict[str, list]) -> int:
    return sum(1 for ts in trials.values() for t in ts
               if t.user_attrs.get("measured") and t.state in (TrialState.COMPLETE, TrialState.PRUNED))


@pytest.fixture(scope="module")
def finished(tmp_path_factory, replayed):
    """One run of 14 candidates over both variants, shared by the tests that only read it."""
    tmp = tmp_path_factory.mktemp("loop")
    config = _config(tmp)
    return config, optimize(config, backend=replayed())


def test_run_covers_both_variants_and_beats_or_matches_its_baseline(finished):
    config, summary = finished
    trials = _trials(config)
    assert set(trials) == {"rows", "split"}
    for variant, ts in trials.items():
        assert sum(1 for t in ts if t.user_attrs.get("measured")) >= 5, variant
    assert summary.baseline is not None and summary.baseline.attrs["role"] == "baseline"
    assert summary.best is not None and summary.best_us <= summary.baseline_us
    assert summary.best.attrs["verified_sets"] == INPUT_SETS
    assert summary.time_source.startswith("simulated, Ascend910B2 model")  # "(replayed)" after it here


def test_budget_counts_measured_candidates_only(finished):
    config, summary = finished
    trials = _trials(config)
    assert summary.trials == _measured(trials) == config.budget
    for ts in trials.values():
        for t in ts:
            assert t.state in (TrialState.COMPLETE, TrialState.PRUNED)
            if t.user_attrs.get("error_class") == "infeasible":
                assert not t.user_attrs.get("measured") and "source_hash" not in t.user_attrs
            if "duplicate_of" in t.user_attrs:
                assert "measured" not in t.user_attrs


def test_every_trial_records_what_the_dashboard_shows(finished):
    config, _ = finished
    for variant, ts in _trials(config).items():
        for t in ts:
            if t.user_attrs.get("measured"):
                attrs = t.user_attrs
                assert attrs["variant"] == variant
                assert set(attrs) >= {"source_hash", "compile_s", "pipe", "max_error", "time_source", "launch"}
                assert set(attrs["pipe"]) >= {"vec", "scalar", "mte2", "mte3", "gm_to_ub_bytes"}
                if t.state == TrialState.COMPLETE:
                    assert 0 <= attrs["max_error"]["ratio"] <= 1
                assert attrs["owner"]["pid"] > 0


def test_studies_carry_run_id_and_provenance(finished):
    config, summary = finished
    storage, _ = open_storage(None, config.runs_dir)
    infos = run_studies(storage, config.run_name)[config.run_name]
    assert [i.name for i in infos] == summary.studies
    for info in infos:
        assert info.name.startswith(f"{config.run_name}:{info.variant}:")
        prov = info.attrs["provenance"]
        assert {"tuner_version", "backend_version", "torch_version", "soc_table_hash", "seed", "sampler"} <= set(prov)


def test_json_contract(finished):
    _, summary = finished
    data = json.loads(json.dumps(summary.to_json()))
    assert set(data) >= JSON_KEYS
    assert data["speedup"] == pytest.approx(data["baseline_us"] / data["best_us"])
    assert data["roofline_pct"] == pytest.approx(100 * data["roofline_us"] / data["best_us"])


def test_winner_is_exported_with_its_kernel_description(finished):
    config, summary = finished
    best = Path(summary.best_dir)
    described = json.loads((best / "kernel.json").read_text())
    assert described["entry"] == "softmax_custom" and described["variant"] == summary.best.variant
    assert [a["kind"] for a in described["arguments"]] == ["in", "out", "bytes"]
    assert described["time_us"] == pytest.approx(summary.best_us)
    assert (best / "kernel.cpp").read_text().count("softmax_custom") >= 1


def test_rerun_is_a_no_op_and_a_larger_budget_tops_up(finished, tmp_path, replayed):
    config, summary = finished
    again = optimize(config, backend=replayed())
    assert again.already_finished and again.trials == config.budget
    assert _measured(_trials(config)) == config.budget
    more = optimize(_config(config.runs_dir.parent, budget=config.budget + 6), backend=replayed())
    assert more.trials == config.budget + 6 == _measured(_trials(config))
    assert more.best_us <= summary.best_us


def test_resumed_study_does_not_replay_its_first_trials(tmp_path, replayed):
    config = _config(tmp_path, budget=8, sampler="random")
    optimize(config, backend=replayed())
    optimize(_config(tmp_path, budget=16, sampler="random"), backend=replayed())
    for ts in _trials(config).values():
        asked = [t for t in ts if "role" not in t.user_attrs]
        first, resumed = asked[:4], [t for t in asked if t.number >= len(asked) // 2][:4]
        assert [t.params for t in first] != [t.params for t in resumed]


def test_duplicates_are_free_and_copy_their_twin(tmp_path, replayed):
    config = _config(tmp_path, budget=4)
    optimize(config, backend=replayed())
    storage, _ = open_storage(None, config.runs_dir)
    info = run_studies(storage, config.run_name)[config.run_name][0]
    study = optuna.load_study(study_name=info.name, storage=storage)
    twin = next(t for t in study.trials if t.state == TrialState.COMPLETE)
    study.enqueue_trial(twin.params)
    optimize(_config(tmp_path, budget=5), backend=replayed())
    copies = [t for t in study.get_trials() if t.user_attrs.get("duplicate_of") == twin.number]
    assert len(copies) == 1 and copies[0].value == twin.value
    assert _measured(_trials(config)) == 5


def test_compile_cache_serves_a_second_run(tmp_path):
    first = _config(tmp_path, budget=3, shape=(4, 64))
    optimize(first)
    second = _config(tmp_path, budget=3, shape=(4, 64), run="again")
    optimize(second)
    hashes = {t.user_attrs.get("source_hash") for ts in _trials(first).values() for t in ts} - {None}
    again = [t for ts in _trials(second).values() for t in ts if t.user_attrs.get("source_hash") in hashes]
    assert again and all(t.user_attrs["build_cached"] for t in again)


def test_row_too_long_for_ub_uses_only_the_split_variant(tmp_path, replayed):
    summary = optimize(_config(tmp_path, shape=(2, 100_000), budget=3, dtype="float32"), backend=replayed())
    assert set(summary.skipped) == {"rows"} and summary.best.variant == "split"
    assert Counter(t.state for t in _trials(_config(tmp_path, shape=(2, 100_000), dtype="float32"))["split"])


@pytest.mark.parametrize(("shape", "dtype"), [((1, 37), "float16"), ((3, 1000), "bfloat16"), ((5, 1), "float32")])
def test_odd_shapes_give_correct_kernels(tmp_path, shape, dtype):
    summary = optimize(_config(tmp_path, shape=shape, dtype=dtype, budget=4, project=PROJECT_ROOT))
    assert summary.best is not None and summary.best.attrs["verified_sets"] == INPUT_SETS


@pytest.mark.parametrize(("sampler", "budget"), [("random", 4), ("cmaes", 4), ("brute", 4), ("gp", 12)])
def test_every_sampler_runs(tmp_path, sampler, budget, replayed):
    summary = optimize(_config(tmp_path, sampler=sampler, budget=budget, shape=(8, 64)), backend=replayed())
    assert summary.trials == budget and summary.best is not None


def test_a_twin_of_a_running_candidate_waits_for_it_instead_of_running_again(tmp_path):
    config = _config(tmp_path, shape=(2, 100_000), dtype="float32", budget=2, jobs=2)
    optimize(config)
    storage, _ = open_storage(None, config.runs_dir)
    (info,) = run_studies(storage, config.run_name)[config.run_name]
    study = optuna.load_study(study_name=info.name, storage=storage)
    fresh = {**study.trials[0].params, "block_dim": 2} if study.trials[0].params["block_dim"] == 1 else \
        {**study.trials[0].params, "block_dim": 1}
    study.enqueue_trial(fresh)
    study.enqueue_trial(fresh)
    optimize(_config(tmp_path, shape=(2, 100_000), dtype="float32", budget=4, jobs=2))
    twins = [t for t in study.get_trials() if t.params == fresh]
    assert len(twins) == 2
    first, second = sorted(twins, key=lambda t: t.number)
    assert first.user_attrs["measured"] and second.user_attrs["duplicate_of"] == first.number
    assert second.state == first.state and second.value == first.value
    assert _measured(_trials(config)) == 4


def test_ctrl_c_while_the_winner_is_exported_is_an_interrupt_with_the_summary(tmp_path, monkeypatch, replayed):
    from tuner.search.loop import Interrupted, Optimizer

    exports = []

    def export_interrupted(self) -> None:
        exports.append(self.stop_reason)
        raise KeyboardInterrupt

    monkeypatch.setattr(Optimizer, "_export_best", export_interrupted)
    config = _config(tmp_path, budget=3, shape=(4, 64))
    with pytest.raises(Interrupted) as info:
        optimize(config, backend=replayed())
    assert exports == ["budget of 3 trials reached"]  # after the search, which had ended by itself
    summary = info.value.summary
    assert summary.stop_reason == "interrupted" and summary.trials == 3 and summary.best is not None
    assert all(t.state.is_finished() for ts in _trials(config).values() for t in ts)


def test_a_candidate_far_faster_than_the_baseline_is_flagged_and_shown(tmp_path, monkeypatch, replayed):
    from tuner.console import summary_table
    from tuner.search import evaluate

    # At a factor of 1, anything faster than the measured baseline is "too good": the run must hand the
    # evaluator its baseline's time for that to be seen.
    monkeypatch.setattr(evaluate, "SUSPECT_SPEEDUP", 1.0)
    config = _config(tmp_path, budget=20, rewrites=False)
    summary = optimize(config, backend=replayed())
    flagged = [t for ts in _trials(config).values() for t in ts if "suspect" in t.user_attrs]
    assert summary.best_us < summary.baseline_us and flagged
    assert all("faster than the baseline" in t.user_attrs["suspect"] and t.user_attrs["verified_sets"] == INPUT_SETS
               for t in flagged)
    assert summary.to_json()["suspect"] == summary.best.attrs["suspect"]
    rows = {row[0]: row[1] for row in zip(*(col._cells for col in summary_table(summary).columns), strict=True)}
    assert "re-verified on every input set" in rows["suspect"]


def test_a_kept_rewrite_that_no_longer_renders_is_skipped_on_resume(tmp_path, replayed):
    import yaml

    from tuner.space.spaces import REWRITE_FILE, load_space

    config = _config(tmp_path, budget=4, rewrites=False)
    optimize(config, backend=replayed())
    parent = load_space("softmax", LOOP_PROJECT).variants["rows"]
    directory = config.runs_dir / config.run_name / "variants" / "rows+llm-1"
    directory.mkdir(parents=True)
    template = parent.template.read_text()
    bomb = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
    (directory / "kernel.cpp.j2").write_text(bomb + template)
    space = {k: v for k, v in parent.raw.items() if k not in ("lineage", "template")}
    (directory / REWRITE_FILE).write_text(yaml.safe_dump(
        {"name": "rows+llm-1", "parent": "rows", "origin": "llm", "proposal": "p", "rationale": "", "space": space}))
    summary = optimize(_config(tmp_path, budget=8, rewrites=False), backend=replayed())
    assert summary.trials == 8
    assert "rows+llm-1" in summary.skipped and "no longer loads" in summary.skipped["rows+llm-1"]
