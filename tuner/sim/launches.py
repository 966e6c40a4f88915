"""The <<<...>>> launch syntax of a host program, rewritten into calls of the simulator (tuner_sim/program.h) on the
same lines, as CANN's CPU-debug build has its compiler do; shared by whole-program builds and by a single kernel
taken out of a program."""

from __future__ import annotations

import re

from tuner.errors import UsageError

__all__ = ["PRELUDE", "launch_headers", "rewrite_launches"]

# Ahead of a rewritten source: the simulator's kernel API, ACL runtime and launch, with CANN's host API where the
# program includes it (its tiling code runs in the same program: TUNER_SIM_CANN_HOST); then the user's own lines,
# numbered as in their file.
PRELUDE = '#define TUNER_SIM_CANN_HOST 1\n#include "tuner_sim/program.h"\n#line 1 "{path}"\n'


def _blank(text: str) -> str:
    """`text` with comments and string and character literals replaced by spaces (newlines kept), so that a
    search for launch syntax and bracket matching see only code; offsets are those of `text`."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _match_forward(code: str, start: int, opening: str, closing: str) -> int:
    """Index of the bracket closing the one at `start`, or -1."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == opening:
            depth += 1
        elif code[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _kernel_before(code: str, end: int) -> int:
    """Start of the kernel expression (`name`, `ns::name`, `name<args>`) that ends just before `end`, or -1."""
    i = end - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    if i >= 0 and code[i] == ">":
        depth = 0
        while i >= 0:
            if code[i] == ">":
                depth += 1
            elif code[i] == "<":
                depth -= 1
                if depth == 0:
                    break
            i -= 1
        i -= 1
        while i >= 0 and code[i].isspace():
            i -= 1
    stop = i
    while i >= 0 and (code[i].isalnum() or code[i] in "_:"):
        i -= 1
    return i + 1 if i < stop else -1


def _split_top_level(code: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each comma-separated item of code[start:end], commas inside brackets not splitting."""
    items, depth, begin = [], 0, start
    for i in range(start, end):
        if code[i] in "([{":
            depth += 1
        elif code[i] in ")]}":
            depth -= 1
        elif code[i] == "," and depth == 0:
            items.append((begin, i))
            begin = i + 1
    if code[begin:end].strip():
        items.append((begin, end))
    return items


def rewrite_launches(text: str, path: str = "<source>") -> tuple[str, list[str]]:
    """`text` with each `kernel<<<cfg>>>(args)` replaced by `tuner_sim::launch("kernel", [&]() { kernel(args); },
    cfg)` on the same lines (a statement's line count is kept, so diagnostics and fault sites keep their lines);
    returns the new text and the kernels launched. UsageError names a launch that cannot be read."""
    code = _blank(text)
    pieces, kernels, pos = [], [], 0
    for m in re.finditer(r"<<<", code):
        if m.start() < pos:
            continue
        line = text.count("\n", 0, m.start()) + 1
        start = _kernel_before(code, m.start())
        cfg_end = code.find(">>>", m.end())
        paren = cfg_end + 3
        while cfg_end >= 0 and paren < len(code) and code[paren].isspace():
            paren += 1
        close = _match_forward(code, paren, "(", ")") if cfg_end >= 0 and code[paren:paren + 1] == "(" else -1
        if start < 0 or close < 0:
            raise UsageError(f"{path}:{line}: cannot read this <<<...>>> launch (expected "
                             "kernel<<<blockDim, l2ctrl, stream>>>(args...))")
        name_end = start + len(code[start:m.start()].rstrip())
        name = text[start:name_end]
        gap = text[name_end:m.start()].count("\n") + text[cfg_end + 3:paren].count("\n")
        label = re.sub(r"\s+", "", name)
        pieces.append(text[pos:start])
        pieces.append(f'tuner_sim::launch("{label}", [&]() TUNER_SIM_UNCHARGED {{ {name}({text[paren + 1:close]}); }}, '
                      f"{text[m.end():cfg_end]})" + "\n" * gap)
        kernels.append(label)
        pos = close + 1
    pieces.append(text[pos:])
    return "".join(pieces), kernels


def launch_headers(texts: list[str]) -> dict[str, str]:
    """The aclrtlaunch_<kernel>.h that CANN's build generates for each kernel (`__global__` function) defined in
    `texts`, by file name. Each declares the kernel as defined, and `uint32_t aclrtlaunch_<kernel>(blockDim,
    stream, args)` with every pointer parameter a `void*`, which launches it on the simulator; with
    `ACLRT_LAUNCH_KERNEL(kernel)` naming that function, as in CANN."""
    headers = {}
    for text in texts:
        code = _blank(text)
        for m in re.finditer(r"(\bextern\s+)?\b__global__\b[\w\s]*?\bvoid\s+(\w+)\s*\(", code):
            close = _match_forward(code, m.end() - 1, "(", ")")
            template = code[:m.start()].rstrip().endswith(">")  # CANN generates no launcher for a template
            if close < 0 or template or code[close + 1:].lstrip()[:1] != "{":
                continue
            name = m.group(2)
            params = [" ".join(text[a:b].split()) for a, b in _split_top_level(code, m.end(), close)]
            if params == ["void"]:
                params = []
            launcher, passed = ["uint32_t blockDim", "void* stream"], []
            for i, param in enumerate(params):
                found = re.search(r"(\w+)\s*$", param)
                arg = found.group(1) if found and found.start() > 0 else f"arg{i}"
                declared = param[:found.start()].strip() if found and found.start() > 0 else param
                pointer = "*" in declared or declared.split()[-1] == "GM_ADDR"
                launcher.append(f"void* {arg}" if pointer else f"{declared} {arg}")
                passed.append(f"({declared}){arg}" if pointer else arg)
            declaration = " ".join(text[m.start():close + 1].split())
            headers[f"aclrtlaunch_{name}.h"] = (
                "// Generated by tuner simulate, as CANN's build generates it for a kernel.\n"
                '#pragma once\n#include "tuner_sim/program.h"\n'
                "#ifndef ACLRT_LAUNCH_KERNEL\n#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func\n"
                f"#endif\n{declaration};\n"
                f"TUNER_SIM_UNCHARGED inline uint32_t aclrtlaunch_{name}({', '.join(launcher)}) {{\n"
                f'    return tuner_sim::launch("{name}", [&]() TUNER_SIM_UNCHARGED {{ {name}({", ".join(passed)}); }}, '
                "blockDim, nullptr, stream);\n}\n")
    return headers
