import socket
import sqlite3
import subprocess
import sys
import time

import optuna
import pytest
from optuna.trial import TrialState

from tuner.search.leases import LEASE_S, LeaseKeeper, owner, recover_abandoned
from tuner.search.storage import StorageError, open_storage, run_studies


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
