"""The trials adapter: the one module that touches Optuna's internals (trial and study ids, the storage behind a
study) and that asks, tells and uploads for the run. Everything else sees a trial as `TrialFacts` and an asked
one as `Asked`.
"""

from __future__ import annotations

import copy
import shutil
import tempfile
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy.exc
from optuna.artifacts import get_all_artifact_meta, upload_artifact
from optuna.distributions import BaseDistribution
from optuna.trial import FrozenTrial, TrialState
from optuna_dashboard import save_note

from tuner.errors import UsageError
from tuner.search.scheduler import TrialFacts, TrialStatus, point_key

__all__ = ["PREDICTED_DEVICE_US", "Asked", "PredictionInformed", "StudyTrials", "facts", "open_study", "set_trial_attr",
           "study_id", "trial_id"]

_STATUS = {TrialState.RUNNING: TrialStatus.RUNNING, TrialState.WAITING: TrialStatus.WAITING,
           TrialState.COMPLETE: TrialStatus.COMPLETE, TrialState.PRUNED: TrialStatus.PRUNED,
           TrialState.FAIL: TrialStatus.FAIL}
_STATE = {status: state for state, status in _STATUS.items()}
CREATE_ATTEMPTS = 5
# The user attribute of a trial the gate kept off the device: its predicted device time, which only the sampler sees
PREDICTED_DEVICE_US = "predicted_device_us"


def trial_id(trial: optuna.trial.Trial | FrozenTrial) -> int:
    """The storage's id of a trial (unique across studies, unlike its number)."""
    return trial._trial_id


def study_id(study: optuna.Study) -> int:
    return study._study_id


def set_trial_attr(study: optuna.Study, trial: int, key: str, value: Any) -> None:
    """A user attribute on trial id `trial` of `study`, whichever worker asked it."""
    study._storage.set_trial_user_attr(trial, key, value)


def facts(trial: FrozenTrial) -> TrialFacts:
    return TrialFacts(trial_id=trial._trial_id, number=trial.number, status=_STATUS[trial.state],
                      params=trial.params, value=trial.value, attrs=trial.user_attrs,
                      started=trial.datetime_start.timestamp() if trial.datetime_start else None)


@dataclass(frozen=True)
class Asked:
    """A trial this worker asked and has not told yet."""

    trial_id: int
    number: int
    params: dict[str, Any]
    handle: optuna.trial.Trial

    @property
    def key(self) -> tuple:
        return point_key(self.params)


def open_study(storage: optuna.storages.BaseStorage, name: str) -> optuna.Study:
    """Load or create the minimizing study `name`; workers racing to create it all get the one that won."""
    for attempt in range(CREATE_ATTEMPTS):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                study = optuna.create_study(storage=storage, study_name=name, direction="minimize",
                                            load_if_exists=True)
            break
        except (optuna.exceptions.DuplicatedStudyError, sqlalchemy.exc.IntegrityError):
            if attempt == CREATE_ATTEMPTS - 1:  # another worker kept winning the race to create it
                raise
            time.sleep(0.2)
    if study.direction != optuna.study.StudyDirection.MINIMIZE:
        raise UsageError(f"study '{name}' in the storage maximizes; it was not made by this tuner")
    return study


