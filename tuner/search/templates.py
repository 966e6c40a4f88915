"""Rendering kernel templates: a sandboxed Jinja environment, the tiling struct, and errors with file:line."""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from tuner.errors import UsageError

C_TYPES = {"float16": "half", "float32": "float", "bfloat16": "bfloat16_t"}


class TemplateError(UsageError):
    """Raised when a template does not render; the message names the template file and line."""


def tiling_struct_source(struct: str, fields: list[str] | tuple[str, ...]) -> str:
    """C++ for the tiling struct (all uint32_t, in order) and `LoadTiling`, which copies it from GM."""
    members = "\n".join(f"    uint32_t {name};" for name in fields)
    return (
        f"struct {struct} {{\n{members}\n}};\n\n"
        f"__aicore__ inline {struct} LoadTiling(GM_ADDR tiling)\n{{\n"
        f"    {struct} t;\n"
        "    const __gm__ uint32_t *src = reinterpret_cast<const __gm__ uint32_t *>(tiling);\n"
        "    uint32_t *dst = reinterpret_cast<uint32_t *>(&t);\n"
        f"    for (uint32_t i = 0; i < sizeof({struct}) / sizeof(uint32_t); ++i) {{\n"
        "        dst[i] = src[i];\n"
        "    }\n"
        "    return t;\n"
        "}\n"
    )


def _environment(search_dir: Path | None = None) -> SandboxedEnvironment:
    """The sandbox; with `search_dir`, `{% extends "x.j2" %}` finds x.j2 in that directory (and nowhere else)."""
    loader = jinja2.FileSystemLoader(str(search_dir)) if search_dir is not None else None
    return SandboxedEnvironment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                keep_trailing_newline=True, autoescape=False, loader=loader)


def _template_line(exc: BaseException, name: str) -> int:
    line = getattr(exc, "lineno", None)
    if line:
        return int(line)
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == name and frame.lineno:
            return frame.lineno
    return 0


def render_text(text: str, name: str, variables: Mapping[str, Any], search_dir: Path | None = None) -> str:
    """Render template `text` (called `name` in errors) with `variables`; TemplateError says file:line. A
    child template (a rewrite) extends a parent that lies in `search_dir`."""
    env = _environment(search_dir)
    try:
        template = env.from_string(text)
        template.filename = name
        template.name = name
        return template.render(**variables)
    except jinja2.TemplateError as exc:
        line = _template_line(exc, name)
        raise TemplateError(f"{name}:{line}: template does not render: {exc.message or exc}") from None
    except Exception as exc:  # a filter or expression in the template failed
        line = _template_line(exc, "<template>")
        raise TemplateError(f"{name}:{line}: template does not render: {exc}") from None


def kernel_variables(*, kernel: str, dtype: str, struct: str, tiling_fields: list[str] | tuple[str, ...],
                     structural: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a kernel template sees: its entry's name, the dtype, the tiling struct, the operator's options and
    the structural knob values."""
    return {"kernel_name": kernel, "T": C_TYPES[dtype], "dtype": dtype,
            "tiling_struct": tiling_struct_source(struct, tiling_fields), **(options or {}), **structural}


def render_kernel(template: Path, *, kernel: str, dtype: str, struct: str, tiling_fields: list[str] | tuple[str, ...],
                  structural: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """The Ascend C source of one variant for a dtype, the operator's options and its structural knob values."""
    if not template.is_file():
        raise TemplateError(f"{template}: template file does not exist")
    variables = kernel_variables(kernel=kernel, dtype=dtype, struct=struct, tiling_fields=tiling_fields,
                                 structural=structural, options=options)
    return render_text(template.read_text(), str(template), variables, search_dir=template.parent)
