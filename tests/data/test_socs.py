"""The SoC file and the cost tables: complete, sourced, plausible, and strict about their schema."""

import shutil
from pathlib import Path

import pytest
import yaml

from tuner.data import costs
from tuner.data.api_support import reserved_ub_apis
from tuner.data.costs import (
    COSTS_DIR,
    DIRECTIONS,
    INSTR_CLASSES,
    load_copy_curve,
    load_overheads,
    load_vector_costs,
)
from tuner.data.socs import (
    CONFIDENCES,
    DEFAULT_SOCS_PATH,
    Quantity,
    SocDataError,
    UnknownSocError,
    get_soc,
    load_socs,
    soc_names,
)

REQUIRED_SOCS = ("Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend310P3")


def _quantities(soc) -> dict[str, Quantity]:
    """Every Quantity of a SoC by its name."""
    return {name: value for name, value in vars(soc).items() if isinstance(value, Quantity)}


def test_required_socs_are_present() -> None:
    names = soc_names()
    assert set(REQUIRED_SOCS) <= set(names)
    assert any(name.startswith("Ascend950") for name in names)


@pytest.mark.parametrize("name", soc_names())
def test_every_quantity_is_sourced(name: str) -> None:
    for key, quantity in _quantities(get_soc(name)).items():
        assert quantity.source.strip(), f"{name}.{key} has no source"
        assert quantity.confidence in CONFIDENCES, f"{name}.{key}"


@pytest.mark.parametrize("name", soc_names())
def test_values_are_plausible(name: str) -> None:
    soc = get_soc(name)
    assert soc.vector_cores.value > 0
    assert soc.cube_cores.value > 0
    assert 500 <= soc.clock_mhz.value <= 3000
    assert soc.ub_bytes.value >= 128 * 1024
    assert 0 < soc.ub_api_bytes <= soc.tpipe_ub_bytes.value <= soc.ub_bytes.value
    assert soc.ub_api_bytes % 32 == 0
    assert soc.gm_bandwidth_gbps.value > 0
    assert soc.l2_bytes.value >= 1 << 20
    assert soc.max_live_tensors_per_position.value > 0
    assert soc.event_ids_per_hard_event.value > 0
    assert isinstance(soc.datacopypad_supported.value, bool)
    assert isinstance(soc.bf16_arithmetic.value, bool)


@pytest.mark.parametrize("name", soc_names())
def test_every_soc_resolves_its_cost_tables(name: str) -> None:
    soc = get_soc(name)
    for direction in DIRECTIONS:
        assert load_copy_curve(soc.copy_curves, direction)
    costs = load_vector_costs(soc.vector_costs)
    assert {instr_class for instr_class, _ in costs} == INSTR_CLASSES
    assert ("binary", "float") in costs
    assert load_overheads(soc.vector_costs)["head_us_base"] > 0


def test_a2_kernels_may_fill_the_ub_unless_they_call_a_reserved_ub_api() -> None:
    # NPU架构版本2201.md: the 8 KB is reserved for the APIs of 静态Tensor编程.md's table 5 (Select among them), the
    # 256 B for cube+vector fused kernels only; a vector kernel that calls none of them has all 192 KB.
    soc = get_soc("Ascend910B1")
    assert (soc.tpipe_ub_bytes.value, soc.ub_api_bytes) == (196608, 196608 - 8192)
    assert {"Select", "AddDeqRelu"} <= reserved_ub_apis(soc.vector_costs)
    assert "Exp" not in reserved_ub_apis(soc.vector_costs) and "Exp" in reserved_ub_apis("950")


def test_tpipe_ub_scratch_and_stack_end_follow_asc_devkit() -> None:
    # kernel_utils_mode_cpu.h (bufferInitLen), kernel_utils_constants.h (TMP_UB_OFFSET), kernel_pop_stack_buffer.h.
    a2, p310, a5 = (get_soc(n) for n in ("Ascend910B1", "Ascend310P3", "Ascend950PR_9589"))
    assert (a2.tpipe_ub_bytes.value, a2.ub_scratch_offset.value, a2.ub_stack_end) == (196608, 188416, 196544)
    assert (p310.tpipe_ub_bytes.value, p310.ub_scratch_offset.value, p310.ub_stack_end) == (262144, 253952, 262144)
    assert (a5.tpipe_ub_bytes.value, a5.ub_scratch_offset.value, a5.ub_stack_end) == (253952, 253952, 253952)


def test_lookup_is_case_insensitive() -> None:
    assert get_soc("ascend910b1") is get_soc("Ascend910B1")
    assert get_soc("ASCEND310P3").name == "Ascend310P3"


def test_unknown_soc_lists_the_known_ones() -> None:
    with pytest.raises(UnknownSocError) as info:
        get_soc("Ascend999")
    message = str(info.value)
    assert "\n" not in message
    assert "'Ascend999'" in message
    assert all(name in message for name in soc_names())


def test_low_confidence() -> None:
    p310 = get_soc("Ascend310P3")
    assert p310.low_confidence
    assert "gm_bandwidth_gbps" in p310.low_confidence_fields
    b1 = get_soc("Ascend910B1")
    model = [b1.vector_cores, b1.clock_mhz, b1.ub_bytes, b1.gm_bandwidth_gbps, b1.l2_bytes]
    assert all(q.confidence in ("confirmed", "derived") for q in model)
    assert not b1.low_confidence
    assert b1.low_confidence_fields == []


