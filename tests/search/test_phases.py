"""The interleaved re-timing of the best few candidates, and how its winner is named."""

import pytest

from tuner.search.phases import interleaved_order, interleaved_retime, winner


def test_interleaving_order_rotates_each_round():
    calls: list[str] = []
    base = {"a": 10.0, "b": 9.0, "c": 11.0}

    def time_one(name: str) -> float:
        calls.append(name)
        return base[name] + 0.5 * len(calls)  # the device drifts slower over time

    times = interleaved_retime(["a", "b", "c"], time_one, rounds=3)
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert list(times) == ["a", "b", "c"]
    assert times == {"a": [10.5, 13.0, 14.0], "b": [10.0, 11.0, 13.5], "c": [12.5, 13.5, 14.5]}
    assert winner(times) == "b"
    # each candidate is first exactly once over len(candidates) rounds
    assert {interleaved_order(["a", "b", "c"], r)[0] for r in range(3)} == {"a", "b", "c"}
    assert interleaved_order(["a", "b"], 5) == ["b", "a"]


def test_winner_by_median_not_mean_and_ties_to_the_earlier():
    # one slow outlier raises a's mean above b's, but its median stays lower
    assert winner({"a": [10.0, 10.0, 100.0], "b": [12.0, 12.0, 12.0]}) == "a"
    assert winner({"x": [5.0, 7.0], "y": [6.0, 6.0]}) == "x"
    with pytest.raises(ValueError):
        winner({})


def test_retime_rejects_bad_arguments():
    with pytest.raises(ValueError):
        interleaved_retime(["a", "a"], lambda n: 1.0)
    with pytest.raises(ValueError):
        interleaved_retime(["a"], lambda n: 1.0, rounds=0)
    assert interleaved_retime([], lambda n: 1.0) == {}
