"""The scheduler's rules on plain trial records: no Optuna, no backend."""

from __future__ import annotations

import itertools

import pytest

from tuner.errors import ErrorClass
from tuner.search.scheduler import (
    MIN_TRIALS_PER_VARIANT,
    Plateau,
    Scheduler,
    TrialFacts,
    TrialStatus,
    VariantState,
    point_key,
)

_ids = itertools.count()


def _trial(params: dict, status: TrialStatus = TrialStatus.COMPLETE, value: float | None = None,
           **attrs) -> TrialFacts:
    number = next(_ids)
    if status == TrialStatus.COMPLETE and value is None:
        value = 10.0
    return TrialFacts(number, number, status, params, value, attrs)


def _state(name: str, points: int) -> VariantState:
    return VariantState(name, [{"x": i} for i in range(points)])


def test_error_classes_know_what_a_repeat_reproduces_and_what_is_worth_a_repair():
    assert {c for c in ErrorClass if c.deterministic} == {
        ErrorClass.INFEASIBLE, ErrorClass.RENDER_ERROR, ErrorClass.COMPILE_ERROR, ErrorClass.FAULT,
        ErrorClass.WRONG_RESULT, ErrorClass.TIMEOUT, ErrorClass.PREDICTED_SLOW}
    assert {c for c in ErrorClass if c.repairable} == {
        ErrorClass.COMPILE_ERROR, ErrorClass.RENDER_ERROR, ErrorClass.WRONG_RESULT, ErrorClass.FAULT}
    assert ErrorClass.of("fault") is ErrorClass.FAULT
    assert ErrorClass.of("no such") is None and ErrorClass.of(None) is None
    assert f"{ErrorClass.WRONG_RESULT}" == "wrong_result"  # the string a trial's user attribute keeps


def test_refresh_dedupes_reproducible_results_and_in_flight_candidates_only():
    state = _state("v", 6)
    state.refresh([
        _trial({"x": 0}, value=5.0, measured=True),
        _trial({"x": 1}, TrialStatus.PRUNED, error_class="compile_error", measured=True),
        _trial({"x": 2}, TrialStatus.PRUNED, error_class="interrupted", measured=True),  # a repeat may differ
        _trial({"x": 3}, TrialStatus.RUNNING, candidate=True),
        _trial({"x": 4}, TrialStatus.RUNNING),  # asked, not yet a candidate
        _trial({"x": 5}, TrialStatus.FAIL, error_class="tuner_error"),
    ])
    assert set(state.seen) == {point_key({"x": 0}), point_key({"x": 1}), point_key({"x": 3})}
    assert state.measured == 4  # the three measured to the end and the one in flight
    assert state.best == 5.0
    assert state.untried() == [{"x": 2}, {"x": 4}, {"x": 5}]
    assert state.untried([point_key({"x": 4})]) == [{"x": 2}, {"x": 5}]


def test_the_best_trial_is_one_measured_itself_never_its_duplicate():
    state = _state("v", 2)
    original = _trial({"x": 0}, value=3.0, measured=True)
    state.told(_trial({"x": 0}, value=3.0, duplicate_of=original.number))
    assert state.best == 3.0 and state.best_trial is None
    state.told(original)
    assert state.best_trial == original


def test_each_variant_gets_its_warm_up_trials_before_ucb():
    scheduler = Scheduler(budget=100)
    a, b = _state("a", 20), _state("b", 20)
    scheduler.add(a)
    scheduler.add(b)
    a.measured, b.measured = MIN_TRIALS_PER_VARIANT, 2
    assert scheduler.choose() is b
    small = _state("small", 1)
    small.measured = 1  # all of its one point measured: warmed up, and once seen, exhausted
    small.seen[point_key({"x": 0})] = _trial({"x": 0})
    scheduler.add(small)
    b.measured = MIN_TRIALS_PER_VARIANT
    a.best, b.best = 10.0, 15.0
    assert scheduler.choose() is a  # equal counts: the faster variant's reward wins
    a.measured = 600
    assert scheduler.choose() is b  # the slower one, asked far less, is explored


def test_choose_is_none_when_every_point_was_tried():
    scheduler = Scheduler(budget=10)
    state = _state("v", 2)
    scheduler.add(state)
    state.refresh([_trial({"x": 0}), _trial({"x": 1}, TrialStatus.PRUNED, error_class="infeasible")])
    assert state.exhausted and scheduler.choose() is None


def test_budget_counts_measured_candidates_across_variants():
    scheduler = Scheduler(budget=3)
    a, b = _state("a", 5), _state("b", 5)
    scheduler.add(a)
    scheduler.add(b)
    a.refresh([_trial({"x": 0}, measured=True), _trial({"x": 1}, TrialStatus.PRUNED, error_class="infeasible")])
    b.refresh([_trial({"x": 0}, TrialStatus.RUNNING, candidate=True)])
    assert scheduler.used() == 2 and not scheduler.spent
    b.measured += 1
    assert scheduler.spent


def test_a_candidate_the_gate_kept_off_the_device_is_judged_but_takes_no_budget():
    scheduler = Scheduler(budget=2)
    a, b = _state("a", 20), _state("b", 20)
    scheduler.add(a)
    scheduler.add(b)
    gated = [_trial({"x": i}, TrialStatus.PRUNED, error_class="predicted_slow", measured=False) for i in range(3)]
    a.refresh([_trial({"x": 9}, value=5.0, measured=True), *gated,
               _trial({"x": 1}, TrialStatus.PRUNED, error_class="predicted_slow", duplicate_of=gated[1].number)])
    assert (a.measured, a.gated, a.judged) == (1, 3, 4) and not scheduler.spent
    b.measured = 2
    assert scheduler.choose() is b  # a's warm-up is over: its judged candidates count for UCB
    a.told(_trial({"x": 4}, TrialStatus.PRUNED, error_class="predicted_slow", measured=False))
    assert a.gated == 4 and scheduler.used() == 3


def test_the_baseline_time_is_that_of_the_measured_baseline_trial():
    scheduler = Scheduler(budget=10)
    state = _state("v", 3)
    scheduler.add(state)
    state.refresh([_trial({"x": 0}, value=7.0), _trial({"x": 1}, value=9.0, role="baseline")])
    assert scheduler.baseline_us() == 9.0 and scheduler.best_us() == 7.0 and scheduler.best_state() is state


def test_patience_stops_the_run_after_that_many_asks_without_a_new_candidate():
    scheduler = Scheduler(budget=10, patience=3)
    scheduler.unproductive()
    scheduler.unproductive()
    scheduler.productive()
    scheduler.unproductive()
    scheduler.unproductive()
    assert scheduler.stop_reason == ""
    scheduler.unproductive()
    assert scheduler.stop_reason == "3 consecutive asks gave no new candidate to measure"


@pytest.mark.parametrize(("window", "bests", "fires_at"), [
    (3, [10.0, 9.0, 8.0, 7.0, 6.0, 6.0, 6.0, 6.0], 7),  # three trials without 1% improvement
    (3, [10.0, 10.0, 10.0, 9.0, 8.0, 7.0], None),
    (0, [10.0] * 10, None),  # a window of 0: never
])
def test_a_plateau_fires_after_its_window_without_improvement(window, bests, fires_at):
    plateau = Plateau(window, 0.01)
    fired = [i for i, best in enumerate(bests) if plateau.observe(best)]
    assert fired == ([] if fires_at is None else [fires_at])
