"""Rewrites inside a run, end to end: the LLM path against a real scripted server on 127.0.0.1 (good rewrites,
broken code then its fix, prose, forbidden code, a hung connection, server errors, a 5 MB answer) and the
rule path with no LLM configured. The tuner never crashes, never builds rejected code, finishes its budget.

The LLM runs search the frozen softmax project of the loop's tests (tests/search/data/softmax/) and answer from
a recording of the simulator (`replayed`, tests/conftest.py), one candidate at a time, with rewrites tagged by the
test's name, so that a run asks for what was recorded: a build of any source the recorded run did not build (a
rejected answer's, say) is a ReplayMiss that fails the test. The rule path runs the simulator on the packaged
templates, which the rule catalog is written against (e2e; the rules themselves are tested in test_rules.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import optuna
import pytest

from tuner.mutate.prompts import strip_line_labels
from tuner.search.compile_cache import cache_root
from tuner.search.loop import RunConfig, optimize
from tuner.search.storage import open_storage, run_studies
from tuner.search.winners import export_trial
from tuner.space.spaces import PROJECT_ROOT

from .llm_server import Compute, Hang, Huge, Reply, ScriptedServer, Status

optuna.logging.set_verbosity(optuna.logging.WARNING)
TEMPLATE_BLOCK = re.compile(r"# Kernel template\n.*?```cpp\n(.*?)\n```", re.S)
LOOP_PROJECT = PROJECT_ROOT / "tests" / "search" / "data" / "softmax"


def template_of(body: dict) -> str:
    """The kernel template a request carries, without the prompt's line labels."""
    return strip_line_labels(TEMPLATE_BLOCK.search(body["messages"][-1]["content"]).group(1)) + "\n"


def answer(edit) -> Compute:
    """An answer holding the request's template after `edit`."""
    return Compute(lambda body: f"Rewritten as asked.\n```cpp\n{edit(template_of(body))}```\n")


def tagged(tag: str):
    """A harmless edit that makes the rewrite's source recognisable."""
    return lambda template: f"// rewrite {tag}\n{template}"


def llm_config(tmp_path: Path, *, budget: int = 12, max_calls: int = 1, **extra) -> RunConfig:
    return RunConfig(op="softmax", shape=(16, 256), dtype="float16", budget=budget, runs_dir=tmp_path / "runs",
                     seed=1, jobs=1, plateau=3, llm_max_calls=max_calls, llm_timeout_s=1.0, project=LOOP_PROJECT,
                     **extra)


def records(config: RunConfig) -> list[dict]:
    path = config.runs_dir / config.run_name / "mutations.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def measured_in(config: RunConfig, variant: str) -> int:
    storage, _ = open_storage(config.storage, config.runs_dir)
    for info in run_studies(storage, config.run_name)[config.run_name]:
        if info.variant == variant:
            trials = optuna.load_study(study_name=info.name, storage=storage).trials
            return sum(1 for t in trials if t.user_attrs.get("measured"))
    return 0


def built_sources_containing(text: str) -> list[Path]:
    return [p for p in (cache_root() / "builds").glob("*/kernel.cpp") if text in p.read_text(errors="replace")]


def test_a_good_rewrite_becomes_a_measured_variant(tmp_path: Path, llm_env: ScriptedServer, replayed):
    tag = "good-rewrite"
    llm_env.push(answer(tagged(tag)))
    config = llm_config(tmp_path)
    summary = optimize(config, backend=replayed())
    assert summary.trials == config.budget
    [record] = records(config)
    assert record["origin"] == "llm" and record["trigger"] == "plateau" and record["verdict"].startswith("accepted")
    variant = record["variant"]
    assert variant.startswith(f"{record['parent']}+llm-") and measured_in(config, variant) >= 1
    assert summary.to_json()["mutations"] == [{"origin": "llm", "trigger": "plateau", "verdict": record["verdict"],
                                               "variant": variant}]
    assert [item["variant"] for item in summary.lineage] == [variant]
    assert record["usage"]["total_tokens"] == 1200
    run_dir = config.runs_dir / config.run_name
    assert (run_dir / "variants" / variant / "kernel.cpp.j2").read_text().startswith(f"// rewrite {tag}")
    assert (run_dir / record["files"]["prompt"]).read_text().count("# Kernel template") == 1
    storage, _ = open_storage(config.storage, config.runs_dir)
    exported = export_trial(storage, config.run_name, tmp_path / "out", trial=f"{variant}:0", project=LOOP_PROJECT,
                            variants_dir=run_dir / "variants", with_trace=False)
    assert f"// rewrite {tag}" in (exported / "kernel.cpp").read_text()


