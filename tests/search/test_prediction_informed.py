"""The sampler behind the gate: a trial kept off the device is PRUNED in the storage, and the sampler learns from it
as from a trial measured at its predicted device time."""

from __future__ import annotations

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, IntDistribution
from optuna.trial import TrialState

from tuner.search.samplers import make_sampler
from tuner.search.trials import PREDICTED_DEVICE_US, PredictionInformed

SPACE = {"block_dim": IntDistribution(1, 48), "tile": CategoricalDistribution([256, 512, 1024, 2048, 4096])}
HISTORY = [({"block_dim": 40, "tile": 1024}, 3.0), ({"block_dim": 8, "tile": 256}, 9.0),
           ({"block_dim": 24, "tile": 4096}, 5.0), ({"block_dim": 2, "tile": 512}, 12.0),
           ({"block_dim": 44, "tile": 2048}, 3.5), ({"block_dim": 12, "tile": 1024}, 7.0),
           ({"block_dim": 32, "tile": 256}, 6.0), ({"block_dim": 4, "tile": 4096}, 11.0)]
GATED = 3  # the trials told by their prediction


def _study(gated_as: str, sampler_name: str) -> optuna.Study:
    study = optuna.create_study(sampler=PredictionInformed(make_sampler(sampler_name, seed=7)))
    for index, (params, value) in enumerate(HISTORY):
        if index < GATED and gated_as == "predicted":
            study.add_trial(optuna.trial.create_trial(params=params, distributions=SPACE, state=TrialState.PRUNED,
                                                      user_attrs={PREDICTED_DEVICE_US: value}))
        elif index < GATED and gated_as == "pruned":
            study.add_trial(optuna.trial.create_trial(params=params, distributions=SPACE, state=TrialState.PRUNED))
        else:
            study.add_trial(optuna.trial.create_trial(params=params, distributions=SPACE, value=value))
    return study


def _next(study: optuna.Study, count: int = 6) -> list[dict]:
    asked = []
    for _ in range(count):
        trial = study.ask(SPACE)
        asked.append(trial.params)
        study.tell(trial, HISTORY[len(asked) % len(HISTORY)][1])
    return asked


@pytest.mark.parametrize("sampler", ["tpe", "gp", "cmaes"])
def test_a_gated_trial_teaches_the_sampler_what_a_measured_one_would(sampler: str) -> None:
    measured, predicted = _study("measured", sampler), _study("predicted", sampler)
    assert _next(predicted) == _next(measured)
    stored = predicted.get_trials(deepcopy=False)[:GATED]
    assert all(t.state == TrialState.PRUNED and t.value is None for t in stored)  # the storage holds no such time


def test_without_its_prediction_a_pruned_trial_teaches_less() -> None:
    assert _next(_study("pruned", "tpe")) != _next(_study("measured", "tpe"))
