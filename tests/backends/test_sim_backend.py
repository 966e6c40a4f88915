"""The simulator behind the Backend interface, beyond the contract every backend meets (test_contract.py):
scalar arguments, a time that grows with the data, a misaligned copy reported as a fault."""

from pathlib import Path

import numpy as np

from tuner.backends import SimBackend
from tuner.backends.args import GmIn, GmOut, Scalar

ADD = Path(__file__).resolve().parents[1] / "sim" / "kernels" / "add_custom.cpp"


def _args(n: int, rng: np.random.Generator):
    x = rng.standard_normal(n).astype(np.float16)
    y = rng.standard_normal(n).astype(np.float16)
    out = GmOut(np.dtype(np.float16), (n,), "z")
    return x, y, [GmIn(x, "x"), GmIn(y, "y"), out, Scalar("u32", n), Scalar("u32", 4)]


def test_build_run_profile_add() -> None:
    backend = SimBackend("Ascend910B1")
    artifact = backend.build(ADD, "add_custom")
    rng = np.random.default_rng(0)
    x, y, args = _args(8 * 1024, rng)
    run = backend.run(artifact, args, 8)
    assert run.ok
    np.testing.assert_array_equal(run.outputs[0], x + y)
    prof = backend.profile(artifact, args, 8)
    assert prof.source == "simulated, Ascend910B1 model"
    assert prof.time_us > 0
    assert prof.gm_to_ub_bytes == 2 * x.nbytes and prof.ub_to_gm_bytes == x.nbytes
    assert set(prof.pipe_ratios) == {"vec", "scalar", "mte2", "mte3"}
    assert 0 < prof.pipe_ratios["mte2"] <= 1


def test_more_data_takes_longer() -> None:
    backend = SimBackend("Ascend910B1")
    artifact = backend.build(ADD, "add_custom")
    rng = np.random.default_rng(1)
    small = backend.profile(artifact, _args(8 * 1024, rng)[2], 8).time_us
    large = backend.profile(artifact, _args(8 * 16384, rng)[2], 8).time_us
    assert large > small


def test_fault_comes_back_in_the_result() -> None:
    backend = SimBackend("Ascend910B1")
    artifact = backend.build(ADD, "add_custom")
    n = 8 * 1000  # tiles of 1000/4/2 = 125 halves: 250 bytes, not a multiple of 32
    args = _args(n, np.random.default_rng(2))[2]
    run = backend.run(artifact, args, 8)
    assert not run.ok
    assert run.fault_classes == ["misaligned"]
