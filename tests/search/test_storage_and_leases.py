import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
import sqlalchemy.exc
from optuna.trial import TrialState

from tuner.search import leases
from tuner.search.leases import LEASE_S, LeaseKeeper, owner, recover_abandoned
from tuner.search.storage import StorageError, StorageFailure, open_storage, run_studies, storage_failure

from .disks import damage, digest, fill, remount, tmpfs


def _study(tmp_path, name="s"):
    storage, _ = open_storage(f"sqlite:///{tmp_path / 'runs.db'}")
    return storage, optuna.create_study(storage=storage, study_name=name, load_if_exists=True)


def test_default_storage_is_sqlite_under_the_runs_dir(tmp_path):
    _, url = open_storage(None, tmp_path / "runs")
    assert url == f"sqlite:///{tmp_path / 'runs' / 'tuner.db'}"


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    junk = tmp_path / "notes.db"
    junk.write_text("hello, this is not SQLite\n" * 10)
    with pytest.raises(StorageError, match="is not an Optuna database"):
        open_storage(f"sqlite:///{junk}")


def test_an_sqlite_file_without_optuna_tables_is_refused_and_left_alone(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    with pytest.raises(StorageError, match="without Optuna's tables"):
        open_storage(f"sqlite:///{other}")
    with sqlite3.connect(other) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["people"]


def test_unreachable_server_and_bad_urls_are_one_line_errors():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(StorageError, match="cannot open storage") as info:
        open_storage(f"postgresql+psycopg://u:secret@127.0.0.1:{port}/db")
    assert "\n" not in str(info.value) and "secret" not in str(info.value) and "u:***@" in str(info.value)
    with pytest.raises(StorageError, match="not a database URL"):
        open_storage("runs/tuner.db")
    with pytest.raises(StorageError, match="cannot open storage"):
        open_storage("nosuchdialect://x")


def test_run_studies_groups_by_run_id(tmp_path):
    storage, study = _study(tmp_path, "a")
    study.set_user_attr("run_id", "r1")
    study.set_user_attr("variant", "rows")
    optuna.create_study(storage=storage, study_name="b").set_user_attr("run_id", "r2")
    optuna.create_study(storage=storage, study_name="c")
    runs = run_studies(storage)
    assert sorted(runs) == ["r1", "r2"] and runs["r1"][0].variant == "rows"
    assert list(run_studies(storage, "r2")) == ["r2"]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_trial_of_a_dead_owner_is_failed_and_its_knobs_reenqueued(tmp_path):
    storage, study = _study(tmp_path)
    trial = study.ask({"x": optuna.distributions.IntDistribution(0, 100)})
    who = owner()
    who.update(pid=_dead_pid())
    trial.set_user_attr("owner", who)
    trial.set_user_attr("lease_until", time.time() + 3600)
    trial.set_user_attr("role", "baseline")
    assert recover_abandoned(study) == [trial.number]
    frozen = study.trials[trial.number]
    assert frozen.state == TrialState.FAIL and frozen.user_attrs["error_class"] == "abandoned"
    waiting = study.get_trials(states=(TrialState.WAITING,))
    assert len(waiting) == 1 and waiting[0].user_attrs == {"retry_of": trial.number, "role": "baseline"}
    retry = study.ask({"x": optuna.distributions.IntDistribution(0, 100)})
    assert retry.params == frozen.params


def test_expired_lease_of_another_host_is_abandoned_but_a_live_lease_is_not(tmp_path):
    storage, study = _study(tmp_path)
    dist = {"x": optuna.distributions.IntDistribution(0, 100)}
    stale, live = study.ask(dist), study.ask(dist)
    stale.set_user_attr("owner", {"host": "elsewhere", "pid": 1, "start": "1"})
    stale.set_user_attr("lease_until", time.time() - 1)
    keeper = LeaseKeeper(storage)
    keeper.claim(live._trial_id)
    assert recover_abandoned(study) == [stale.number]
    assert study.trials[live.number].state == TrialState.RUNNING
    assert study.trials[live.number].user_attrs["lease_until"] > time.time() + LEASE_S / 2


def test_a_trial_killed_before_its_first_lease_is_abandoned_unless_another_worker_may_be_asking_it(tmp_path):
    storage, study = _study(tmp_path)
    dist = {"x": optuna.distributions.IntDistribution(0, 100)}
    unowned = study.ask(dist)
    study.set_user_attr("worker:elsewhere:1:1", {"owner": {"host": "elsewhere", "pid": 1, "start": "1"},
                                                 "lease_until": time.time() + 100})
    assert recover_abandoned(study) == []
    study.set_user_attr("worker:elsewhere:1:1", {"owner": {"host": "elsewhere", "pid": 1, "start": "1"},
                                                 "lease_until": 0})
    keeper = LeaseKeeper(storage)
    keeper.register(study)  # this worker itself does not count: it has not asked anything yet
    assert recover_abandoned(study) == [unowned.number]
    keeper.stop()
    assert study.user_attrs[f"worker:{keeper.me['host']}:{keeper.me['pid']}:{keeper.me['start']}"]["lease_until"] == 0


def _with_trials(db: Path, count: int = 3) -> list[int]:
    """A study with `count` finished trials in a fresh SQLite file; returns their values."""
    storage, _ = open_storage(f"sqlite:///{db}")
    study = optuna.create_study(storage=storage, study_name="kept")
    for value in range(count):
        trial = study.ask({"x": optuna.distributions.IntDistribution(0, 100)})
        study.tell(trial, float(value))
    storage.engine.dispose()
    return list(range(count))


def _values(db: Path) -> list[float]:
    storage, _ = open_storage(f"sqlite:///{db}")
    values = [t.value for t in optuna.load_study(study_name="kept", storage=storage).trials]
    storage.engine.dispose()
    return values


def test_a_damaged_page_is_refused_in_one_line_and_the_file_is_left_as_it_was(tmp_path):
    db = tmp_path / "tuner.db"
    _with_trials(db)
    before = damage(db)
    with pytest.raises(StorageError, match="tuner.db is damaged \\(On tree page .*\\); nothing was written to it: "
                                           "restore it from a backup") as info:
        open_storage(f"sqlite:///{db}")
    assert "\n" not in str(info.value) and digest(db) == before


def test_a_read_only_directory_is_refused_and_the_trials_are_there_once_it_is_writable(tmp_path):
    with tmpfs(tmp_path / "runs", "4m") as runs:
        db = runs / "tuner.db"
        values = _with_trials(db)
        remount(runs, "ro")
        try:
            with pytest.raises(StorageError, match=f"storage {db}: cannot write in {runs} \\(Read-only file system\\)"):
                open_storage(f"sqlite:///{db}")
        finally:
            remount(runs, "rw")
        assert _values(db) == values


def test_a_full_disk_is_refused_and_the_trials_are_there_once_there_is_room(tmp_path):
    with tmpfs(tmp_path / "runs", "2m") as runs:
        db = runs / "tuner.db"
        values = _with_trials(db)
        filler = fill(runs)
        with pytest.raises(StorageError, match="tuner.db: its disk is full \\(\\d+ KiB free\\); free some space"):
            open_storage(f"sqlite:///{db}")
        filler.unlink()
        assert _values(db) == values


@pytest.mark.parametrize("url", ["sqlite:////proc/nonexistent/x.db", "sqlite:////proc/x.db"])
def test_a_storage_where_no_file_can_be_made_is_one_line(url):
    with pytest.raises(StorageError, match="cannot write in /proc") as info:
        open_storage(url)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite:///:memory:"])
def test_an_in_memory_storage_is_refused_as_it_would_lose_every_trial(url):
    with pytest.raises(StorageError, match="in-memory SQLite database: every trial would be lost"):
        open_storage(url)


def _failed_commit(message: str) -> optuna.exceptions.StorageInternalError:
    """What Optuna raises when SQLite refuses a commit: its error, under SQLAlchemy's, under Optuna's."""
    try:
        try:
            raise sqlalchemy.exc.OperationalError("COMMIT", {}, sqlite3.OperationalError(message))
        except sqlalchemy.exc.OperationalError as exc:
            raise optuna.exceptions.StorageInternalError("An exception is raised during the commit.") from exc
    except optuna.exceptions.StorageInternalError as exc:
        return exc


@pytest.mark.parametrize(("cause", "hint"), [
    ("database or disk is full", "free some space there and re-run the command: it resumes"),
    ("attempt to write a readonly database", "make the storage's directory writable"),
    ("database disk image is malformed", "the database is damaged"),
])
def test_a_storage_failing_mid_run_is_named_by_its_cause(cause, hint):
    failure = storage_failure(_failed_commit(cause))
    assert isinstance(failure, StorageFailure)
    assert str(failure).startswith(f"the storage failed: {cause}; {hint}")
    assert storage_failure(ValueError("not a storage's")) is None


class _FullStorage:
    """A storage whose every write fails as a full disk does."""

    def set_study_user_attr(self, *args) -> None:
        raise _failed_commit("database or disk is full")

    set_trial_user_attr = set_study_user_attr


def test_leases_that_cannot_be_written_lapse_without_stopping_the_worker(tmp_path, monkeypatch):
    storage, study = _study(tmp_path)
    keeper = LeaseKeeper(storage)
    keeper.register(study)
    keeper.claim(study.ask({"x": optuna.distributions.IntDistribution(0, 100)})._trial_id)
    keeper.storage = _FullStorage()
    monkeypatch.setattr(leases, "REFRESH_S", 0.01)
    keeper.start()
    time.sleep(0.3)
    assert keeper._thread.is_alive()  # renewing went on failing, and the thread with it
    keeper.stop()  # the run's own error is the one to report, not this
    keeper._thread.join(timeout=5)
    assert not keeper._thread.is_alive()
