"""tuner: make Ascend C operators fast — kernel templates, a search over their knobs, and a CPU simulator of the
Ascend vector core. The Python API is what `__all__` names; everything else is the tuner's own:

    import tuner

    summary = tuner.optimize(tuner.RunConfig("softmax", shape=(64, 512), budget=20))
    print(summary.best_us, summary.time_source)  # e.g. 4.2 "simulated, Ascend910B2 model"

`simulate` runs one kernel on the simulator (its arguments are `GmIn`, `GmOut`, `GmBytes`, `Scalar` and
`Struct`); `Backend`, `Operator` and `Mutator` are the bases a new target, operator or source of rewrites extends.
The names load when first used, so `import tuner` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from tuner.errors import CompileError, ErrorClass, TunerError, UsageError

if TYPE_CHECKING:
    from tuner.backends.args import GmBytes, GmIn, GmOut, Scalar, Struct
    from tuner.backends.base import Backend
    from tuner.mutate.base import Mutator
    from tuner.ops.base import Operator
    from tuner.search.config import RunConfig
    from tuner.search.loop import Interrupted, Progress, optimize
    from tuner.search.report import RunSummary
    from tuner.sim.run import SimResult, simulate

_HOMES = {
    "optimize": "tuner.search.loop", "Progress": "tuner.search.loop", "Interrupted": "tuner.search.loop",
    "RunConfig": "tuner.search.config", "RunSummary": "tuner.search.report",
    "simulate": "tuner.sim.run", "SimResult": "tuner.sim.run",
    **{name: "tuner.backends.args" for name in ("GmIn", "GmOut", "GmBytes", "Scalar", "Struct")},
    "Backend": "tuner.backends.base", "Operator": "tuner.ops.base", "Mutator": "tuner.mutate.base",
}
__all__ = ["Backend", "CompileError", "ErrorClass", "GmBytes", "GmIn", "GmOut", "Interrupted", "Mutator", "Operator",
           "Progress", "RunConfig", "RunSummary", "Scalar", "SimResult", "Struct", "TunerError", "UsageError",
           "optimize", "simulate"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tuner' has no attribute '{name}'")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
