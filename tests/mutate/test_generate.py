"""The generate-compile-run-fix loop (`--generate-rounds`): a task the tuner cannot make a kernel of goes to the LLM
with its PyTorch source, the refusal, the kernel's interface, the library's macros and the API card; an answer that
does not compile goes back with the compiler's output, one that runs wrong with the first mismatches, and the one
that passes joins the run as a variant and is tuned. Without an LLM, the same task is one line and a non-zero exit,
as ever.

The LLM is a real scripted server on 127.0.0.1 (llm_server.py); its answers are real Ascend C written for the task
(fixtures/generate/), answered from a recording of the simulator (`replayed`, tests/conftest.py) in the fast tests,
and built and run on the simulator itself in the end-to-end one (e2e), where the kernel the tuner generated is the
one that fails."""

from __future__ import annotations

import json
from pathlib import Path

import optuna
import pytest
from commands import one_line_error, tuner_here
from tasks import write_task

from tuner.errors import UsageError
from tuner.graph.operator import UNLOWERED_MARK, graph_operator
from tuner.search.config import RunConfig
from tuner.search.generation import GenerationError
from tuner.search.loop import optimize

from .llm_server import Reply, ScriptedServer

optuna.logging.set_verbosity(optuna.logging.WARNING)
FIXTURES = Path(__file__).parent / "fixtures" / "generate"
SORT = ("sort_rows", "x: x.sort(dim=-1).values", "torch.randn(8, 16)")
KERNEL = (FIXTURES / "sort_rows.cpp.j2").read_text()
# a first answer calls a function nobody declared; a second sorts the wrong way round
UNDECLARED = KERNEL.replace("SortRow(rowsL[r * COLS]);", "SortInPlace(rowsL[r * COLS], COLS);")
DESCENDING = KERNEL.replace("v.GetValue(j - 1) > key", "v.GetValue(j - 1) < key")
KNOBS = """knobs:
  tile_rows: {type: categorical, choices: [1, 2, 4]}
constraints:
  - {expr: "block_dim * 16 <= elems_in_x", why: "every block owns at least one of the rows"}
"""


def answer(template: str) -> Reply:
    return Reply(f"The kernel.\n```cpp\n{template}```\n```yaml\n{KNOBS}```\nEach block sorts its rows.")


def question(server: ScriptedServer, index: int) -> str:
    return server.requests[index].body["messages"][-1]["content"]


def refused(path: Path | None) -> str:
    """The one line the tuner refuses the task with, without an LLM."""
    assert path is not None
    with pytest.raises(UsageError) as refusal:
        graph_operator(path)
    return str(refusal.value)


def records(config: RunConfig) -> list[dict]:
    path = config.run_dir / "mutations.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def sort_config(tmp_path: Path, **extra) -> RunConfig:
    path = write_task(tmp_path, *SORT)
    return RunConfig(op="", task=path, budget=4, jobs=1, seed=1, plateau=0, llm_timeout_s=5.0,
                     runs_dir=tmp_path / "runs", **extra)


def test_a_task_outside_the_ir_is_written_by_the_llm_fixed_from_the_feedback_and_tuned(
        tmp_path: Path, llm_env: ScriptedServer, replayed) -> None:
    llm_env.push(answer(UNDECLARED), answer(DESCENDING), answer(KERNEL))
    config = sort_config(tmp_path)
    refusal = refused(config.task)
    summary = optimize(config, backend=replayed())

    first, second, third = (question(llm_env, k) for k in range(3))
    assert refusal in first and "x.sort(dim=-1).values" in first
    assert "GM_ADDR in_x, GM_ADDR out0, GM_ADDR tiling" in first and "shape [8, 16]" in first
    assert "_lib/graph.j2" in first and "# Ascend C API card" in first and "elems_in_x: 128" in first
    assert "# Compiler output" in second and "SortInPlace" in second and "# Your previous kernel" in second
    assert "template line 35" in second  # the compiler's line mapped to the answer's
    assert "# First mismatches" in third and "out0: " in third and "outside rtol" in third
    assert len(llm_env.requests) == 3

    made = records(config)
    assert [(r["trigger"], r["round"], r["verdict"].split(":")[0:2]) for r in made] == [
        ("generate", 0, ["rejected", " compile_error"]), ("generate", 1, ["rejected", " wrong_result"]),
        ("generate", 2, ["accepted", made[2]["verdict"].split(":")[1]])]
    assert summary.best is not None and summary.best.variant == made[2]["variant"] == "llm-3"
    assert summary.best.attrs["verified_sets"] == 3 and summary.trials == config.budget
    assert "KernelSortRows" in (config.run_dir / "best" / "kernel.cpp").read_text()
    space = config.project / "search_spaces" / "sort_rows.yaml"
    assert space.read_text().startswith(UNLOWERED_MARK)


