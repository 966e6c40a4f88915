"""Recordings for tests that need some kernel results but not a compiler (tuner/backends/replay.py).

`replayed(soc)` gives a backend that answers from the test module's recording,
tests/data/replays/<module path>-<soc>.npz, as the simulator of `soc`; `replay_env(soc)` gives the environment
of a `tuner` child process (run with `--backend sim`) whose simulator does the same. Either marks its test
`replay`. With TUNER_RECORD_TESTS=1 both run
the real simulator instead and record what it answers into that file, so every recording is made again by:

    rm -f tests/data/replays/*.npz && TUNER_RECORD_TESTS=1 python -m pytest -q -p no:cacheprovider -m replay

(a recording session builds in a fresh cache, so that no build the cache remembers is missing from it).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tuner.backends.base import Backend

RECORD_TESTS = os.environ.get("TUNER_RECORD_TESTS") == "1"
REPLAYS = Path(__file__).parent / "data" / "replays"
# Imports of the tuner are inside the fixtures: a test session that uses none of them does not pay for them.
SOC = "Ascend910B2"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "replay: answered from a recording in tests/data/replays "
                                       "(TUNER_RECORD_TESTS=1 pytest -m replay records them again)")
    if RECORD_TESTS:
        os.environ["TUNER_CACHE_DIR"] = tempfile.mkdtemp(prefix="tuner-record-cache-")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if {"replayed", "replay_env"} & set(getattr(item, "fixturenames", ())):
            item.add_marker("replay")


def recording_path(module: str, soc: str) -> Path:
    """The recording of a test module (`tests.search.test_loop`) on `soc`."""
    name = module.removeprefix("tests.").replace(".", "-")
    return REPLAYS / f"{name}-{soc}.npz"


def _recording(request: pytest.FixtureRequest, soc: str) -> Path:
    path = recording_path(request.module.__name__, soc)
    if not RECORD_TESTS and not path.exists():
        pytest.fail(f"{path} does not exist; record it: TUNER_RECORD_TESTS=1 pytest -m replay {request.path}")
    return path


@pytest.fixture(scope="module")
def replayed(request: pytest.FixtureRequest) -> Iterator[Callable[[str], Backend]]:
    """`replayed(soc)`: the module's recording as a backend (recording the simulator with TUNER_RECORD_TESTS=1)."""
    from tuner.backends import SimBackend
    from tuner.backends.replay import RecordingBackend, ReplayBackend

    made: list[Backend] = []

    def make(soc: str = SOC) -> Backend:
        path = _recording(request, soc)
        backend = RecordingBackend(SimBackend(soc), path) if RECORD_TESTS else ReplayBackend(path)
        made.append(backend)
        return backend

    yield make
    for backend in made:
        backend.close()


@pytest.fixture
def replay_env(request: pytest.FixtureRequest) -> Callable[[str], dict[str, str]]:
    """`replay_env(soc)`: the environment of a `tuner ... --backend sim` child whose simulator answers from the
    module's recording (or is recorded into it, with TUNER_RECORD_TESTS=1)."""
    from tuner.backends import RECORD_ENV, REPLAY_ENV

    def make(soc: str = SOC) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in (RECORD_ENV, REPLAY_ENV)}
        return {**env, RECORD_ENV if RECORD_TESTS else REPLAY_ENV: str(_recording(request, soc))}

    return make
