"""Cost tables of the performance model: copy bandwidth curves, vector instruction costs, fixed overheads.

Vector costs are per 256-byte repeat: an instruction of `n` repeats costs
`issue_cycles + n * cycles_per_repeat` on the vector pipe, `issue_cycles` being its fixed part (on A2, a
one-repeat instruction's measured total less one repeat). Tables are read from `COSTS_DIR`, once per file.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import yaml

from tuner.data.socs import CONFIDENCES, SocDataError, check_document, check_keys, parse_quantity

COSTS_DIR = Path(__file__).with_name("costs")
COPY_COLUMNS = ("curve", "direction", "bytes", "gbps", "role", "source", "confidence")
# fit: the simulator's curve passes through the point; held_out: kept out of the curve to validate it
COPY_ROLES = frozenset({"fit", "held_out"})
VECTOR_COLUMNS = (
    "family", "instr_class", "dtype", "cycles_per_repeat", "issue_cycles", "source", "confidence"
)
DIRECTIONS = frozenset({"gm_to_ub", "ub_to_gm", "ub_to_ub"})
INSTR_CLASSES = frozenset(
    {"unary_simple", "binary", "exp_ln_sqrt", "div", "reduce_repeat", "reduce_block", "copy_ub", "reduce_sum_repeat"}
)
DTYPES = frozenset({"half", "float", "int32", "int16", "bfloat16"})
# In the order of the simulator's SocConfig fields (tuner/sim/include/tuner_sim/rt.h), which codegen fills.
OVERHEAD_KEYS = (
    "head_us_base", "head_us_per_block", "scalar_cycles_per_api_call", "mask_setup_cycles", "get_value_cycles",
    "set_value_cycles", "flag_cycles", "barrier_cycles", "sync_all_us", "gm_align_512_factor", "l2_hit_speedup",
    "dma_issue_cycles", "dma_port_gbps", "gm_misalign_span_bytes", "gm_same_address_cycles",
    "gm_bypass_align_512_factor", "ub_bank_line_bytes", "ub_bank_groups", "ub_bank_rows", "bank_read_conflict_cycles",
    "bank_read_write_conflict_cycles",
    "vector_startup_cycles", "scalar_block_cycles", "dcache_hit_cycles", "dcache_miss_cycles", "dcache_bytes",
    "dcache_line_bytes", "dcache_ways",
)


def _number(text: str, where: str, kind: type[int] | type[float] = float, allow_zero: bool = False) -> float:
    """A positive number from a CSV cell (or a non-negative one, with `allow_zero`)."""
    try:
        value = kind(text)
    except ValueError:
        expected = "an integer" if kind is int else "a number"
        raise SocDataError(f"{where}: {text!r} is not {expected}") from None
    if value < 0 or (value == 0 and not allow_zero):
        raise SocDataError(f"{where}: {value} must be {'non-negative' if allow_zero else 'positive'}")
    return value


def _choice(text: str, allowed: frozenset[str], where: str) -> str:
    """A CSV cell that must be one of a fixed set of names."""
    if text not in allowed:
        raise SocDataError(f"{where}: {text!r} is not one of {', '.join(sorted(allowed))}")
    return text


def _rows(path: Path, columns: tuple[str, ...]) -> list[tuple[str, dict[str, str]]]:
    """Rows of a cost CSV, each tagged `file:line`, with every cell filled and a valid confidence."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != columns:
            raise SocDataError(f"{path.name}: columns {reader.fieldnames}, expected {list(columns)}")
        rows = [(f"{path.name}:{reader.line_num}", row) for row in reader]
    for where, row in rows:
        for column in columns:
            if not (row.get(column) or "").strip():
                raise SocDataError(f"{where}: {column}: empty")
        _choice(row["confidence"], CONFIDENCES, f"{where}: confidence")
    return rows


