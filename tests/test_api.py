"""The public Python API: what `tuner.__all__` names works as a user calls it, and `import tuner` stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tuner

ADD_KERNEL = Path(__file__).resolve().parent / "sim" / "kernels" / "add_custom.cpp"


def test_every_public_name_resolves_and_nothing_else_does():
    for name in tuner.__all__:
        assert getattr(tuner, name) is not None, name
    assert set(tuner.__all__) <= set(dir(tuner))
    with pytest.raises(AttributeError, match="no attribute 'loop'"):
        tuner.loop  # noqa: B018 - the attribute access is the test


def test_import_tuner_loads_neither_torch_nor_optuna_nor_the_search():
    code = "import sys, tuner; print(sorted(m for m in ('torch', 'optuna', 'tuner.search', 'tuner.sim') " \
           "if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_the_bases_are_the_ones_the_tuner_builds_on():
    from tuner.backends.sim import SimBackend
    from tuner.mutate.rules import RuleMutator
    from tuner.ops import get_operator

    assert issubclass(SimBackend, tuner.Backend) and issubclass(RuleMutator, tuner.Mutator)
    assert isinstance(get_operator("softmax"), tuner.Operator)


def test_a_bad_config_is_one_usage_error_when_it_is_made():
    with pytest.raises(tuner.UsageError, match="--budget must be at least 1"):
        tuner.RunConfig("softmax", budget=0)
    with pytest.raises(tuner.UsageError, match="unknown sampler"):
        tuner.RunConfig("softmax", sampler="annealing")
    with pytest.raises(tuner.UsageError):
        tuner.RunConfig("no-such-operator")
    assert tuner.RunConfig("softmax", soc="ascend910b2").soc == "Ascend910B2"


def test_optimize_a_run_config(tmp_path):
    summary = tuner.optimize(tuner.RunConfig("softmax", shape=(4, 64), budget=2, runs_dir=tmp_path, rewrites=False))
    assert isinstance(summary, tuner.RunSummary)
    assert summary.trials == 2 and summary.best is not None
    assert summary.time_source == "simulated, Ascend910B2 model"


def test_simulate_a_kernel():
    n = 8 * 2048
    x, y = np.arange(n, dtype=np.float16), np.ones(n, dtype=np.float16)
    result = tuner.simulate(ADD_KERNEL, "add_custom", 2, [tuner.GmIn(x, "x"), tuner.GmIn(y, "y"),
                                                          tuner.GmOut(np.dtype(np.float16), (n,), "z"),
                                                          tuner.Scalar("u32", n), tuner.Scalar("u32", 8)])
    assert isinstance(result, tuner.SimResult) and not result.faults
    np.testing.assert_array_equal(result.outputs[0], x + y)