def test_no_passing_kernel_is_one_line_and_leaves_what_a_later_run_completes(
        tmp_path: Path, llm_env: ScriptedServer, replayed) -> None:
    llm_env.push(answer(UNDECLARED))
    config = sort_config(tmp_path, generate_rounds=1)
    with pytest.raises(GenerationError) as failed:
        optimize(config, backend=replayed())
    line = str(failed.value)
    assert "\n" not in line and refused(config.task) in line and "1 of --generate-rounds 1" in line
    assert "compile_error" in line
    assert not (config.run_dir / "variants").exists() or not any((config.run_dir / "variants").iterdir())
    assert not (config.run_dir / "best").exists()

    llm_env.push(answer(KERNEL))
    summary = optimize(sort_config(tmp_path), backend=replayed())
    assert summary.best is not None and summary.best.attrs["verified_sets"] == 3


@pytest.mark.parametrize("flags", [[], ["--generate-rounds", "0"], ["--no-llm"], ["--no-rewrites"]],
                         ids=["no-llm", "no-rounds", "llm-off", "rewrites-off"])
def test_without_an_llm_a_task_outside_the_ir_is_one_line_and_nothing_written(
        tmp_path: Path, llm_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, flags: list[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    if flags:  # an LLM configured, and turned off for this
        monkeypatch.setenv("TUNER_LLM_MODEL", "scripted-model")
        monkeypatch.setenv("OPENAI_BASE_URL", llm_server.url)
    else:
        monkeypatch.delenv("TUNER_LLM_MODEL", raising=False)
    path = write_task(tmp_path, *SORT)
    result = tuner_here("optimize", str(path), "--budget", "1", *flags, cwd=tmp_path)
    assert one_line_error(result, 2, "aten.sort", "sort_rows.py:11") == f"error: {refused(path)}"
    assert not (tmp_path / "runs").exists() and llm_server.requests == []


@pytest.mark.e2e
def test_a_generated_kernel_that_fails_is_replaced_by_the_llms(tmp_path: Path, llm_env: ScriptedServer) -> None:
    path = write_task(tmp_path, "sigmoid_double", "x: 2.0 * torch.sigmoid(x)", "torch.randn(16, 64)")
    config = RunConfig(op="", task=path, budget=3, jobs=1, seed=1, plateau=0, llm_timeout_s=5.0,
                       runs_dir=tmp_path / "runs")
    config.operator.write(config.project)  # the generated kernel, then a user's edit that breaks it
    template = config.project / "templates" / "ascendc" / "sigmoid_double" / "generated" / "kernel.cpp.j2"
    template.write_text("this line is not C++;\n" + template.read_text())
    written = (FIXTURES / "sigmoid_double.cpp.j2").read_text()
    llm_env.push(Reply(f"A kernel of my own.\n```cpp\n{written}```\n"))
    summary = optimize(config)

    [asked] = [question(llm_env, k) for k in range(len(llm_env.requests))]
    assert "# The tuner's kernel" in asked and "this line is not C++" in asked and "# Compiler output" in asked
    assert "2.0 * torch.sigmoid(x)" in asked and "# Its kernel IR" in asked
    [record] = records(config)
    assert record["trigger"] == "generate" and record["parent"] == "generated"
    assert record["verdict"].startswith("accepted") and record["variant"] == "generated+llm-1"
    assert summary.best is not None and summary.best.variant == "generated+llm-1"
    assert summary.best.attrs["verified_sets"] == 3
