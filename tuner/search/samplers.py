"""The samplers `--sampler` names, each seeded so that a resumed study does not replay its first trials."""

from __future__ import annotations

import warnings

import optuna

from tuner.errors import UsageError

SAMPLERS = ("tpe", "random", "gp", "cmaes", "qmc", "brute")
# TPE as the default runs it (Optuna 5's TPE is multivariate, with the constant liar for parallel asks): five random
# startup trials per variant, not Optuna's ten (docs/search_defaults.md: fewer trials to the optimum)
TPE_OPTIONS: dict[str, object] = {"n_startup_trials": 5}


class _BruteForce(optuna.samplers.BruteForceSampler):
    """Brute force without its own stop: it calls `study.stop()`, which only works inside `optimize`; the
    loop stops by itself once every feasible point has been tried."""

    def after_trial(self, study, trial, state, values) -> None:  # noqa: ANN001 - Optuna's signature
        return None


def make_sampler(name: str, seed: int) -> optuna.samplers.BaseSampler:
    """A fresh sampler; the caller derives `seed` from the run's seed, the study and its trial count."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "tpe":
            return optuna.samplers.TPESampler(seed=seed, **TPE_OPTIONS)
        if name == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if name == "gp":
            return optuna.samplers.GPSampler(seed=seed)
        if name == "cmaes":
            return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
        if name == "qmc":
            return optuna.samplers.QMCSampler(seed=seed, warn_independent_sampling=False)
        if name == "brute":
            return _BruteForce(seed=seed)
    raise UsageError(f"unknown sampler '{name}' (known: {', '.join(SAMPLERS)})")
