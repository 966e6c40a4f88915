"""The distrust layer for rewritten kernels: a static screen of templates and sources before anything is
rendered or compiled, and a check of what a compiled kernel object links against on the simulator.

The static screen is a lexer, not a compiler: it rejects what would let a kernel reach outside its sandbox in a
way that its compiled symbols cannot show — any `#include` but "kernel_operator.h" (a header can read any file
into the compiler's diagnostics), inline assembly (raw system calls name no symbol), `extern` declarations other
than the kernel entry, pragmas other than loop hints, `_Pragma`, `##` token pasting (it builds names such as `asm`
that the screen never sees), raw string literals and backslashes outside literals (they make a lexer's view of
the text differ from the compiler's), `__has_include` probes, and for templates Jinja `include`, and `import`,
`from` or `extends` of anything but a file of the kernel library named as a constant ("_lib/<file>.j2", read-only)
or, for `extends`, "parent.cpp.j2". `__builtin_` functions are allowed: those that become
library calls (`__builtin_printf`, `__builtin_malloc`) are caught by the symbol check, which is the authoritative
one, as is screening the rendered source rather than its template (Jinja can assemble any text).

The symbol check (`check_symbols`) reads the compiled kernel's undefined symbols with nm and allows only the
simulator runtime's own exports (less its host-side entry points) and the few C++ runtime symbols that g++ emits
for ordinary kernels (`CXX_RUNTIME`). The headers make the C library visible to every kernel (`fopen`,
`std::system` need no declaration), so this check, not the screen, is what keeps them out. Neither is a sandbox
against a kernel that forges function pointers from memory (the red team walked its own ELF image to libc's
`system`): what contains such a kernel is the OS sandbox (tuner/sandbox/) that every kernel an LLM wrote is
built and run in; nm reads such a kernel's object there too.
"""

from __future__ import annotations

import bisect
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from itertools import takewhile
from pathlib import Path

import jinja2
from jinja2 import nodes

from tuner.errors import CompileError, ToolchainError
from tuner.processes import Limits, run_limited
from tuner.sandbox import Jail
from tuner.sim.build import runtime_dir
from tuner.space.render import LIBRARY_PREFIX, library_files

