"""Where runs live: the Optuna storage (SQLite by default, any SQLAlchemy URL), studies of a run, artifacts."""

from __future__ import annotations

import sqlite3
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy
import sqlalchemy.exc
from optuna.artifacts import FileSystemArtifactStore
from optuna.storages import RDBStorage

from tuner.errors import UsageError

DEFAULT_RUNS_DIR = Path("runs")


class StorageError(UsageError):
    """Raised when the storage cannot be opened: unreachable server, bad URL, a file that is not Optuna's."""


def default_url(runs_dir: Path) -> str:
    return f"sqlite:///{runs_dir / 'tuner.db'}"


def shown_url(url: str) -> str:
    """The URL as printed: any password replaced by ***."""
    try:
        return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:
        return url


def _check_sqlite_file(url: str) -> None:
    path = Path(url.removeprefix("sqlite:///"))
    if url.startswith("sqlite:///") and path.exists():
        if path.is_dir():
            raise StorageError(f"{path} is a directory, not an Optuna database")
        if path.stat().st_size == 0:
            return
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError:
            raise StorageError(f"{path} is not an Optuna database (not an SQLite file)") from None
        if "studies" not in tables or "trials" not in tables:
            raise StorageError(f"{path} is not an Optuna database (an SQLite file without Optuna's tables)")
    elif url.startswith("sqlite:///"):
        path.parent.mkdir(parents=True, exist_ok=True)


def open_storage(url: str | None, runs_dir: Path = DEFAULT_RUNS_DIR) -> tuple[RDBStorage, str]:
    """Open (and create if needed) the storage and return it with its URL as shown to users (no password);
    StorageError with one line when that is impossible."""
    url = url or default_url(runs_dir)
    if "://" not in url:
        raise StorageError(f"--storage '{url}' is not a database URL (e.g. sqlite:///runs/tuner.db, "
                           "postgresql+psycopg://user:pw@127.0.0.1/db)")
    _check_sqlite_file(url)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            storage = RDBStorage(url, engine_kwargs={"pool_pre_ping": True} if not url.startswith("sqlite") else {})
    except ModuleNotFoundError as exc:
        raise StorageError(f"cannot open {url}: the database driver '{exc.name}' is not installed "
                           "(pip install 'tuner[postgres]')") from None
    except Exception as exc:  # SQLAlchemy reports connection and URL problems with many classes
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise StorageError(f"cannot open storage {shown_url(url)}: {first}") from None
    if url.startswith("sqlite"):
        _tune_sqlite(storage)
    return storage, shown_url(url)


def _tune_sqlite(storage: RDBStorage) -> None:
    """Write-ahead log and normal sync: a trial writes a dozen attrs, and each would otherwise wait for fsync."""

    def pragmas(connection, _record) -> None:  # noqa: ANN001 - SQLAlchemy's listener signature
        cursor = connection.cursor()
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    sqlalchemy.event.listen(storage.engine, "connect", pragmas)
    with storage.engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA journal_mode=WAL")


def artifact_store(runs_dir: Path) -> FileSystemArtifactStore:
    """Kernel sources and compile logs, next to the runs (optuna-dashboard reads them with --artifact-dir)."""
    path = runs_dir / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return FileSystemArtifactStore(str(path))


@dataclass(frozen=True)
class StudyInfo:
    """A study that belongs to a run."""

    name: str
    variant: str
    attrs: dict[str, Any]


def run_studies(storage: RDBStorage, run: str | None = None) -> dict[str, list[StudyInfo]]:
    """Studies in the storage grouped by run (only `run` when given), in creation order."""
    runs: dict[str, list[StudyInfo]] = {}
    for summary in optuna.get_all_study_summaries(storage, include_best_trial=False):
        attrs = summary.user_attrs
        run_id = attrs.get("run_id")
        if run_id is None or (run is not None and run_id != run):
            continue
        runs.setdefault(run_id, []).append(StudyInfo(summary.study_name, str(attrs.get("variant", "")), attrs))
    return runs