def _write_broken(tmp_path: Path, mutate) -> Path:
    """A copy of the real SoC file with one SoC changed by `mutate`."""
    doc = yaml.safe_load(DEFAULT_SOCS_PATH.read_text(encoding="utf-8"))
    mutate(doc["socs"]["Ascend910B1"])
    path = tmp_path / "socs.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


def test_an_unchanged_copy_loads(tmp_path: Path) -> None:
    path = _write_broken(tmp_path, lambda soc: None)
    assert load_socs(path) == load_socs()


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda soc: soc.pop("clock_mhz"), r"Ascend910B1\.clock_mhz: missing key"),
        (lambda soc: soc["l2_bytes"].update(confidence="probably"), r"Ascend910B1\.l2_bytes: confidence"),
        (lambda soc: soc["ub_bytes"].update(source=""), r"Ascend910B1\.ub_bytes: missing source"),
        (lambda soc: soc["vector_cores"].pop("source"), r"Ascend910B1\.vector_cores: expected"),
        (lambda soc: soc["ub_scratch_offset"].update(confidence="sure"), r"Ascend910B1\.ub_scratch_offset: confidence"),
        (lambda soc: soc["datacopypad_supported"].update(value=1),
         r"Ascend910B1\.datacopypad_supported: value"),
        (lambda soc: soc["vector_cores"].update(value=True), r"Ascend910B1\.vector_cores: value"),
        (lambda soc: soc.update(family="A9"), r"Ascend910B1\.family"),
        (lambda soc: soc.update(speed=3), r"Ascend910B1\.speed: unknown key"),
    ],
)
def test_broken_file_names_soc_and_key(tmp_path: Path, mutate, expected: str) -> None:
    with pytest.raises(SocDataError, match=expected):
        load_socs(_write_broken(tmp_path, mutate))


def test_unparsable_file(tmp_path: Path) -> None:
    path = tmp_path / "socs.yaml"
    path.write_text("socs: [unclosed\n", encoding="utf-8")
    with pytest.raises(SocDataError, match="cannot read"):
        load_socs(path)


@pytest.mark.parametrize("curve", ["a2-910b1", "950", "310p"])
@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_copy_curves_are_monotonic(curve: str, direction: str) -> None:
    points = load_copy_curve(curve, direction)
    sizes = [size for size, _ in points]
    assert sizes == sorted(set(sizes)), "sizes strictly increasing"
    assert all(gbps > 0 for _, gbps in points)
    times = [size / gbps for size, gbps in points]
    assert times == sorted(times), "a bigger copy never takes less time"


def test_unknown_curve_and_family() -> None:
    with pytest.raises(SocDataError, match="no curve"):
        load_copy_curve("a2-910b1", "gm_to_l1")
    with pytest.raises(SocDataError, match="no family"):
        load_vector_costs("a9")
    with pytest.raises(SocDataError, match="no family"):
        load_overheads("a9")


def test_binary_ops_cost_by_ub_bank_groups_on_a2() -> None:
    # Conflict-free binary ops at the theoretical 1 cycle per repeat; conflicts are costed from the README's layout.
    costs = load_vector_costs("a2")
    for dtype in ("half", "float", "int16", "int32"):
        assert costs[("binary", dtype)][0] == 1
    a2 = load_overheads("a2")
    assert (a2["ub_bank_line_bytes"], a2["ub_bank_groups"], a2["ub_bank_rows"]) == (32, 16, 128)
    assert a2["bank_read_conflict_cycles"] == 1.0
    assert load_overheads("950")["ub_bank_groups"] == 0  # 950 arranges its banks differently


def test_overheads_are_plausible() -> None:
    for family in ("a2", "310p", "950"):
        overheads = load_overheads(family)
        assert 0 < overheads["gm_align_512_factor"] <= 1
        assert overheads["head_us_base"] > 0
        assert all(value >= 0 for value in overheads.values())


@pytest.fixture
def costs_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable copy of the cost tables, read in place of the packaged ones."""
    copy = tmp_path / "costs"
    shutil.copytree(COSTS_DIR, copy)
    monkeypatch.setattr(costs, "COSTS_DIR", copy)
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in a text file."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_copy_table_without_confidence(costs_copy: Path) -> None:
    _edit(costs_copy / "copy_bandwidth.csv", ",confirmed\n", ",\n")
    with pytest.raises(SocDataError, match=r"copy_bandwidth\.csv:2: confidence: empty"):
        load_copy_curve("a2-910b1", "gm_to_ub")


def test_vector_table_with_bad_confidence(costs_copy: Path) -> None:
    _edit(costs_copy / "vector_costs.csv", ",derived\n", ",measured\n")
    with pytest.raises(SocDataError, match=r"vector_costs\.csv:2: confidence: 'measured'"):
        load_vector_costs("a2")


def test_overheads_without_source(costs_copy: Path) -> None:
    path = costs_copy / "overheads.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["families"]["a2"]["flag_cycles"] = {"value": 5, "source": " ", "confidence": "assumed"}
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    with pytest.raises(SocDataError, match=r"overheads\.yaml: a2\.flag_cycles: missing source"):
        load_overheads("a2")
