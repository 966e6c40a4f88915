"""What the tuning benchmarks start from: a temporary directory with a fresh kernel cache, the simulator's
runtime library already built (outside the timing, as it is once per machine)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def fresh_tuner(soc: str = "Ascend910B2") -> Iterator[Path]:
    """Yield a temporary directory for runs; TUNER_CACHE_DIR points inside it while the block runs."""
    with tempfile.TemporaryDirectory(prefix="tuner-bench-") as tmp:
        os.environ["TUNER_CACHE_DIR"] = str(Path(tmp) / "cache")
        import optuna

        from tuner.data.socs import get_soc
        from tuner.sim.build import runtime_dir, soc_dir

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        runtime_dir()
        soc_dir(get_soc(soc))
        yield Path(tmp)
