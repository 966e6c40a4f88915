"""Hardware and cost data, a source for every number: SoC parameters and the performance model's tables."""

from tuner.data.costs import load_copy_curve, load_overheads, load_vector_costs
from tuner.data.socs import Quantity, Soc, SocDataError, UnknownSocError, get_soc, load_socs, soc_names

__all__ = [
    "Quantity",
    "Soc",
    "SocDataError",
    "UnknownSocError",
    "get_soc",
    "load_copy_curve",
    "load_overheads",
    "load_socs",
    "load_vector_costs",
    "soc_names",
]