@cache
def _copy_curves(path: Path) -> dict[tuple[str, str], list[tuple[int, float, str]]]:
    """All copy points by (curve, direction): (bytes, GB/s, role), sorted by bytes, no size listed twice."""
    curves: dict[tuple[str, str], list[tuple[int, float, str]]] = {}
    for where, row in _rows(path, COPY_COLUMNS):
        key = (row["curve"], _choice(row["direction"], DIRECTIONS, f"{where}: direction"))
        size = int(_number(row["bytes"], f"{where}: bytes", int))
        role = _choice(row["role"], COPY_ROLES, f"{where}: role")
        curves.setdefault(key, []).append((size, _number(row["gbps"], f"{where}: gbps"), role))
    for (curve, direction), points in curves.items():
        points.sort()
        sizes = [size for size, _, _ in points]
        if len(set(sizes)) != len(sizes):
            raise SocDataError(f"{path.name}: {curve}/{direction}: a size is listed twice")
        if not any(role == "fit" for _, _, role in points):
            raise SocDataError(f"{path.name}: {curve}/{direction}: no fit point")
    return curves


def load_copy_points(curve: str, direction: str) -> list[tuple[int, float, str]]:
    """Every measured or derived (bytes per copy, GB/s, role) point of one copy path, sorted by bytes."""
    curves = _copy_curves(COSTS_DIR / "copy_bandwidth.csv")
    if (curve, direction) not in curves:
        known = ", ".join(f"{c}/{d}" for c, d in sorted(curves))
        raise SocDataError(f"copy_bandwidth.csv: no curve {curve}/{direction}; known: {known}")
    return list(curves[(curve, direction)])


def load_copy_curve(curve: str, direction: str) -> list[tuple[int, float]]:
    """The (bytes per copy, GB/s) points the simulator's curve passes through: the fit ones."""
    return [(size, gbps) for size, gbps, role in load_copy_points(curve, direction) if role == "fit"]


@cache
def _vector_costs(path: Path) -> dict[str, dict[tuple[str, str], tuple[float, float]]]:
    """All vector costs by family, then (instr_class, dtype), each listed once."""
    families: dict[str, dict[tuple[str, str], tuple[float, float]]] = {}
    for where, row in _rows(path, VECTOR_COLUMNS):
        key = (
            _choice(row["instr_class"], INSTR_CLASSES, f"{where}: instr_class"),
            _choice(row["dtype"], DTYPES, f"{where}: dtype"),
        )
        table = families.setdefault(row["family"], {})
        if key in table:
            raise SocDataError(f"{where}: {row['family']}/{key[0]}/{key[1]} is listed twice")
        table[key] = (
            _number(row["cycles_per_repeat"], f"{where}: cycles_per_repeat"),
            _number(row["issue_cycles"], f"{where}: issue_cycles", allow_zero=True),
        )
    return families


def load_vector_costs(family: str) -> dict[tuple[str, str], tuple[float, float]]:
    """(instr_class, dtype) -> (cycles per 256-B repeat, fixed issue cycles) for one cost family."""
    families = _vector_costs(COSTS_DIR / "vector_costs.csv")
    if family not in families:
        raise SocDataError(f"vector_costs.csv: no family {family!r}; known: {', '.join(sorted(families))}")
    return dict(families[family])


@cache
def _overheads(path: Path) -> dict[str, dict[str, float]]:
    """All fixed overheads by family, each family with exactly the overhead keys."""
    sections = check_document(yaml.safe_load(path.read_text(encoding="utf-8")), "families", path.name)
    families: dict[str, dict[str, float]] = {}
    for family, raw in sections.items():
        where = f"{path.name}: {family}"
        raw = check_keys(raw, frozenset(OVERHEAD_KEYS), where)
        families[str(family)] = {key: float(parse_quantity(raw[key], f"{where}.{key}").value) for key in raw}
    return families


def load_overheads(family: str) -> dict[str, float]:
    """Fixed costs (head, scalar issue, sync, GM alignment) of one cost family, keyed as in the YAML."""
    families = _overheads(COSTS_DIR / "overheads.yaml")
    if family not in families:
        raise SocDataError(f"overheads.yaml: no family {family!r}; known: {', '.join(sorted(families))}")
    return dict(families[family])
