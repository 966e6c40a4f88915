"""`tuner bench`: the packaged suite is what the issue asks for, a small suite runs end to end through the CLI,
the headline numbers follow from the cases, and the Markdown report replaces only its own section."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tuner.cli import main
from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.ops import get_operator, operator_names
from tuner.search.bench import (
    REPORT_BEGIN,
    REPORT_END,
    BenchCase,
    BenchConfig,
    BenchResult,
    CaseResult,
    load_suite,
    markdown_report,
    run_bench,
    select,
    write_report,
)
from tuner.space.spaces import load_space, run_context

ROOT = Path(__file__).resolve().parents[2]
SMALL_SUITE = """
cases:
  - {op: softmax, shape: [16, 256], dtype: float16, why: aligned rows}
  - {op: add, shape: [3, 1001], dtype: float16, why: odd element count}
  - {op: swiglu, shape: [4, 101], dtype: float16, why: refused, the last axis is odd}
  - {op: rmsnorm, shape: [4, 300], dtype: bfloat16, options: {eps: 0.001}, why: an option off its default}
"""


def test_packaged_suite_covers_every_operator_at_an_llm_and_an_odd_shape():
    cases = load_suite()
    assert 19 <= len(cases) <= 24
    assert len({(c.op, c.shape, c.dtype) for c in cases}) == len(cases)
    soc = get_soc("Ascend910B2")
    for name in operator_names():
        shapes = [c.shape for c in cases if c.op == name and c.dtype == "float16"]
        assert len(shapes) >= 2, name
        assert any(s[-1] in (4096, 5120, 8192) for s in shapes), f"{name}: no LLM hidden size"
    assert len({c.op for c in cases if c.dtype == "bfloat16"}) >= 3
    odd = [c for c in cases if c.shape[-1] * 2 % 32 or math.prod(c.shape[:-1]) < soc.vector_cores.value]
    assert {c.op for c in odd} == set(operator_names())
    assert any(math.prod(c.shape[:-1]) == 1 for c in cases)
    for case in cases:
        assert math.prod(case.shape) <= 4096 * 8192 and case.why
        op = get_operator(case.op).with_options(case.options)
        op.check_shape(case.shape)
        context = run_context(op, case.shape, case.dtype, soc)
        space = load_space(case.op)
        assert any(v.feasible_points(context) for v in space.variants.values()), case.label
        assert space.baseline(context) is not None, f"{case.label}: no feasible baseline"


@pytest.mark.parametrize(("text", "message"), [
    ("cases: [{op: nosuchop, shape: [4, 4], dtype: float16}]", "case 1: unknown operator 'nosuchop'"),
    ("cases: [{op: add, dtype: float16}]", "case 1: expected op, shape, dtype"),
    ("cases: [{op: add, shape: [4, x], dtype: float16}]", "case 1: expected op, shape, dtype"),
    ("cases: [{op: add, shape: [4, 4], dtype: int8}]", "case 1: add does not support dtype 'int8'"),
    ("cases: [{op: rmsnorm, shape: [4, 4], dtype: float16, options: {eps: big}}]", "case 1: option eps=big"),
])
def test_malformed_suites_are_refused_before_anything_runs(text, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        load_suite(text)


def test_select_names_the_operators_a_suite_lacks():
    cases = load_suite(SMALL_SUITE)
    assert [c.op for c in select(cases, ["add", "softmax"])] == ["softmax", "add"]
    assert select(cases, []) == cases
    with pytest.raises(UsageError, match="no case for silu"):
        select(cases, ["silu"])
    with pytest.raises(UsageError, match="unknown operator"):
        select(cases, ["nosuchop"])


def _case(speedup: float | None, correct: bool = True) -> CaseResult:
    base = 10.0 if speedup else None
    best = 10.0 / speedup if speedup else None
    return CaseResult(BenchCase("add", (4, 4), "float16"), "r", correct, "" if correct else "why", base, {}, best,
                      "v", {}, 50.0, 3, 1.0, False)


def test_headline_numbers_follow_from_the_cases():
    result = BenchResult("sim", "Ascend910B2", "simulated, Ascend910B2 model", 3,
                         [_case(2.0), _case(8.0), _case(None, correct=False), _case(None)], planned=4)
    assert result.success_rate == 0.75
    assert result.geomean_speedup == pytest.approx(4.0)  # the geometric mean of 2 and 8
    assert BenchResult("sim", "x", "y", 3, [_case(None, correct=False)], 1).geomean_speedup is None


@pytest.mark.e2e  # three whole runs on the simulator, and their resumption
def test_small_suite_end_to_end(tmp_path: Path):
    cases = load_suite(SMALL_SUITE)
    config = BenchConfig(cases=cases, budget=3, runs_dir=tmp_path / "bench")
    seen: list[str] = []
    result = run_bench(config, on_case=lambda c: seen.append(c.case.op))
    assert seen == ["softmax", "add", "swiglu", "rmsnorm"]
    by_op = {c.case.op: c for c in result.cases}
    assert not by_op["swiglu"].correct and by_op["swiglu"].why_not.startswith("refused: swiglu")
    for name in ("softmax", "add", "rmsnorm"):
        case = by_op[name]
        assert case.correct and case.trials == 3 and case.best_us <= case.baseline_us
        assert case.speedup == pytest.approx(case.baseline_us / case.best_us)
        assert 0 < case.roofline_pct <= 100 and case.baseline_knobs and case.best_knobs
    assert by_op["rmsnorm"].run.endswith("-eps=0.001")
    assert result.success_rate == 0.75 and result.time_source == "simulated, Ascend910B2 model"
    again = run_bench(config)  # resumes: the runs already hold their budget
    assert all(c.resumed for c in again.cases if c.correct)
    assert [c.best_us for c in again.cases] == [c.best_us for c in result.cases]
    for first, second in zip(result.cases[:2], again.cases[:2], strict=True):
        assert second.seconds >= first.seconds  # the seconds the case cost, not the moment to read it back

    report = markdown_report(result, "tuner bench --suite small.yaml")
    assert report.startswith(REPORT_BEGIN) and report.endswith(REPORT_END)
    assert "| swiglu | 4x101 | float16 | no: refused: swiglu" in report
    assert "simulated, Ascend910B2 model" in report and "Success rate 3/4 (75%)" in report


def test_report_replaces_only_its_section(tmp_path: Path):
    result = BenchResult("sim", "Ascend910B2", "simulated, Ascend910B2 model", 3, [_case(2.0)], 1)
    fresh = tmp_path / "new.md"
    write_report(fresh, markdown_report(result, "cmd"))
    assert fresh.read_text().count(REPORT_BEGIN) == 1

    page = tmp_path / "README.md"
    page.write_text(f"intro\n\n{REPORT_BEGIN}\nold table\n{REPORT_END}\n\noutro\n")
    write_report(page, markdown_report(result, "cmd"))
    text = page.read_text()
    assert text.startswith("intro\n\n") and text.endswith("\n\noutro\n")
    assert "old table" not in text and "| add | 4x4 | float16 | yes | 10.00 | 5.00 | 2.00 |" in text

    plain = tmp_path / "notes.md"
    plain.write_text("my notes\n")
    with pytest.raises(UsageError, match="no generated bench section"):
        write_report(plain, "x")
    assert plain.read_text() == "my notes\n"


def test_readme_table_is_the_packaged_suite():
    """The README's bench table is generated by one command; it must list the cases the suite now holds."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index(REPORT_BEGIN):text.index(REPORT_END)]
    assert "simulated, Ascend910B2 model" in section and "Generated by `" in section
    rows = re.findall(r"^\| (\w+)[^|]* \| (\d+(?:x\d+)*) \| (\w+) \|", section, re.M)
    assert rows == [(c.op, "x".join(map(str, c.shape)), c.dtype) for c in load_suite()]