def test_broken_code_goes_back_with_the_compiler_output_and_its_fix_is_accepted(tmp_path: Path,
                                                                               llm_env: ScriptedServer, replayed):
    broken = "this line is not C++;\n"
    # first in the template: after a skeleton's extends, text outside its blocks is not rendered
    llm_env.push(answer(lambda t: broken + t), answer(lambda t: t.replace(broken, "")))
    config = llm_config(tmp_path, max_calls=2)
    summary = optimize(config, backend=replayed())
    assert summary.trials == config.budget
    first, second = records(config)
    assert first["verdict"].startswith("rejected: compile_error") and first["round"] == 0
    assert second["verdict"].startswith("accepted") and second["round"] == 1
    repair_prompt = llm_env.requests[1].body["messages"][-1]["content"]
    assert "template line" in repair_prompt and "this line is not C++" in repair_prompt
    assert measured_in(config, second["variant"]) >= 1


@pytest.mark.parametrize(("reply", "reason"), [
    (Reply("Use double buffering and bigger tiles; that should help."), "cpp"),
    (answer(lambda t: "#include <cstdlib>\n" + t), "screen"),
    (answer(lambda t: 'extern "C" int system(const char *);\n' + t), "screen"),
    (Huge(5 * 2**20), "exceeds"),
])
def test_answers_that_break_the_contract_or_the_screen_are_rejected_and_never_built(
        tmp_path: Path, llm_env: ScriptedServer, replayed, reply, reason):
    llm_env.push(reply)
    config = llm_config(tmp_path, repair_rounds=0)
    summary = optimize(config, backend=replayed())
    assert summary.trials == config.budget
    [record] = records(config)
    assert record["verdict"].startswith("rejected:") and reason in record["verdict"], record["verdict"]
    assert record["variant"] is None and not summary.lineage
    assert not built_sources_containing("<cstdlib>") and not built_sources_containing("int system(")


def test_a_hung_endpoint_and_server_errors(tmp_path: Path, llm_env: ScriptedServer, replayed):
    llm_env.push(Hang(10), Hang(10), Hang(10), Status(500), Status(503), answer(tagged("after-hangs")))
    config = llm_config(tmp_path, budget=16, max_calls=2, repair_rounds=0)
    summary = optimize(config, backend=replayed())
    assert summary.trials == config.budget
    hung, recovered = records(config)
    assert hung["verdict"].startswith("rejected:") and "timed out" in hung["verdict"]
    assert recovered["verdict"].startswith("accepted") and measured_in(config, recovered["variant"]) >= 1


@pytest.mark.e2e  # a whole run on the simulator, over the packaged templates that the rules are written against
def test_without_llm_settings_rules_rewrite_on_a_plateau(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("TUNER_LLM_MODEL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "a key for some other tool")  # a key alone never turns the LLM on
    config = RunConfig(op="softmax", shape=(256, 2048), dtype="float16", budget=20, runs_dir=tmp_path / "runs",
                       seed=1, jobs=1, plateau=5, plateau_eps=0.5)
    # one candidate at a time, and any 5 trials that do not halve the time are a plateau: the rules are asked
    # whatever order the seeded sampler (its studies named after the library's and the simulator's files) takes;
    # and rows of 2048 halves are wider than 2048 bytes, so accumulate-reduce applies to whatever rows
    # candidate is the best then (at 1024 columns a best with native compute and flags matched no rule)
    summary = optimize(config)
    assert summary.trials == config.budget
    made = [r for r in records(config) if r["verdict"].startswith("accepted")]
    assert made, [r["verdict"] for r in records(config)]
    assert {r["origin"] for r in records(config)} == {"rules"}
    assert all(r["files"].keys() == {"template"} for r in records(config))  # no prompt: nothing was sent
    before = len(records(config))
    again = optimize(RunConfig(**{**config.__dict__, "budget": 26}))  # resumed: rewrites load, rules not re-tried
    assert again.trials == 26
    # an accepted rewrite joins the search: measured by now (within the first 20 trials or not, as the seeded
    # sampler, whose studies are named after the library's and the simulator's files, happens to order them)
    assert any(measured_in(config, r["variant"]) >= 1 for r in made)
    assert {item["variant"] for item in again.lineage} >= {r["variant"] for r in made}
    repeated = [(r["parent"], r["proposal"]) for r in records(config)[before:]]
    assert not set(repeated) & {(r["parent"], r["proposal"]) for r in records(config)[:before]}
