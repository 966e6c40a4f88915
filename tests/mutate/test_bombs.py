"""LLM answers built to exhaust the tuner — Jinja that loops, allocates, recurses or nests without end, a yaml block
whose expressions are too big to compute or too long to parse — served by the loopback server as rewrites and
driven through the real rewrite path (the answer contract, the template check, the screen, the space, the
render). Each is rejected with a one-line verdict, within seconds and without the tuner's memory growing; nothing
is accepted; and the run resumes, skipping a rewritten variant edited on disk to break a bound."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path

import optuna
import pytest
import yaml
from probes import peak_growth

from tuner.backends import make_backend
from tuner.data.socs import get_soc
from tuner.mutate.prompts import strip_line_labels
from tuner.ops import get_operator
from tuner.search.evaluate import RunInputs
from tuner.search.loop import RunConfig, optimize
from tuner.search.rewrites import RECORD_FILE, Rewriter, RewriteSettings, make_mutators, soc_limits
from tuner.space.spaces import load_space, run_context, with_rewrites

from .llm_server import Compute, ScriptedServer

optuna.logging.set_verbosity(optuna.logging.WARNING)
SHAPE, DTYPE = (16, 256), "float16"
TEMPLATE_BLOCK = re.compile(r"# Kernel template\n.*?```cpp\n(.*?)\n```", re.S)


def bomb_answer(jinja: str = "", knobs_yaml: str = "") -> Compute:
    """An answer holding the request's template with `jinja` first (before a skeleton's extends, where its output
    is rendered too), and `knobs_yaml` as its yaml block."""
    def make(body: dict) -> str:
        template = strip_line_labels(TEMPLATE_BLOCK.search(body["messages"][-1]["content"]).group(1)) + "\n"
        text = f"Faster.\n```cpp\n{jinja}\n{template}```\n"
        return text + (f"```yaml\n{knobs_yaml}```\n" if knobs_yaml else "")
    return Compute(make)


def constraint(expr: str) -> str:
    return f"constraints:\n  - {{expr: '{expr}', why: 'a bound'}}\n"


BOMBS: dict[str, tuple[Compute, str]] = {
    "triple loop of 1e5": (bomb_answer("{% for i in range(100000) %}{% for j in range(100000) %}{% for k in "
                                       "range(100000) %}{% endfor %}{% endfor %}{% endfor %}"), "loop iterations"),
    "'A' * 4e8": (bomb_answer("{% set s = 'A' * 400000000 %}"), "would make 400000000 characters"),
    "'x' * 10**9": (bomb_answer("// {{ 'x' * 10**9 }}"), "would make 1000000000 characters"),
    "recursive macro": (bomb_answer("{% macro f(n) %}{{ f(n) }}{% endmacro %}// {{ f(1) }}"), "recursion too deep"),
    "range(10**12)": (bomb_answer("{% for i in range(10**12) %}{% endfor %}"), "Range too big"),
    "for over 'A' * 1e6": (bomb_answer("{% for c in 'A' * 1000000 %}{% endfor %}"), "loop iterations"),
    "50 MB of output": (bomb_answer("{% for i in range(50000) %}// {{ 'x' * 1000 }}\n{% endfor %}"),
                        "the output passes the limit"),
    "center(10**9)": (bomb_answer("// {{ 'x'|center(10**9) }}"), "the center filter"),
    "3000 nested ifs": (bomb_answer("{% if 1 %}" * 3000 + "{% endif %}" * 3000), "nested too deeply to parse"),
    "9**9**9 > k": (bomb_answer(knobs_yaml=constraint("9**9**9 > cols")), "exponent 387420489"),
    "30000 1+": (bomb_answer(knobs_yaml=constraint("1+" * 30000 + "1 > cols")), "longer than the limit of 2000"),
    "deep yaml": (bomb_answer(knobs_yaml="knobs:\n  x: " + "[" * 5000 + "]" * 5000 + "\n"), "YAML nested"),
    # found by hand: a space of 500,000 points, each checked against hundreds of constraints, hangs as surely
    "400 constraints": (bomb_answer(knobs_yaml="constraints:\n" + "  - {expr: 'cols > 0', why: 'x'}\n" * 400),
                        "at most 4 and 16"),
    "12 knobs of 8": (bomb_answer(knobs_yaml="knobs:\n" + "".join(
        f"  k{i}: {{type: categorical, choices: [0, 1, 2, 3, 4, 5, 6, 7]}}\n" for i in range(12))), "at most 4 and 16"),
    "a knob of 1000 choices": (bomb_answer(knobs_yaml="knobs:\n  k: {type: categorical, choices: ["
                                          + ", ".join(map(str, range(1000))) + "]}\n"), "at most 8 choices"),
}


def config_in(tmp_path: Path) -> RunConfig:
    return RunConfig(op="softmax", shape=SHAPE, dtype=DTYPE, budget=2, runs_dir=tmp_path / "runs", seed=1, jobs=1,
                     rewrites=False)


@pytest.fixture(scope="module")
def inputs() -> RunInputs:
    return RunInputs(get_operator("softmax"), SHAPE, DTYPE)


@pytest.fixture
def ask(tmp_path: Path, inputs: RunInputs, llm_env: ScriptedServer) -> Callable[[Compute], list]:
    """Serve one answer to a plateau rewrite of the run's baseline variant, as the run would ask for it."""
    config = config_in(tmp_path)
    run_dir = config.runs_dir / config.run_name
    op, soc = get_operator("softmax"), get_soc(config.soc)
    space = with_rewrites(load_space("softmax"), run_dir / "variants")
    context = run_context(op, SHAPE, DTYPE, soc)
    settings = RewriteSettings(make_mutators(True, None, False, 20), repair_rounds=0)
    rewriter = Rewriter(space=space, context=context, inputs=inputs, backend=make_backend("sim", soc.name, 1),
                        run_dir=run_dir, settings=settings,
                        facts={"shape": SHAPE, "dtype": DTYPE, "soc": soc.name, "soc_limits": soc_limits(soc, context)})
    entry, params = space.baseline(context)

    def serve(reply: Compute) -> list:
        llm_env.push(reply)
        return rewriter.improve(space.variant(entry.variant), params, {"time_us": 10.0}, 10.0, 1.0)
    return serve


