"""Leases on running trials, so that trials of a killed worker are found and retried.

Optuna's heartbeat only runs inside `study.optimize`; the loop uses ask/tell, so every asked trial records
its owner (host, pid, process start) and a lease that a background thread refreshes. At start, a RUNNING
trial whose owner is dead or whose lease expired is told FAIL (`abandoned`) and its knobs re-enqueued.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy.exc

from tuner.errors import ErrorClass
from tuner.processes import pid_alive
from tuner.search.scheduler import TrialFacts, TrialStatus
from tuner.search.trials import StudyTrials, study_id

LEASE_S = 60.0
REFRESH_S = 10.0
# What a storage that cannot be written raises (disk full, read-only, unreachable); a lease then lapses.
STORAGE_ERRORS = (optuna.exceptions.StorageInternalError, sqlalchemy.exc.SQLAlchemyError)


def _process_start(pid: int) -> str:
    """Start time of a process in clock ticks since boot (tells a live pid from a reused one)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def owner() -> dict[str, Any]:
    """Who is running trials in this process."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "start": _process_start(os.getpid())}


def _dead(who: dict[str, Any]) -> bool:
    """True only when `who` ran on this host and its process is gone (or its pid now names another process)."""
    if who.get("host") != socket.gethostname() or not who.get("pid"):
        return False
    pid = int(who["pid"])
    if not pid_alive(pid):
        return True
    return bool(who.get("start")) and _process_start(pid) != who["start"]


def _worker_key(who: dict[str, Any]) -> str:
    return f"worker:{who['host']}:{who['pid']}:{who['start']}"


def live_workers(study_attrs: Mapping[str, Any], now: float | None = None) -> list[dict[str, Any]]:
    """Workers registered on a study (its user attributes) whose process lives and whose registration is
    current."""
    now = time.time() if now is None else now
    found = []
    for key, value in study_attrs.items():
        if key.startswith("worker:") and isinstance(value, dict):
            who = value.get("owner", {})
            if float(value.get("lease_until", 0)) >= now and not _dead(who):
                found.append(who)
    return found


def is_abandoned(trial: TrialFacts, now: float | None = None, *, others_alive: bool = True) -> bool:
    """A RUNNING trial whose owner process is gone or whose lease ran out. A trial killed between its ask
    and its first lease has no owner: it is abandoned when no other worker is alive to be asking it, or
    once it is older than a lease."""
    now = time.time() if now is None else now
    attrs = trial.attrs
    if "lease_until" not in attrs:
        start = trial.started if trial.started is not None else now
        return not others_alive or now - start > LEASE_S
    return _dead(attrs.get("owner") or {}) or float(attrs["lease_until"]) < now


def recover_abandoned(study: optuna.Study) -> list[int]:
    """Tell FAIL every abandoned RUNNING trial of `study` and re-enqueue its knobs; return their numbers."""
    trials = StudyTrials(study)
    me = owner()
    others_alive = any(who != me for who in live_workers(trials.attrs))
    recovered = []
    for trial in trials.all(TrialStatus.RUNNING):
        if not is_abandoned(trial, others_alive=others_alive):
            continue
        try:
            trials.set_attrs(trial.trial_id, {"error_class": ErrorClass.ABANDONED,
                                              "error_detail": "its worker died or stopped renewing its lease"})
            trials.tell(trial.number, TrialStatus.FAIL)
        except (RuntimeError, ValueError):  # another worker recovered it first
            continue
        if trial.params:
            role = {"role": trial.attrs["role"]} if "role" in trial.attrs else {}
            trials.enqueue(trial.params, {"retry_of": trial.number, **role})
        recovered.append(trial.number)
    return recovered


class LeaseKeeper:
    """Registers this worker on its studies and renews the leases of its running trials from a thread."""

    def __init__(self, storage: optuna.storages.BaseStorage) -> None:
        self.storage = storage
        self.me = owner()
        self._trials: set[int] = set()
        self._studies: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tuner-leases", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop renewing; the registrations are marked ended so other workers need not wait for them (when the
        storage can still be written: else they lapse)."""
        self._stop.set()
        with self._lock:
            studies = list(self._studies)
        for study in studies:
            try:
                self._register(study, 0.0)
            except STORAGE_ERRORS:
                return

    def register(self, study: optuna.Study) -> None:
        """Announce this worker on `study` (before it asks anything there)."""
        with self._lock:
            self._studies.add(study_id(study))
        self._register(study_id(study), time.time() + LEASE_S)

    def _register(self, study: int, until: float) -> None:
        self.storage.set_study_user_attr(study, _worker_key(self.me), {"owner": self.me, "lease_until": until})

    def claim(self, trial_id: int) -> None:
        """Record this process as the trial's owner and start renewing its lease."""
        self.storage.set_trial_user_attr(trial_id, "owner", self.me)
        self.storage.set_trial_user_attr(trial_id, "lease_until", time.time() + LEASE_S)
        with self._lock:
            self._trials.add(trial_id)

    def release(self, trial_id: int) -> None:
        with self._lock:
            self._trials.discard(trial_id)

    def _loop(self) -> None:
        while not self._stop.wait(REFRESH_S):
            with self._lock:
                trials, studies = list(self._trials), list(self._studies)
            until = time.time() + LEASE_S
            try:
                for study in studies:
                    self._register(study, until)
                for trial_id in trials:
                    try:
                        self.storage.set_trial_user_attr(trial_id, "lease_until", until)
                    except (RuntimeError, ValueError):  # the trial finished meanwhile; it is released next
                        continue
            except STORAGE_ERRORS:  # the loop meets the same failure and ends the run; the next round retries
                continue
