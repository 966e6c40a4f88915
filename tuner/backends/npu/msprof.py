"""Reading msprof op's PipeUtilization.csv into the simulator's report schema.

`msprof op` writes one folder of CSV files per launch; PipeUtilization.csv holds, per block, the vector core's
time and how much of it each pipe was busy. The simulator's JSON report uses the same quantities under snake
case names (docs/simulator.md, "The report"), so a measured launch and a simulated one can be read, ranked and
printed by the same code. The mapping, by header name (column order never matters):

| report key | msprof column (current) | older spellings accepted |
|---|---|---|
| `task_duration_us` (top level) | `Task Duration(us)` | `Task Duration`, `task_duration(us)` |
| `block_dim` (top level) | `Block Dim` | `block_dim` |
| `blocks[].block_id` | `block_id` | `Block Id` |
| `blocks[].sub_block_id` | `sub_block_id` | `Sub Block Id` |
| `blocks[].aiv_time_us` | `aiv_time(us)` | `aiv_time`, `aicore_time(us)` |
| `blocks[].aiv_<pipe>_time_us` | `aiv_<pipe>_time(us)` | `aiv_<pipe>_time`, `<pipe>_time(us)` |
| `blocks[].aiv_<pipe>_ratio` | `aiv_<pipe>_ratio` | `<pipe>_ratio`, either with `(%)` |

for `<pipe>` in vec, scalar, mte2, mte3. `Task Duration(us)` and `Block Dim` belong to OpBasicInfo.csv (and to
the one-row-per-launch op_summary/kernel_details files); they are read when a file has them. Header matching
ignores case, surrounding spaces, a byte-order mark and the spelling of separators (`Block Dim` = `block_dim`).
A unit suffix scales the value: `(us)` as is, `(ms)` x1000, `(ns)` /1000, and no unit means microseconds; a
ratio given in `(%)`, or as a cell ending in `%`, is divided by 100 so every ratio is a 0-1 fraction, as msprof
and the simulator report them.

When a file has a pipe's time but not its ratio (or the reverse) and the block's `aiv_time_us` is known, the
other is derived (ratio = pipe time / aiv time) and named under `derived`. When there is no `Block Dim`
column, `block_dim` is the number of distinct block ids (also named under `derived`).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Mapping

PIPES = ("vec", "scalar", "mte2", "mte3")


class MsprofParseError(ValueError):
    """The text is not a PipeUtilization-style CSV this module can read; `reason` is one line saying why."""

    def __init__(self, reason: str) -> None:
        self.reason = " ".join(reason.split())
        super().__init__(self.reason)


# report key -> accepted normalised header bases, in priority order (the first present wins).
_TOP: dict[str, tuple[str, ...]] = {
    "task_duration_us": ("task_duration",),
    "block_dim": ("block_dim",),
}
_BLOCK: dict[str, tuple[str, ...]] = {
    "block_id": ("block_id",),
    "sub_block_id": ("sub_block_id",),
    "aiv_time_us": ("aiv_time", "aicore_time"),
}
for _p in PIPES:
    _BLOCK[f"aiv_{_p}_time_us"] = (f"aiv_{_p}_time", f"{_p}_time")
    _BLOCK[f"aiv_{_p}_ratio"] = (f"aiv_{_p}_ratio", f"{_p}_ratio")

# The current msprof spelling of each key, used to name what a file lacks.
MSPROF_COLUMNS: dict[str, str] = {
    "task_duration_us": "Task Duration(us)",
    "block_dim": "Block Dim",
    "block_id": "block_id",
    "sub_block_id": "sub_block_id",
    "aiv_time_us": "aiv_time(us)",
    **{f"aiv_{p}_time_us": f"aiv_{p}_time(us)" for p in PIPES},
    **{f"aiv_{p}_ratio": f"aiv_{p}_ratio" for p in PIPES},
}
# What a PipeUtilization.csv of a vector kernel is expected to have; absences are listed under missing_columns.
EXPECTED_BLOCK_KEYS = ("block_id", "aiv_time_us",
                       *(f"aiv_{p}_time_us" for p in PIPES), *(f"aiv_{p}_ratio" for p in PIPES))
_TEXT_KEYS = frozenset({"sub_block_id"})
_INT_KEYS = frozenset({"block_dim"})
_EMPTY_CELLS = frozenset({"", "n/a", "na", "-", "--", "null", "none"})
_UNIT = re.compile(r"^(?P<base>.*?)\s*\(\s*(?P<unit>[^()]*)\s*\)\s*$")
_TIME_SCALE = {"": 1.0, "us": 1.0, "μs": 1.0, "µs": 1.0, "ms": 1000.0, "ns": 0.001, "s": 1e6}


def _normalise(header: str) -> tuple[str, str]:
    """(base, unit) of a header cell: `Task Duration(us)` -> (`task_duration`, `us`)."""
    text = header.replace("\ufeff", "").strip().lower()
    unit = ""
    m = _UNIT.match(text)
    if m:
        text, unit = m["base"], m["unit"].strip()
    return re.sub(r"[\s_\-]+", "_", text).strip("_"), unit


def _lookup() -> dict[str, tuple[str, int]]:
    table: dict[str, tuple[str, int]] = {}
    for keys in (_TOP, _BLOCK):
        for key, bases in keys.items():
            for rank, base in enumerate(bases):
                table[base] = (key, rank)
    return table


_LOOKUP = _lookup()


def _scale(key: str, unit: str, header: str) -> float:
    if key.endswith("_ratio"):
        if unit in ("", "ratio"):
            return 1.0
        if unit == "%":
            return 0.01
    elif key.endswith("_us"):
        if unit in _TIME_SCALE:
            return _TIME_SCALE[unit]
    elif unit == "":
        return 1.0
    raise MsprofParseError(f"column '{header}': unit '{unit}' is not one this parser knows for {key}")


def _cell(key: str, raw: str, scale: float, where: str) -> float | int | str | None:
    text = raw.replace("\ufeff", "").strip()
    if text.lower() in _EMPTY_CELLS:
        return None
    if key in _TEXT_KEYS:
        return text
    percent = text.endswith("%")
    number = text[:-1].strip() if percent else text
    try:
        value = float(number)
    except ValueError:
        if key == "block_id":
            return text
        raise MsprofParseError(f"{where}: '{text}' is not a number") from None
    if not math.isfinite(value):
        raise MsprofParseError(f"{where}: '{text}' is not a finite number")
    if percent and not key.endswith("_ratio"):
        raise MsprofParseError(f"{where}: '{text}' is a percentage, expected a number")
    value = value / 100.0 if percent else value * scale
    if key in _INT_KEYS or key == "block_id":
        return int(value) if value == int(value) else value
    return value


def _read_rows(text: str) -> tuple[list[str], list[list[str]]]:
    if not isinstance(text, str):
        raise MsprofParseError(f"expected the CSV's text, got {type(text).__name__}")
    text = text.replace("\ufeff", "")  # a byte-order mark (Excel and Windows tools write one)
    if not text.strip():
        raise MsprofParseError("empty file")
    if "\x00" in text:
        raise MsprofParseError("not a CSV: the file holds binary data (NUL bytes)")
    try:
        rows = [r for r in csv.reader(io.StringIO(text, newline="")) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise MsprofParseError(f"not a CSV: {exc}") from None
    header, data = rows[0], rows[1:]
    return header, data


def _map_columns(header: list[str]) -> tuple[dict[int, tuple[str, float]], list[str]]:
    """Column index -> (report key, scale) for the columns used, and the header names not used."""
    best: dict[str, tuple[int, int, float]] = {}  # key -> (rank, index, scale)
    unknown: list[str] = []
    for index, name in enumerate(header):
        base, unit = _normalise(name)
        if not base:
            continue  # a trailing comma's empty header
        hit = _LOOKUP.get(base)
        if hit is None:
            unknown.append(name.replace("\ufeff", "").strip())
            continue
        key, rank = hit
        scale = _scale(key, unit, name.strip())
        if key not in best or rank < best[key][0]:
            if key in best:
                unknown.append(header[best[key][1]].replace("\ufeff", "").strip())
            best[key] = (rank, index, scale)
        else:
            unknown.append(name.replace("\ufeff", "").strip())
    return {index: (key, scale) for key, (_, index, scale) in best.items()}, unknown


def parse_pipe_utilization(text: str) -> dict:
    """Parse PipeUtilization.csv text into the simulator report's shape.

    Returns `{"blocks": [...], "layout": "per_block" | "summary", "unknown_columns": [...],
    "missing_columns": [...], "derived": [...]}` plus `task_duration_us` / `block_dim` when known. Each block
    holds the keys its row had (absent cells and columns are absent keys, never zeros). `layout` is `summary`
    for a single row with no `block_id` (one line per launch, as op_summary writes), `per_block` otherwise.
    `unknown_columns` are the header names not mapped (ignored, in file order; a lower-priority spelling of a
    column that is also present counts as unknown); `missing_columns` are the expected PipeUtilization columns,
    in msprof's current spelling, that the file lacks and that could not be derived.

    Raises MsprofParseError (one line) for an empty file, a non-CSV file, a header with none of the known
    columns, no data rows, a row wider than the header, a non-numeric value in a numeric column, or rows that
    disagree on a per-launch value (Task Duration, Block Dim: several launches in one file).
    """
    header, data = _read_rows(text)
    columns, unknown = _map_columns(header)
    if not any((key in _BLOCK and key not in ("block_id", "sub_block_id")) or key == "task_duration_us"
               for key, _ in columns.values()):
        shown = ", ".join(h.strip() for h in header[:4]) + (", ..." if len(header) > 4 else "")
        raise MsprofParseError(f"not a PipeUtilization CSV: no known column in the header ({shown})")
    if not data:
        raise MsprofParseError("no data rows after the header")

    top: dict[str, float | int] = {}
    blocks: list[dict] = []
    for line, row in enumerate(data, start=2):
        if len(row) > len(header) and any(c.strip() for c in row[len(header):]):
            raise MsprofParseError(f"row {line} has {len(row)} fields, the header {len(header)}")
        block: dict = {}
        for index, (key, scale) in columns.items():
            if index >= len(row):
                continue
            value = _cell(key, row[index], scale, f"row {line}, column '{header[index].strip()}'")
            if value is None:
                continue
            if key in _TOP:
                if key in top and not math.isclose(top[key], value, rel_tol=1e-9):
                    raise MsprofParseError(f"rows disagree on '{header[index].strip()}' ({top[key]} vs {value} at "
                                           f"row {line}): several launches in one file?")
                top[key] = value
            else:
                block[key] = value
        blocks.append(block)

    has_ids = any("block_id" in b for b in blocks)
    layout = "summary" if len(blocks) == 1 and not has_ids else "per_block"
    derived: list[str] = []
    for block in blocks:
        total = block.get("aiv_time_us")
        for p in PIPES:
            t_key, r_key = f"aiv_{p}_time_us", f"aiv_{p}_ratio"
            if total is None:
                continue
            if r_key not in block and t_key in block and total > 0:
                block[r_key] = block[t_key] / total
                derived.append(r_key)
            elif t_key not in block and r_key in block:
                block[t_key] = block[r_key] * total
                derived.append(t_key)
    if "block_dim" not in top and has_ids and layout == "per_block":
        top["block_dim"] = len({b["block_id"] for b in blocks if "block_id" in b})
        derived.append("block_dim")

    present = {key for key, _ in columns.values()} | set(derived)
    expected = [k for k in EXPECTED_BLOCK_KEYS if not (layout == "summary" and k == "block_id")]
    report: dict = dict(top)
    report.update(
        blocks=blocks,
        layout=layout,
        unknown_columns=unknown,
        missing_columns=[MSPROF_COLUMNS[k] for k in expected if k not in present],
        derived=sorted(set(derived), key=derived.index),
    )
    return report


def profile_from_report(report: Mapping) -> dict[str, float]:
    """The pipe ratios of the slowest block (largest `aiv_time_us`), as SimBackend.profile computes them.

    Keys vec, scalar, mte2, mte3; a ratio the block lacks is 0.0 and no blocks give all zeros, as the simulator
    backend does, so a measured and a simulated Profile compare key for key.
    """
    blocks = list(report.get("blocks") or [])
    slowest = max(blocks, key=lambda b: float(b.get("aiv_time_us", 0.0))) if blocks else {}
    return {p: float(slowest.get(f"aiv_{p}_ratio", 0.0)) for p in PIPES}