def verdicts(run_dir: Path) -> list[str]:
    return [json.loads(line)["verdict"] for line in (run_dir / RECORD_FILE).read_text().splitlines()]


@pytest.mark.parametrize("bomb", BOMBS)
def test_a_bomb_is_rejected_in_one_line_within_seconds_and_bounded_memory(bomb: str, ask, tmp_path: Path):
    reply, reason = BOMBS[bomb]
    start = time.monotonic()
    with peak_growth() as grown:
        made = ask(reply)
    assert time.monotonic() - start < 15
    assert grown[0] < 100 << 20, f"the tuner grew by {grown[0] >> 20} MiB"
    run_dir = config_in(tmp_path).runs_dir / config_in(tmp_path).run_name
    [verdict] = verdicts(run_dir)
    assert not made and verdict.startswith("rejected: ") and reason in verdict, verdict
    assert len(verdict) <= 501 and "\n" not in verdict
    assert not list(run_dir.glob("variants/*"))  # nothing accepted, nothing left half-made


def test_the_run_resumes_past_bombs_and_a_variant_edited_to_break_a_bound(ask, tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture):
    for bomb in ("triple loop of 1e5", "9**9**9 > k"):
        assert not ask(BOMBS[bomb][0])
    config = config_in(tmp_path)
    run_dir = config.runs_dir / config.run_name
    edited = run_dir / "variants" / "rows+llm-9"
    edited.mkdir()
    parent = load_space("softmax").variant("rows")
    space = {k: v for k, v in parent.raw.items() if k != "template"}
    space["constraints"] = [*space["constraints"], {"expr": "k > " + "1+" * 30000 + "1", "why": "edited"}]
    (edited / "variant.yaml").write_text(yaml.safe_dump({"name": edited.name, "parent": "rows", "origin": "llm",
                                                         "proposal": "llm-9", "rationale": "", "space": space}))
    (edited / "kernel.cpp.j2").write_text(parent.template.read_text())
    with caplog.at_level(logging.WARNING, logger="tuner.space.spaces"):
        summary = optimize(config)
    assert summary.trials == config.budget and not summary.lineage
    [warning] = [r.getMessage() for r in caplog.records if r.name == "tuner.space.spaces"]
    assert warning.startswith("warning: skipping the rewritten variant rows+llm-9: ") and "\n" not in warning
    assert "longer than the limit of 2000 characters" in warning
    assert [v.split(":")[0] for v in verdicts(run_dir)] == ["rejected", "rejected"]
