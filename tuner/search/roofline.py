"""The roofline of an operator on a SoC: no kernel can beat its compulsory traffic or its vector work."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tuner.data.costs import load_vector_costs
from tuner.data.socs import Soc
from tuner.ops.base import DTYPE_BYTES, Operator

REPEAT_BYTES = 256  # one vector repeat covers 256 bytes (8 data blocks of 32 B)
COMPUTE_BYTES = {"float": 4, "half": 2, "bfloat16": 2}


@dataclass(frozen=True)
class Roofline:
    """Lower bounds on one launch (µs): moving the compulsory HBM bytes at HBM bandwidth, and the vector work
    at the cost table's cycles per repeat on every vector core."""

    memory_us: float
    vector_us: float

    @property
    def bound_us(self) -> float:
        return max(self.memory_us, self.vector_us)


def roofline(op: Operator, shape: tuple[int, ...], dtype: str, soc: Soc) -> Roofline:
    """The bound for one launch. L2 is write-back (as in the simulator's model): outputs that fit in L2 land
    there during the kernel, so the HBM traffic no kernel can avoid is its inputs plus any output beyond L2."""
    written = sum(math.prod(s) for s in op.output_shapes(shape).values()) * DTYPE_BYTES[dtype]
    read = op.compulsory_bytes(shape, dtype) - written
    hbm_bytes = read + max(0, written - int(soc.l2_bytes.value))
    memory_us = hbm_bytes / (soc.gm_bandwidth_gbps.value * 1e3)
    costs = load_vector_costs(soc.vector_costs)
    cycles = 0.0
    for (instr_class, compute), elements in op.vector_work(shape, dtype).items():
        per_repeat = costs[(instr_class, compute)][0]
        cycles += elements * COMPUTE_BYTES[compute] / REPEAT_BYTES * per_repeat
    vector_us = cycles / (soc.vector_cores.value * soc.clock_mhz.value)
    return Roofline(memory_us, vector_us)
