"""The answer contract of an LLM rewrite: exactly one ```cpp block holding the complete new kernel template, at
most one ```yaml block declaring new knobs and constraints, and prose; anything else is refused with a reason.

Decisions, so that an answer is either clearly usable or clearly refused:
- the template block is labelled `cpp` or `c++` (models write both); any other label, or none, is refused,
  so a `diff`, a second language or an unlabelled fragment is never mistaken for the template;
- fences are lines of three or more backticks (as in CommonMark, up to three spaces of indent); a closing
  fence has at least as many backticks as its opening one; `~~~` fences are not recognised;
- the yaml block may declare `knobs` (int ranges or categorical choices, optionally `structural: true`) and
  `constraints` (`expr` in the search-space expression language, and `why`); a new knob may not take a name the
  run already uses (`reserved`: the template's variables, the run's context names, the expression functions, the
  parent's knobs), nor a keyword;
- the block is read within the bounds of YAML from outside the package (`load_yaml`: its size, nesting, no
  aliases) and its expressions are parsed within the expression language's bounds (length, nodes, depth; their
  constant parts are evaluated then, so `9**9**9 > k` is refused here), each breach a one-line refusal.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from tuner.space.apis import names as api_names
from tuner.space.expr import FUNCTIONS, ExpressionError, parse
from tuner.space.spaces import SpaceError, load_yaml

CODE_LANGUAGES = ("cpp", "c++")
YAML_LANGUAGES = ("yaml", "yml")
# names every template or expression already has: the renderer's variables, the run context's common names
# (its API availability names too) and the expression language's functions
RESERVED_NAMES = frozenset({"kernel_name", "T", "dtype", "tiling_struct", "rows", "cols", "dtype_bytes",
                            "vector_cores", "ub_bytes", "ub_api_bytes", "soc_family", *FUNCTIONS, *api_names()})

_OPEN = re.compile(r"^ {0,3}(`{3,})([^`]*)$")
_CLOSE = re.compile(r"^ {0,3}(`{3,})\s*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT_KEYS = frozenset({"type", "low", "high", "step"})
_CATEGORICAL_KEYS = frozenset({"type", "choices", "structural"})


class ContractError(ValueError):
    """An answer that breaks the contract; its message is the one-line reason recorded with the proposal."""


@dataclass(frozen=True)
class Answer:
    """A well-formed answer: the new template, the new knobs' YAML (or None) and the model's prose."""

    template: str
    knobs_yaml: str | None
    prose: str


@dataclass(frozen=True)
class _Block:
    language: str
    body: str
    line: int


def _split(text: str) -> tuple[list[_Block], str]:
    """The fenced blocks of `text` and the prose outside them."""
    blocks: list[_Block] = []
    prose: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = _OPEN.match(lines[i])
        if not opening:
            prose.append(lines[i])
            i += 1
            continue
        ticks, info = len(opening[1]), opening[2].strip()
        language = info.split()[0].lower() if info else ""
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines):
            closing = _CLOSE.match(lines[i])
            if closing and len(closing[1]) >= ticks:
                break
            body.append(lines[i])
            i += 1
        else:
            raise ContractError(f"unterminated ```{language} block opened on line {start + 1}")
        blocks.append(_Block(language, "\n".join(body) + "\n", start + 1))
        i += 1
    return blocks, "\n".join(prose).strip()


def parse_answer(text: str, reserved: Collection[str] = ()) -> Answer:
    """The answer in `text`, or ContractError naming the first way it breaks the contract; `reserved` names
    the parent's knobs and the run's context names a new knob may not shadow (on top of RESERVED_NAMES)."""
    blocks, prose = _split(text)
    for block in blocks:
        if not block.language:
            raise ContractError(f"a fenced block without a language on line {block.line} (the template is "
                                "```cpp, new knobs are ```yaml)")
        if block.language not in CODE_LANGUAGES + YAML_LANGUAGES:
            raise ContractError(f"a ```{block.language} block on line {block.line}: only one ```cpp block and at "
                                "most one ```yaml block are allowed")
    code = [b for b in blocks if b.language in CODE_LANGUAGES]
    knobs = [b for b in blocks if b.language in YAML_LANGUAGES]
    if not code:
        raise ContractError("no ```cpp block with the kernel template (the answer holds no code)")
    if len(code) > 1:
        raise ContractError(f"{len(code)} ```cpp blocks; the answer must hold exactly one, the complete template")
    if len(knobs) > 1:
        raise ContractError(f"{len(knobs)} ```yaml blocks; at most one may declare new knobs")
    if not code[0].body.strip():
        raise ContractError("the ```cpp block is empty")
    knobs_yaml = knobs[0].body if knobs else None
    if knobs_yaml is not None:
        check_knobs_yaml(knobs_yaml, reserved)
    return Answer(code[0].body, knobs_yaml, prose)


def check_knobs_yaml(text: str, reserved: Collection[str] = ()) -> None:
    """Raise ContractError unless `text` is a mapping of `knobs` and/or `constraints` in the search-space form."""
    if not text.strip():
        raise ContractError("the ```yaml block is empty")
    try:
        raw = load_yaml(text, "the ```yaml block")
    except SpaceError as exc:
        raise ContractError(str(exc)) from None
    if not isinstance(raw, Mapping):
        raise ContractError("the ```yaml block must be a mapping with 'knobs' and/or 'constraints'")
    unknown = sorted(str(k) for k in raw if k not in ("knobs", "constraints"))
    if unknown:
        raise ContractError(f"the ```yaml block has unknown key(s) {', '.join(unknown)} (only knobs, constraints)")
    knobs, constraints = raw.get("knobs") or {}, raw.get("constraints") or []
    if not knobs and not constraints:
        raise ContractError("the ```yaml block declares no knobs and no constraints")
    if not isinstance(knobs, Mapping):
        raise ContractError("'knobs' in the ```yaml block must map knob names to their declarations")
    taken = RESERVED_NAMES | set(reserved)
    for name, declaration in knobs.items():
        _check_knob(name, declaration, taken)
    if not isinstance(constraints, list):
        raise ContractError("'constraints' in the ```yaml block must be a list of {expr, why}")
    for index, item in enumerate(constraints, 1):
        _check_constraint(index, item)


def _check_knob(name: object, raw: object, taken: Collection[str]) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ContractError(f"knob name {name!r} is not an identifier")
    if keyword.iskeyword(name) or name.lower() in ("true", "false", "none"):
        raise ContractError(f"knob name '{name}' is a keyword")
    if name in taken:
        raise ContractError(f"knob '{name}' shadows a name the run already has")
    if not isinstance(raw, Mapping):
        raise ContractError(f"knob '{name}' must be a mapping with its type")
    kind = raw.get("type")
    if kind == "int":
        _check_keys(name, raw, _INT_KEYS)
        for bound in ("low", "high"):
            if bound not in raw:
                raise ContractError(f"int knob '{name}' needs '{bound}'")
            _check_bound(name, bound, raw[bound])
        step = raw.get("step", 1)
        if not _is_int(step) or step < 1:
            raise ContractError(f"int knob '{name}': step must be a positive integer")
    elif kind == "categorical":
        _check_keys(name, raw, _CATEGORICAL_KEYS)
        choices = raw.get("choices")
        if not isinstance(choices, list) or not choices or not all(_is_int(c) or isinstance(c, str) for c in choices):
            raise ContractError(f"categorical knob '{name}' needs a non-empty list of int or string choices")
        if len(set(choices)) != len(choices):
            raise ContractError(f"categorical knob '{name}' repeats a choice")
        if not isinstance(raw.get("structural", False), bool):
            raise ContractError(f"knob '{name}': structural must be true or false")
    else:
        raise ContractError(f"knob '{name}' has type {kind!r} (int or categorical)")


def _check_keys(name: str, raw: Mapping[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(str(k) for k in raw if k not in allowed)
    if unknown:
        detail = " (an int range cannot be structural; list its choices)" if "structural" in unknown else ""
        raise ContractError(f"knob '{name}' has unknown key(s) {', '.join(unknown)}{detail}")


def _check_bound(name: str, bound: str, value: object) -> None:
    if _is_int(value):
        return
    if not isinstance(value, str):
        raise ContractError(f"int knob '{name}': {bound} must be an integer or an expression")
    try:
        parse(value)
    except ExpressionError as exc:
        raise ContractError(f"int knob '{name}': {bound}: {exc}") from None


def _check_constraint(index: int, item: object) -> None:
    if not isinstance(item, Mapping) or set(item) != {"expr", "why"}:
        raise ContractError(f"constraint {index} must be a mapping with exactly 'expr' and 'why'")
    expr, why = item["expr"], item["why"]
    if not isinstance(expr, str) or not expr.strip():
        raise ContractError(f"constraint {index}: expr must be a non-empty string")
    if not isinstance(why, str) or not why.strip():
        raise ContractError(f"constraint {index}: why must say why it exists")
    try:
        parse(expr)
    except ExpressionError as exc:
        raise ContractError(f"constraint {index}: {exc}") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
