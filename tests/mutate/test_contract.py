"""The answer contract: one ```cpp template, at most one ```yaml block of new knobs, prose; all else refused."""

from __future__ import annotations

import pytest

from tuner.mutate.contract import RESERVED_NAMES, ContractError, check_knobs_yaml, parse_answer

TEMPLATE = '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void {{ kernel_name }}() {}\n'
KNOBS = """\
knobs:
  unroll: {type: categorical, choices: [1, 2, 4], structural: true}
  chunk: {type: int, low: 1, high: "min(cols, 64)", step: 1}
constraints:
  - {expr: "unroll == 1 or cols % 64 == 0", why: "whole chunks only"}
"""


def test_a_good_answer_gives_template_knobs_and_prose() -> None:
    text = f"I fused the loops.\n\n```cpp\n{TEMPLATE}```\n\n```yaml\n{KNOBS}```\nIt saves one pass.\n"
    answer = parse_answer(text)
    assert answer.template == TEMPLATE
    assert answer.knobs_yaml == KNOBS
    assert answer.prose == "I fused the loops.\n\n\nIt saves one pass."


def test_c_plus_plus_label_and_longer_fences_are_accepted() -> None:
    answer = parse_answer(f"````c++\n{TEMPLATE}// a ``` inside\n````\n")
    assert answer.template == TEMPLATE + "// a ``` inside\n"
    assert answer.knobs_yaml is None and answer.prose == ""


@pytest.mark.parametrize(("text", "reason"), [
    ("Just make the tiles bigger; that should help.", "no ```cpp block"),
    (f"```cpp\n{TEMPLATE}```\n```cpp\n{TEMPLATE}```\n", "2 ```cpp blocks"),
    (f"```cpp\n{TEMPLATE}```\n```python\nprint(1)\n```\n", "a ```python block on line 5"),
    (f"```\n{TEMPLATE}```\n", "without a language"),
    ("```diff\n-a\n+b\n```\n", "a ```diff block"),
    (f"Here:\n```cpp\n{TEMPLATE}", "unterminated ```cpp block opened on line 2"),
    ("```cpp\n\n   \n```\n", "the ```cpp block is empty"),
    (f"```cpp\n{TEMPLATE}```\n```yaml\n{KNOBS}```\n```yml\n{KNOBS}```\n", "2 ```yaml blocks"),
    (f"```cpp\n{TEMPLATE}```\n```yaml\n```\n", "the ```yaml block is empty"),
    ("inline ```cpp int x; ``` only", "no ```cpp block"),
])
def test_answers_off_the_contract_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ContractError, match=reason.replace("+", r"\+")):
        parse_answer(text)


@pytest.mark.parametrize(("yaml_text", "reason"), [
    ("knobs: [\n", "not valid YAML"),
    ("- a\n- b\n", "must be a mapping"),
    ("derived: {x: 1}\n", "unknown key.*derived"),
    ("knobs: {}\nconstraints: []\n", "declares no knobs and no constraints"),
    ("knobs: [a, b]\n", "must map knob names"),
    ("knobs:\n  rows: {type: int, low: 1, high: 4}\n", "knob 'rows' shadows"),
    ("knobs:\n  ceil_div: {type: int, low: 1, high: 4}\n", "knob 'ceil_div' shadows"),
    ("knobs:\n  lambda: {type: int, low: 1, high: 4}\n", "is a keyword"),
    ("knobs:\n  'bad-name': {type: int, low: 1, high: 4}\n", "not an identifier"),
    ("knobs:\n  x: {type: float, low: 1, high: 4}\n", "type 'float'"),
    ("knobs:\n  x: {type: int, low: 1}\n", "needs 'high'"),
    ("knobs:\n  x: {type: int, low: 1, high: 4, structural: true}\n", "cannot be structural"),
    ("knobs:\n  x: {type: int, low: 1.5, high: 4}\n", "integer or an expression"),
    ("knobs:\n  x: {type: int, low: 1, high: 4, step: 0}\n", "step must be a positive"),
    ("knobs:\n  x: {type: int, low: 1, high: \"__import__('os').getcwd()\"}\n", "only calls to"),
    ("knobs:\n  x: {type: categorical, choices: []}\n", "non-empty list"),
    ("knobs:\n  x: {type: categorical, choices: [1.5, 2]}\n", "non-empty list"),
    ("knobs:\n  x: {type: categorical, choices: [1, 1]}\n", "repeats a choice"),
    ("knobs:\n  x: {type: categorical, choices: [1], structural: maybe}\n", "structural must be"),
    ("knobs:\n  x: 3\n", "must be a mapping with its type"),
    ("constraints: {expr: x}\n", "must be a list"),
    ("constraints:\n  - {expr: 'x > 1'}\n", "exactly 'expr' and 'why'"),
    ("constraints:\n  - {expr: 'x > 1', why: ''}\n", "why must say"),
    ("constraints:\n  - {expr: 'lambda: 1', why: 'w'}\n", "constraint 1: .*Lambda is not allowed"),
    ("constraints:\n  - {expr: 'x.__class__', why: 'w'}\n", "Attribute is not allowed"),
])
def test_bad_knob_declarations_are_refused(yaml_text: str, reason: str) -> None:
    with pytest.raises(ContractError, match=reason):
        check_knobs_yaml(yaml_text)
    with pytest.raises(ContractError, match=reason):
        parse_answer(f"```cpp\n{TEMPLATE}```\n```yaml\n{yaml_text}```\n")


def test_a_new_knob_may_not_take_a_reserved_name() -> None:
    check_knobs_yaml(KNOBS, reserved={"buffer_num"})
    with pytest.raises(ContractError, match="knob 'unroll' shadows"):
        check_knobs_yaml(KNOBS, reserved={"unroll"})
    assert {"kernel_name", "T", "dtype", "tiling_struct", "ub_bytes", "align_up"} <= RESERVED_NAMES


@pytest.mark.parametrize(("yaml_text", "reason"), [
    ("constraints:\n  - {expr: '9**9**9 > cols', why: w}\n", "exponent 387420489 exceeds the limit of 4096"),
    ("constraints:\n  - {expr: '" + "1+" * 30000 + "1 > cols', why: w}\n", "longer than the limit of 2000 characters"),
    ("constraints:\n  - {expr: \"'a' * 10**9 == x\", why: w}\n", "over the limit of 10000"),
    ("constraints:\n  - {expr: '" + "-" * 1500 + "cols > 1', why: w}\n", "nested more than 100 levels"),
    ("knobs:\n  x: {type: int, low: 1, high: '2 ** 10000'}\n", "exponent 10000 exceeds the limit of 4096"),
    ("knobs:\n  x: " + "[" * 5000 + "]" * 5000 + "\n", "YAML nested more than 32 levels deep"),
    ("knobs:\n  x: &a {type: categorical, choices: [1]}\n  y: *a\n", r"YAML aliases \(\*a\) are not allowed"),
    ("constraints:\n  - {expr: 'cols > 1', why: 2001-13-45}\n", r"not valid YAML \(month must be in 1..12\)"),
])
def test_a_yaml_block_beyond_the_bounds_is_refused_in_one_line(yaml_text: str, reason: str) -> None:
    for check in (lambda: check_knobs_yaml(yaml_text), lambda: parse_answer(f"```cpp\n{TEMPLATE}```\n```yaml\n"
                                                                            f"{yaml_text}```\n")):
        with pytest.raises(ContractError, match=reason) as caught:
            check()
        assert "\n" not in str(caught.value) and len(str(caught.value)) < 300
