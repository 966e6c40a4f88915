"""The contract every rewriter meets: a mutation context in, proposals of new kernel templates out; and a
generation context in, a whole kernel template out, for a task the tuner could not make a kernel of itself."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

TRIGGERS = ("compile_error", "render_error", "wrong_result", "fault", "plateau", "generate")
ORIGINS = ("llm", "rules")


@dataclass
class MutationContext:
    """What a rewriter is told about one variant of a run: the template, the candidate that failed or the best
    one so far, and the feedback that explains it — never anything outside the kernel template."""

    trigger: str  # one of TRIGGERS
    op: str
    shape: tuple[int, ...]
    dtype: str
    soc: str
    variant: str  # the parent variant's name
    template: str  # the parent's kernel template (Jinja over Ascend C), the only thing a rewrite may change
    template_name: str  # e.g. "softmax/rows/kernel.cpp.j2", for the model's orientation
    knobs: dict[str, Any]  # the candidate's knob values (the failing one, or the best one on a plateau)
    knob_space: dict[str, Any]  # the variant's knob declarations as in its search-space YAML
    rendered: str | None = None  # the candidate's rendered source
    diagnostics: str = ""  # compiler output mapped to template lines, the fault line, or the first mismatches
    profile: dict[str, Any] = field(default_factory=dict)  # pipe ratios, GM bytes, time, roofline gap
    soc_limits: dict[str, Any] = field(default_factory=dict)  # vector cores, usable UB bytes, family, bandwidth
    best_us: float | None = None
    roofline_us: float | None = None
    round: int = 0  # 0 for a first proposal, k for the k-th repair of a proposal that failed
    options: dict[str, Any] = field(default_factory=dict)  # the operator's own options (eps, approximate, ...)


@dataclass
class GenerationContext:
    """What a writer of a whole kernel is told about a user's task (tuner/graph/) the tuner could not make a
    kernel of, or whose generated kernel failed: the task, why, the kernel's interface, and in a later round its
    previous answer with what went wrong."""

    op: str
    shape: tuple[int, ...]
    dtype: str
    soc: str
    source_name: str  # the task file's name
    source: str  # the task file: the PyTorch module, get_inputs() and get_init_inputs()
    refusal: str  # why the tuner has no kernel of its own: capture's or lowering's one line, or its draft's failure
    ir: str | None  # the kernel IR the task was captured into, where it was
    kernel: str  # the entry's name
    tiling_struct: str  # the tiling struct's name
    args: list[dict[str, Any]]  # the entry's GM arguments in order: name, kind, and for a tensor its dtype, shape
    knob_space: dict[str, Any]  # the knobs the kernel has before the answer declares its own
    tiling: list[str]  # the tiling struct's fields before those of the knobs the answer declares
    names: dict[str, Any]  # the run's context: the names (and values) a knob's bounds and constraints may use
    checks: str  # how the outputs are checked
    draft: str | None = None  # the tuner's own template, where it generated one that failed
    template: str | None = None  # the previous answer's template (round > 0)
    trigger: str = "lowering"  # lowering, or the error class of the draft's or the previous answer's failure
    diagnostics: str = ""  # compiler output mapped to template lines, the fault line, or the first mismatches
    rendered: str | None = None  # the failing candidate's rendered source
    soc_limits: dict[str, Any] = field(default_factory=dict)
    round: int = 0  # 0 for the first answer, k for the k-th fix


@dataclass
class Proposal:
    """One proposed rewrite, or a rejected answer with its reason; `origin` never pretends a rule is an LLM."""

    origin: str  # "llm" or "rules"
    name: str  # short slug for the variant, e.g. "fold-reciprocal" or "llm-3"
    template: str | None  # the complete kernel template (or a child template that extends "parent.cpp.j2")
    knobs_yaml: str | None = None  # new knobs and constraints declared by the answer, as YAML text
    rationale: str = ""  # a rule's "applies when / expected effect", or the model's prose
    prompt: str | None = None
    response: str | None = None
    usage: dict[str, int] = field(default_factory=dict)  # prompt/completion/total tokens
    rejected: str | None = None  # why the answer was refused before anything was rendered (then template is None)
    extends_parent: bool = False  # the template is a child of the parent template (rules)


class Mutator(ABC):
    """A source of structural rewrites."""

    origin: str

    @abstractmethod
    def propose(self, context: MutationContext) -> list[Proposal]:
        """Proposals for `context`; an empty list when this mutator has nothing for it. Never raises for a bad
        answer or an unreachable endpoint: those become rejected proposals."""

    def generate(self, context: GenerationContext) -> list[Proposal]:
        """A whole kernel template for a task (`context`), as `propose` answers; a mutator that can only edit a
        template it is given (the rules) writes none."""
        return []
