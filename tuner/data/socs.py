"""Typed access to `socs.yaml`: the per-SoC numbers every part of the tuner reads, each with its source."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

DEFAULT_SOCS_PATH = Path(__file__).with_name("socs.yaml")
CONFIDENCES = frozenset({"confirmed", "derived", "unconfirmed", "assumed"})
FAMILIES = frozenset({"A2", "A3", "310P", "950"})
# Quantities the performance model and the roofline depend on; an `unconfirmed` or `assumed` one makes
# every time simulated for that SoC a rougher estimate.
MODEL_FIELDS = ("vector_cores", "clock_mhz", "ub_bytes", "gm_bandwidth_gbps", "l2_bytes")
_NUMERIC = ("vector_cores", "cube_cores", "clock_mhz", "system_counter_mhz", "ub_bytes", "tpipe_ub_bytes",
            "ub_scratch_offset", "gm_bandwidth_gbps", "l2_bytes", "l2_bandwidth_gbps", "max_live_tensors_per_position",
            "event_ids_per_hard_event")
_FLAGS = ("datacopypad_supported", "bf16_arithmetic")
_STRINGS = ("family", "compiler_arch", "copy_curves", "vector_costs")
_KEYS = frozenset(("npu_arch",) + _NUMERIC + _FLAGS + _STRINGS)


class SocDataError(ValueError):
    """A data file breaks its schema; the message names the file, the entry and the key."""


class UnknownSocError(ValueError):
    """A SoC name that the data file does not know; the message lists the known ones."""


@dataclass(frozen=True)
class Quantity:
    """One number (or flag) together with where it came from and how sure that source is."""

    value: float | int | bool
    source: str
    confidence: str


@dataclass(frozen=True)
class Soc:
    """Hardware parameters of one SoC, as read from `socs.yaml`."""

    name: str
    family: str
    npu_arch: int
    compiler_arch: str
    vector_cores: Quantity
    cube_cores: Quantity
    clock_mhz: Quantity
    system_counter_mhz: Quantity  # the rate of the counter GetSystemCycle reads
    ub_bytes: Quantity
    # What TPipe may allocate (the simulator's ub-overflow limit), and where the APIs that use Ascend C's reserved
    # UB put their scratch: a kernel's buffers reaching past it are clobbered by those APIs.
    tpipe_ub_bytes: Quantity
    ub_scratch_offset: Quantity
    gm_bandwidth_gbps: Quantity
    l2_bytes: Quantity
    l2_bandwidth_gbps: Quantity
    max_live_tensors_per_position: Quantity
    event_ids_per_hard_event: Quantity
    datacopypad_supported: Quantity
    bf16_arithmetic: Quantity
    copy_curves: str
    vector_costs: str

    @property
    def ub_api_bytes(self) -> int:
        """UB a kernel may allocate when it calls an API that uses Ascend C's reserved UB (`reserved_ub_apis`):
        TPipe's UB up to where those APIs put their scratch. A kernel that calls none may allocate all of
        tpipe_ub_bytes."""
        return min(int(self.tpipe_ub_bytes.value), int(self.ub_scratch_offset.value))

    @property
    def ub_stack_end(self) -> int:
        """Where PopStackBuffer's UB (the advanced APIs' own temporary space, after the TPipe's buffers) ends:
        asc-devkit impl/basic_api/kernel_pop_stack_buffer.h GetEndAddress, the UB less its last 64 bytes (a KfcMsg)
        on NpuArch 2201 (A2/A3), TMP_UB_OFFSET on 3510 (950), the whole UB elsewhere."""
        if self.family in ("A2", "A3"):
            return int(self.ub_bytes.value) - 64
        if self.family == "950":
            return int(self.ub_scratch_offset.value)
        return int(self.ub_bytes.value)

    @property
    def low_confidence_fields(self) -> list[str]:
        """Model-relevant quantities whose value is `unconfirmed` or `assumed`."""
        return [
            name for name in MODEL_FIELDS
            if getattr(self, name).confidence in ("unconfirmed", "assumed")
        ]

    @property
    def low_confidence(self) -> bool:
        """True when a simulated time for this SoC rests on an unconfirmed or assumed model quantity."""
        return bool(self.low_confidence_fields)


def parse_quantity(raw: object, where: str, kind: type | tuple[type, ...] = (int, float)) -> Quantity:
    """Validate one `{value, source, confidence}` leaf; `where` names it in the error."""
    if not isinstance(raw, dict) or set(raw) != {"value", "source", "confidence"}:
        raise SocDataError(f"{where}: expected {{value, source, confidence}}, got {raw!r}")
    value, source, confidence = raw["value"], raw["source"], raw["confidence"]
    # bool is an int subclass: a flag must not pass as a number, nor a number as a flag.
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise SocDataError(f"{where}: value {value!r} is not {'a boolean' if kind is bool else 'a number'}")
    if not isinstance(source, str) or not source.strip():
        raise SocDataError(f"{where}: missing source")
    if confidence not in CONFIDENCES:
        allowed = ", ".join(sorted(CONFIDENCES))
        raise SocDataError(f"{where}: confidence {confidence!r} is not one of {allowed}")
    return Quantity(value, source, confidence)


def check_document(doc: object, section: str, name: str) -> dict:
    """The `section` mapping of a data file that declares `schema_version: 1`."""
    if not isinstance(doc, dict) or doc.get("schema_version") != 1 or not isinstance(doc.get(section), dict):
        raise SocDataError(f"{name}: expected schema_version: 1 and a '{section}' mapping")
    return doc[section]


def check_keys(raw: object, expected: frozenset[str], where: str) -> dict:
    """`raw` as a mapping with exactly the `expected` keys; the first missing (else unknown) key is named."""
    if not isinstance(raw, dict):
        raise SocDataError(f"{where}: expected a mapping of keys")
    missing, unknown = sorted(expected - set(raw)), sorted(set(raw) - expected)
    if missing or unknown:
        key = (missing or unknown)[0]
        raise SocDataError(f"{where}.{key}: {'missing key' if missing else 'unknown key'}")
    return raw


def _parse_soc(name: str, raw: object, where: str) -> Soc:
    """Build one `Soc` from its YAML mapping, naming the SoC and key in any error."""
    raw = check_keys(raw, _KEYS, where)
    for key in _STRINGS:
        if not isinstance(raw[key], str) or not raw[key]:
            raise SocDataError(f"{where}.{key}: expected a non-empty string, got {raw[key]!r}")
    if raw["family"] not in FAMILIES:
        raise SocDataError(f"{where}.family: {raw['family']!r} is not one of {', '.join(sorted(FAMILIES))}")
    if isinstance(raw["npu_arch"], bool) or not isinstance(raw["npu_arch"], int):
        raise SocDataError(f"{where}.npu_arch: expected an integer, got {raw['npu_arch']!r}")
    quantities = {key: parse_quantity(raw[key], f"{where}.{key}") for key in _NUMERIC}
    quantities |= {key: parse_quantity(raw[key], f"{where}.{key}", bool) for key in _FLAGS}
    strings = {key: raw[key] for key in _STRINGS}
    return Soc(name=name, npu_arch=raw["npu_arch"], **strings, **quantities)


def _read(path: Path) -> dict[str, Soc]:
    """Parse and validate a whole SoC file."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SocDataError(f"{path}: cannot read: {exc}".splitlines()[0]) from exc
    socs = check_document(doc, "socs", path.name)
    return {str(name): _parse_soc(str(name), raw, f"{path.name}: {name}") for name, raw in socs.items()}


@cache
def _default_socs() -> dict[str, Soc]:
    """The packaged SoC file, read once per process."""
    return _read(DEFAULT_SOCS_PATH)


def load_socs(path: Path | None = None) -> dict[str, Soc]:
    """All SoCs of `path` (default: the packaged `socs.yaml`, cached) by their canonical name."""
    return dict(_default_socs() if path is None else _read(path))


def soc_names() -> list[str]:
    """Canonical names of the packaged SoCs, in file order."""
    return list(_default_socs())


def get_soc(name: str) -> Soc:
    """The packaged SoC called `name`, matched case-insensitively (`ascend910b1` finds Ascend910B1)."""
    for soc_name, soc in _default_socs().items():
        if soc_name.lower() == name.strip().lower():
            return soc
    raise UnknownSocError(f"unknown SoC {name!r}; known: {', '.join(soc_names())}")