INCLUDE = "kernel_operator.h"
NM_LIMITS = Limits(wall_s=60, cpu_s=60, memory_bytes=2 << 30)
PARENT_TEMPLATE = "parent.cpp.j2"
# Directives a kernel may use besides `#include "kernel_operator.h"` and loop-hint pragmas.
DIRECTIVES = frozenset({"define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "error", "warning"})
# Directive names that are checked wherever a `#` precedes them, not only at the start of a line.
GUARDED_DIRECTIVES = frozenset({"include", "include_next", "import", "pragma", "line", "embed", "ident", "sccs",
                                "assert", "unassert"})
# `#pragma unroll [N]` (bisheng), `#pragma GCC unroll N` and `#pragma GCC ivdep` only hint at loops (<n>: a number).
LOOP_PRAGMAS = (["unroll"], ["unroll", "<n>"], ["GCC", "unroll", "<n>"], ["GCC", "ivdep"])
BANNED_NAMES = {
    "asm": "inline assembly", "__asm": "inline assembly", "__asm__": "inline assembly",
    "_Pragma": "the _Pragma operator", "__has_include": "probing for files", "__has_include_next": "probing for files",
    # attributes place code and data where the loader runs or executes them: section(".text") shellcode,
    # constructors, ifunc resolvers, aliases
    "__attribute__": "attributes", "__attribute": "attributes", "__declspec": "attributes",
    "gnu": "GNU attributes", "__gnu__": "GNU attributes",
}
ENTRY_QUALIFIERS = frozenset({"__global__", "__aicore__"})
# C++ runtime symbols a kernel object may reference besides the simulator's own, and why g++ emits them.
CXX_RUNTIME = {
    "memcpy": "copies of structs and arrays",
    "memmove": "overlapping copies",
    "memset": "zeroing of structs and arrays",
    "__cxa_guard_acquire": "function-local statics with a dynamic initializer",
    "__cxa_guard_release": "function-local statics with a dynamic initializer",
    "__cxa_guard_abort": "function-local statics whose initializer throws",
    "__gxx_personality_v0": "unwinding: a fatal fault ends a block by throwing through the kernel (every template)",
    "_Unwind_Resume": "unwinding through the kernel's frames (every template)",
    "_ZSt19uncaught_exceptionsv": "std::uncaught_exceptions(), which TQue's leak check calls (queue templates)",
    "__stack_chk_fail": "the stack protector, on by default in Ubuntu's and Fedora's g++",
}
# Runtime exports that only a host program calls: the driver's main (it writes the output files it is told to),
# the launch options and kernel launch (report and trace paths), and the file openers. A kernel has no use for them.
_HOST_ONLY = re.compile(r"main$|_ZN9tuner_sim(14launch_options|10run_kernel|11open_output|14open_output_fd|"
                        r"10open_input)E")

_JINJA = re.compile(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
_JINJA_KERNEL_NAME = re.compile(r"\{\{-?[ \t]*kernel_name[ \t]*-?\}\}")
_TEMPLATE_ENTRY = "tuner_kernel_name_"  # what `{{ kernel_name }}` stands for while a template is screened
_TEMPLATE_VALUE = "tuner_jinja_value_"  # any other `{{ ... }}`
_SPLICE = re.compile(r"\\[ \t\f\v]*\n")
_LEX = re.compile(r"""
    (?P<space>[ \t\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>(?:u8|[uUL])?R")
  | (?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
  | (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*')
  | (?P<number>\.?[0-9](?:[eEpP][+-]|'(?=[0-9A-Za-z_])|[0-9A-Za-z_.])*)
  | (?P<ident>[A-Za-z_$][0-9A-Za-z_$]*)
  | (?P<punct>%:%:|\#\#|%:|\#|.)
""", re.S | re.X)


class ScreenError(CompileError):
    """Raised when untrusted kernel code is refused before it is compiled or linked; the one-line reason names
    the offending line or symbols. A CompileError, so a refused candidate is recorded like one that did not build."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, reason)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int
    starts_line: bool  # first token of its logical line (comments count as space)


class _Source:
    """Source text lexed the way the preprocessor sees it: lines spliced, comments and literals whole."""

    def __init__(self, text: str, shown: str | None = None) -> None:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = (text if shown is None else shown.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
        pieces, splices, offset = [], [], 0  # splices: where in the spliced text each removed line break was
        for m in _SPLICE.finditer(text):
            pieces.append(text[offset:m.start()])
            splices.append((splices[-1] if splices else 0) + len(pieces[-1]))
            offset = m.end()
        pieces.append(text[offset:])
        spliced = "".join(pieces)
        self.tokens: list[_Token] = []
        at_line_start = True
        newlines = 0
        for m in _LEX.finditer(spliced):
            kind = m.lastgroup or "punct"
            line = 1 + newlines + bisect.bisect_right(splices, m.start())
            newlines += m.group().count("\n")
            if kind == "newline":
                at_line_start = True
            if kind in ("space", "comment", "newline"):
                continue
            self.tokens.append(_Token(kind, m.group(), line, at_line_start))
            at_line_start = False

    def fail(self, token: _Token, why: str) -> ScreenError:
        """A ScreenError naming `token`'s line and quoting it."""
        quoted = self.lines[token.line - 1].strip() if token.line <= len(self.lines) else ""
        return ScreenError(f"line {token.line}: {why}" + (f" ({quoted[:100]})" if quoted else ""))


def _check_directive(src: _Source, i: int) -> None:
    """Check the `#` at token `i`: a directive at the start of a line, or a guarded directive name anywhere."""
    hash_token = src.tokens[i]
    rest = list(takewhile(lambda t: not t.starts_line, src.tokens[i + 1:]))
    name = rest[0].text if rest and rest[0].kind == "ident" else None
    if name == "include":
        if [t.text for t in rest[1:]] != [f'"{INCLUDE}"']:
            raise src.fail(hash_token, f'a kernel may include only "{INCLUDE}"')
    elif name == "pragma":
        if [t.text if t.kind != "number" else "<n>" for t in rest[1:]] not in LOOP_PRAGMAS:
            raise src.fail(hash_token, "only loop-hint pragmas (#pragma unroll, #pragma GCC unroll|ivdep) are allowed")
    elif name in GUARDED_DIRECTIVES:
        raise src.fail(hash_token, f"#{name} is not allowed in a kernel")
    elif hash_token.starts_line and rest and name not in DIRECTIVES:
        raise src.fail(hash_token, "this preprocessor directive is not allowed in a kernel (only #include "
                                   f'"{INCLUDE}", #define, #undef, #if and its kin, #error, #warning)')


def _check_extern(src: _Source, i: int, entry: str, entry_shown: str) -> None:
    """`extern` is allowed only as `extern "C" __global__ __aicore__ void <entry>(`."""
    words = [t.text for t in src.tokens[i + 1:i + 7]]
    if not (words[:1] == ['"C"'] and set(words[1:3]) == ENTRY_QUALIFIERS and words[3:6] == ["void", entry, "("]):
        raise src.fail(src.tokens[i], f'extern declarations are not allowed, except the kernel entry extern "C" '
                                      f"__global__ __aicore__ void {entry_shown}(...)")


def _screen_cpp(text: str, entry: str, shown: str | None = None, entry_shown: str | None = None) -> None:
    """The checks shared by templates and rendered sources; `entry` is the name the kernel entry must have;
    errors quote `shown` (the text before Jinja was taken out) and call the entry `entry_shown`."""
    src = _Source(text, shown)
    for i, token in enumerate(src.tokens):
        if token.kind == "raw":
            raise src.fail(token, "raw string literals are not allowed in a kernel")
        if token.text in ("##", "%:%:"):
            raise src.fail(token, "token pasting (##) is not allowed in a kernel: it makes names the screen cannot see")
        if token.text == "\\":
            raise src.fail(token, "a backslash outside a literal (a universal character name) is not allowed")
        if token.text in ("#", "%:"):
            _check_directive(src, i)
        elif token.kind == "ident" and token.text in BANNED_NAMES:
            raise src.fail(token, f"{BANNED_NAMES[token.text]} ({token.text}) is not allowed in a kernel")
        elif token.kind == "ident" and token.text == "extern":
            _check_extern(src, i, entry, entry_shown or entry)


def screen_source(source: str, kernel_name: str) -> None:
    """Refuse a rendered kernel source (the authoritative static check) with a ScreenError naming the line."""
    _screen_cpp(source, kernel_name)


def _blank_jinja(match: re.Match) -> str:
    """What a Jinja construct stands for while the C++ around it is screened: its newlines, or a name."""
    text = match.group()
    newlines = "\n" * text.count("\n")
    if _JINJA_KERNEL_NAME.fullmatch(text):
        return _TEMPLATE_ENTRY
    return (_TEMPLATE_VALUE if text.startswith("{{") else "") + newlines


def screen_template(text: str) -> None:
    """Refuse a kernel template as written: Jinja that reads other templates, and the C++ checks of
    `screen_source` over its text with the Jinja taken out (every branch is screened)."""
    try:
        tree = jinja2.Environment().parse(text)
        list(tree.find_all(nodes.Node))  # the walks below recurse as deep as the template nests
    except jinja2.TemplateSyntaxError as exc:
        raise ScreenError(f"line {exc.lineno}: the template does not parse: {exc.message}") from None
    except RecursionError:
        raise ScreenError("the template nests too deeply to be screened") from None
    library = set(library_files())
    for node in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        kind = {nodes.Include: "include", nodes.Import: "import", nodes.FromImport: "from",
                nodes.Extends: "extends"}[type(node)]
        name = node.template.value if isinstance(node.template, nodes.Const) else None
        if kind == "extends" and name == PARENT_TEMPLATE or kind != "include" and name in library:
            continue
        raise ScreenError(f'line {node.lineno}: Jinja {{% {kind} %}} may name only a file of the kernel library '
                          f'("{LIBRARY_PREFIX}/<file>.j2"){"" if kind != "extends" else f" or {PARENT_TEMPLATE!r}"}, '
                          "as a constant")
    _screen_cpp(_JINJA.sub(_blank_jinja, text), _TEMPLATE_ENTRY, text, "{{ kernel_name }}")


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"the symbol check needs '{name}' (binutils), which was not found")
    return path


def _nm(*args: str, jailed: bool = False) -> list[str]:
    """Symbol names that `nm -P` lists for `args` (archive member headers skipped); `jailed`: the file comes from
    untrusted code, so nm reads it in the sandbox."""
    if jailed:
        jail = Jail(readable=(Path(args[-1]),), system=True)
        proc = run_limited([_tool("nm"), "-P", *args], NM_LIMITS, jail=jail)
    else:
        proc = subprocess.run([_tool("nm"), "-P", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolchainError(f"nm failed on {args[-1]}: {proc.stderr.strip()}")
    return [f[0] for f in (line.split() for line in proc.stdout.splitlines()) if len(f) >= 2 and len(f[1]) == 1]


@cache
def _runtime_exports(runtime: Path) -> frozenset[str]:
    """Global symbols defined by the runtime library and the driver built in `runtime` (one simulator version)."""
    return frozenset(_nm("--defined-only", "--extern-only", str(runtime / "libtunersim.a"), str(runtime / "driver.o")))


def kernel_symbols() -> frozenset[str]:
    """Every symbol a kernel object may leave undefined: the simulator runtime's exports that kernels call,
    and CXX_RUNTIME."""
    exports = _runtime_exports(runtime_dir())
    return frozenset(s for s in exports if not _HOST_ONLY.match(s)) | CXX_RUNTIME.keys()


def _demangled(names: list[str]) -> list[str]:
    proc = subprocess.run([_tool("c++filt"), *names], capture_output=True, text=True)
    shown = proc.stdout.splitlines()
    return shown if proc.returncode == 0 and len(shown) == len(names) else names


def check_symbols(obj: Path, *, jailed: bool = False) -> None:
    """Refuse a compiled kernel object that references any symbol outside `kernel_symbols()` (compared mangled),
    with a ScreenError naming them; meant as `build_kernel(..., check_object=check_symbols)`. `jailed`: nm reads
    the object in the sandbox (an LLM's kernel)."""
    foreign = sorted(set(_nm("--undefined-only", str(obj), jailed=jailed)) - kernel_symbols())
    if foreign:
        raise ScreenError("the kernel references symbols the simulator does not provide to kernels: "
                          + ", ".join(_demangled(foreign)))