class StudyTrials:
    """One variant's study, through the operations a run needs; artifacts go to `artifacts`."""

    def __init__(self, study: optuna.Study, artifacts: Any = None) -> None:
        self.study, self.artifacts = study, artifacts

    @property
    def name(self) -> str:
        return self.study.study_name

    @property
    def id(self) -> int:
        return self.study._study_id

    # ----- the study -----------------------------------------------------------------------------------
    @property
    def attrs(self) -> dict[str, Any]:
        return self.study.user_attrs

    def set_attr(self, key: str, value: Any) -> None:
        self.study.set_user_attr(key, value)

    def describe(self, attrs: Mapping[str, Any], metric: str, note: str) -> None:
        """A new study's identity: its attributes, the name of its objective and the dashboard's note."""
        for key, value in attrs.items():
            self.study.set_user_attr(key, value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            self.study.set_metric_names([metric])
        save_note(self.study, note)

    def use_sampler(self, sampler: optuna.samplers.BaseSampler) -> None:
        self.study.sampler = sampler

    # ----- reading trials ------------------------------------------------------------------------------
    def count(self) -> int:
        return len(self.study.get_trials(deepcopy=False))

    def all(self, *statuses: TrialStatus) -> list[TrialFacts]:
        states = tuple(_STATE[s] for s in statuses) or None
        return [facts(t) for t in self.study.get_trials(deepcopy=False, states=states)]

    def get(self, trial: int) -> TrialFacts:
        """Trial id `trial` as the storage holds it now."""
        return facts(self.study._storage.get_trial(trial))

    # ----- asking and telling --------------------------------------------------------------------------
    def ask(self, distributions: Mapping[str, BaseDistribution]) -> Asked:
        trial = self.study.ask(fixed_distributions=dict(distributions))
        return Asked(trial._trial_id, trial.number, dict(trial.params), trial)

    def enqueue(self, params: Mapping[str, Any], attrs: Mapping[str, Any]) -> None:
        self.study.enqueue_trial(dict(params), user_attrs=dict(attrs))

    def set_attrs(self, trial: int, attrs: Mapping[str, Any]) -> None:
        for key, value in attrs.items():
            self.study._storage.set_trial_user_attr(trial, key, value)

    def tell(self, number: int, status: TrialStatus, value: float | None = None) -> None:
        """Finish trial `number`: COMPLETE with `value`, or PRUNED or FAIL."""
        if status == TrialStatus.COMPLETE:
            self.study.tell(number, value)
        else:
            self.study.tell(number, state=_STATE[status])

    # ----- artifacts -----------------------------------------------------------------------------------
    def upload_texts(self, asked: Asked, texts: Mapping[str, str | None]) -> None:
        """Files of an asked trial (name -> text; an empty or missing text is skipped)."""
        with tempfile.TemporaryDirectory(prefix="tuner-art-") as tmp:
            for name, text in texts.items():
                if text:
                    path = Path(tmp) / name
                    path.write_text(text)
                    upload_artifact(artifact_store=self.artifacts, file_path=str(path), study_or_trial=asked.handle)

    def upload_file(self, source: Path, name: str) -> None:
        """A copy of `source`, called `name`, as an artifact of the study."""
        with tempfile.TemporaryDirectory(prefix="tuner-art-") as tmp:
            path = Path(tmp) / name
            shutil.copyfile(source, path)
            upload_artifact(artifact_store=self.artifacts, file_path=str(path), study_or_trial=self.study)

    def artifact_names(self) -> set[str]:
        return {meta.filename for meta in get_all_artifact_meta(self.study)}


class _PredictedView:
    """A study as a sampler reads it, where a PRUNED trial that carries a predicted device time is COMPLETE at that
    time; the storage keeps it PRUNED, and nothing but the sampler reads the view."""

    def __init__(self, study: optuna.Study) -> None:
        self._study = study

    def __getattr__(self, name: str) -> Any:
        return getattr(self._study, name)

    def _get_trials(self, deepcopy: bool = True, states: Any = None, use_cache: bool = False) -> list[FrozenTrial]:
        wanted = None if states is None else tuple(states)
        asked = wanted if wanted is None or TrialState.COMPLETE not in wanted else (*wanted, TrialState.PRUNED)
        seen = []
        for trial in self._study._get_trials(deepcopy=deepcopy, states=asked, use_cache=use_cache):
            predicted = trial.user_attrs.get(PREDICTED_DEVICE_US)
            if trial.state == TrialState.PRUNED and isinstance(predicted, (int, float)):
                trial = copy.copy(trial)
                trial.state, trial.value = TrialState.COMPLETE, float(predicted)
            if wanted is None or trial.state in wanted:
                seen.append(trial)
        return seen

    def get_trials(self, deepcopy: bool = True, states: Any = None) -> list[FrozenTrial]:
        return self._get_trials(deepcopy=deepcopy, states=states)


class PredictionInformed(optuna.samplers.BaseSampler):
    """A sampler that learns from the gate's verdicts: `inner` sees each trial kept off the device at its predicted
    device time (`PREDICTED_DEVICE_US`) instead of as a PRUNED trial it ranks below every measured one."""

    def __init__(self, inner: optuna.samplers.BaseSampler) -> None:
        self.inner = inner

    def infer_relative_search_space(self, study: optuna.Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        return self.inner.infer_relative_search_space(_PredictedView(study), trial)

    def sample_relative(self, study: optuna.Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        return self.inner.sample_relative(_PredictedView(study), trial, search_space)

    def sample_independent(self, study: optuna.Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self.inner.sample_independent(_PredictedView(study), trial, param_name, param_distribution)

    def before_trial(self, study: optuna.Study, trial: FrozenTrial) -> None:
        self.inner.before_trial(study, trial)

    def after_trial(self, study: optuna.Study, trial: FrozenTrial, state: TrialState,
                    values: list[float] | None) -> None:
        self.inner.after_trial(study, trial, state, values)

    def reseed_rng(self) -> None:
        self.inner.reseed_rng()
