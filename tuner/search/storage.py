"""Where runs live: the Optuna storage (SQLite by default, any SQLAlchemy URL), studies of a run, artifacts."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import warnings
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy
import sqlalchemy.exc
from optuna.artifacts import FileSystemArtifactStore
from optuna.storages import RDBStorage

from tuner.errors import TunerError, UsageError
from tuner.filelock import file_lock

DEFAULT_RUNS_DIR = Path("runs")
SQLITE_HEADER = b"SQLite format 3\x00"
MIN_FREE_BYTES = 1 << 20  # below this on the database's disk, a run would fail at its first trials


class StorageError(UsageError):
    """Raised when the storage cannot be opened: unreachable server, bad URL, a file that is not Optuna's, a
    damaged one, one in a directory the tuner cannot write."""


class StorageFailure(TunerError):
    """Raised when a storage that opened fails in the middle of a command: disk full, made read-only, damaged."""


def default_url(runs_dir: Path) -> str:
    return f"sqlite:///{runs_dir / 'tuner.db'}"


def shown_url(url: str) -> str:
    """The URL as printed: any password replaced by ***."""
    try:
        return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:
        return url


def check_writable_dir(path: Path, what: str) -> None:
    """Create `path` if needed and make sure files can be made in it; StorageError naming `what` otherwise."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise StorageError(f"{what}: cannot write in {path} ({exc.strerror or exc})") from None


def _sqlite_path(url: str) -> Path | None:
    """The database file of an SQLite URL (None for another dialect or an in-memory database)."""
    try:
        parsed = sqlalchemy.engine.make_url(url)
    except sqlalchemy.exc.ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def _in_memory(url: str) -> bool:
    try:
        parsed = sqlalchemy.engine.make_url(url)
    except sqlalchemy.exc.ArgumentError:
        return False
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


def _check_sqlite_file(path: Path) -> None:
    """Refuse, before SQLAlchemy touches it, an SQLite file that the tuner could not use or would damage further:
    a directory, a file that is not SQLite or not Optuna's, a damaged one, one in a directory it cannot write."""
    if path.is_dir():
        raise StorageError(f"{path} is a directory, not an Optuna database")
    check_writable_dir(path.parent, f"storage {path}")
    stat = os.statvfs(path.parent)
    if stat.f_bavail * stat.f_frsize < MIN_FREE_BYTES:
        raise StorageError(f"storage {path}: its disk is full ({stat.f_bavail * stat.f_frsize // 1024} KiB free); "
                           "free some space and re-run the command: every finished trial is kept")
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with open(path, "r+b") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StorageError(f"storage {path}: cannot open it for writing ({exc.strerror or exc})") from None
    if header != SQLITE_HEADER:
        raise StorageError(f"{path} is not an Optuna database (not an SQLite file)")
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(1)")]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        if not any(damage in str(exc) for damage in ("malformed", "not a database")):
            raise StorageError(f"storage {path}: cannot read it ({exc})") from None
        problems = [str(exc)]
    if problems != ["ok"]:
        detail = " ".join(" ".join(problems).replace("*** in database main ***", "").split())[:200]
        raise StorageError(f"{path} is damaged ({detail}); nothing was written to it: restore it from a backup, or "
                           f"salvage its trials with `sqlite3 {path} .recover | sqlite3 recovered.db` and pass "
                           "--storage sqlite:///recovered.db")
    if "studies" not in tables or "trials" not in tables:
        raise StorageError(f"{path} is not an Optuna database (an SQLite file without Optuna's tables)")


def open_storage(url: str | None, runs_dir: Path = DEFAULT_RUNS_DIR) -> tuple[RDBStorage, str]:
    """Open (and create if needed) the storage and return it with its URL as shown to users (no password);
    StorageError with one line when that is impossible."""
    url = url or default_url(runs_dir)
    if "://" not in url:
        raise StorageError(f"--storage '{url}' is not a database URL (e.g. sqlite:///runs/tuner.db, "
                           "postgresql+psycopg://user:pw@127.0.0.1/db)")
    if _in_memory(url):
        raise StorageError(f"--storage '{url}' is an in-memory SQLite database: every trial would be lost when the "
                           "command ends; name a file (sqlite:///runs/tuner.db)")
    path = _sqlite_path(url)
    if path is not None:
        _check_sqlite_file(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            storage = RDBStorage(url, engine_kwargs={"pool_pre_ping": True} if not url.startswith("sqlite") else {})
        if url.startswith("sqlite"):
            _tune_sqlite(storage)
    except ModuleNotFoundError as exc:
        raise StorageError(f"cannot open {url}: the database driver '{exc.name}' is not installed "
                           "(pip install 'tuner[postgres]')") from None
    except Exception as exc:  # SQLAlchemy reports connection and URL problems with many classes
        raise StorageError(f"cannot open storage {shown_url(url)}: {_first_line(_root_cause(exc))}") from None
    return storage, shown_url(url)


def _root_cause(exc: BaseException) -> BaseException:
    """The database driver's own error under Optuna's and SQLAlchemy's wrappers."""
    while True:
        if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.orig is not None:
            return exc.orig
        if exc.__cause__ is None:
            return exc
        exc = exc.__cause__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


_HINTS = (
    (("full",), "free some space there and re-run the command: it resumes, every finished trial is kept"),
    (("readonly", "unable to open"), "make the storage's directory writable and re-run the command: it resumes"),
    (("malformed", "not a database"), "the database is damaged: restore it from a backup, or salvage it with "
                                      "sqlite3's .recover"),
    (("locked",), "another process holds the database; re-run the command: it resumes"),
)


def storage_failure(exc: BaseException) -> StorageFailure | None:
    """The one line for a storage that failed in the middle of a command (disk full, read-only, damaged,
    unreachable), or None when `exc` is not a storage failure."""
    if not isinstance(exc, optuna.exceptions.StorageInternalError | sqlalchemy.exc.SQLAlchemyError):
        return None
    cause = _first_line(_root_cause(exc))
    hint = next((text for keys, text in _HINTS if any(key in cause.lower() for key in keys)),
                "re-run the command once that is fixed: it resumes")
    return StorageFailure(f"the storage failed: {cause}; {hint}")


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


def ask_lock(storage: optuna.storages.BaseStorage) -> AbstractContextManager[None]:
    """Held while a worker asks for a trial and decides whether its point is a new candidate. On SQLite it is a
    lock file beside the database, so workers on one machine take turns: SQLite ignores Optuna's SELECT ... FOR
    UPDATE, so two workers could otherwise pop the same queued trial, or both take a point before either marked
    it as running."""
    path = _sqlite_path(storage.url) if isinstance(storage, RDBStorage) else None  # in memory: one process
    return file_lock(path.with_name(path.name + ".asks.lock")) if path is not None else contextlib.nullcontext()


def artifact_store(runs_dir: Path) -> FileSystemArtifactStore:
    """Kernel sources and compile logs, next to the runs (optuna-dashboard reads them with --artifact-dir)."""
    path = runs_dir / "artifacts"
    check_writable_dir(path, "artifacts")
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
