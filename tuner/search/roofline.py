"""The roofline of an operator on a SoC: no kernel can beat its compulsory traffic or its vector work."""

from __future__ import annotations

from dataclasses import dataclass

from tuner.data.costs import load_vector_costs
from tuner.data.socs import Soc
from tuner.ops.base import Operator

REPEAT_BYTES = 256  # one vector repeat covers 256 bytes (8 data blocks of 32 B)
COMPUTE_BYTES = {"float": 4, "half": 2, "bfloat16": 2}


@dataclass(frozen=True)
class Roofline:
    """Lower bounds on one launch (µs): moving the compulsory bytes at GM bandwidth, and the vector work at
    the cost table's cycles per repeat on every vector core."""

    memory_us: float
    vector_us: float

    @property
    def bound_us(self) -> float:
        return max(self.memory_us, self.vector_us)


def roofline(op: Operator, shape: tuple[int, ...], dtype: str, soc: Soc) -> Roofline:
    memory_us = op.compulsory_bytes(shape, dtype) / (soc.gm_bandwidth_gbps.value * 1e3)
    costs = load_vector_costs(soc.vector_costs)
    cycles = 0.0
    for (instr_class, compute), elements in op.vector_work(shape, dtype).items():
        per_repeat = costs[(instr_class, compute)][0]
        cycles += elements * COMPUTE_BYTES[compute] / REPEAT_BYTES * per_repeat
    vector_us = cycles / (soc.vector_cores.value * soc.clock_mhz.value)
    return Roofline(memory_us, vector_us)