def test_cli_json_and_bad_input(tmp_path: Path):
    suite = tmp_path / "suite.yaml"
    suite.write_text("cases:\n  - {op: add, shape: [2, 64], dtype: float32}\n")
    runner = CliRunner()
    args = ["bench", "--suite", str(suite), "--budget", "2", "--runs-dir", str(tmp_path / "b"), "--json"]
    out = runner.invoke(main, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert {"backend", "soc", "success_rate", "geomean_speedup", "cases"} <= set(data)
    assert data["backend"] == "sim" and data["soc"] == "Ascend910B2" and data["success_rate"] == 1.0
    case = data["cases"][0]
    assert {"op", "shape", "dtype", "correct", "baseline_us", "best_us", "speedup", "roofline_pct", "trials",
            "seconds"} <= set(case)
    assert case["shape"] == [2, 64] and case["correct"] and case["trials"] == 2

    for bad, message in [(["--ops", "nosuchop"], "unknown operator"), (["--soc", "Ascend999"], "unknown SoC"),
                         (["--budget", "0"], "--budget must be at least 1"), (["--backend", "npu"], "npu backend"),
                         (["--suite", str(tmp_path / "missing.yaml")], "no suite file")]:
        out = runner.invoke(main, ["bench", "--suite", str(suite), "--runs-dir", str(tmp_path / "b"), *bad])
        assert out.exit_code == 2, (bad, out.output)
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and message in out.stderr
