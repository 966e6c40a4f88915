"""Rendering kernel templates: a sandboxed Jinja environment, the tiling struct, and errors with file:line.

Where a template renders depends on whether it is trusted. The packaged templates (under `templates/`) are the
project's own code and render for every candidate, so they render here, in Jinja's SandboxedEnvironment, exactly
as they always have. Any other template — a rewrite's under runs/<run>/variants/, a proposal an LLM just wrote —
is untrusted and renders in a child process under a wall-clock, CPU and address-space limit. A child rather than
interception in this process alone, because Jinja has more ways to spend time and memory than a list of
intercepted operations can close (nested loops, `*` on strings, filters and string methods that pad, join or
replace, `%` and `format`, `~` doubling a string in a loop, recursive macros, `lipsum`, `sum` over lists): a
child's limits bound whatever the template does, and its end gives back all it took. The child is a fork of the
render server (`python -m tuner.space.render`, started once, single-threaded, Jinja already imported), so
one costs milliseconds rather than a Python start; each request gets a fresh fork, and the server kills a fork
that outlives its wall clock. Inside it, BoundedEnvironment ends the usual bombs early with a precise reason: a
budget of loop iterations over the whole render, caps on what `*`, `**`, `+`, `%`, `~`, calls and filters make
(padding ones checked before they run), a cap on the output while it is generated, and recursion as a
TemplateError. Answers are JSON, never pickles, and are cached by what decides them (template, the templates
beside it, variables). `check_template` refuses, through the same server, an untrusted template that is too
long or nests too deeply for the parsers that read it in this process (the screen, the rules).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import os
import pickle
import re
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.runtime import LoopContext
from jinja2.sandbox import SandboxedEnvironment

from tuner.data.dtypes import C_TYPES
from tuner.errors import UsageError
from tuner.sandbox import Jail, sandbox_problem
from tuner.space.expr import MAX_INT_BITS

PACKAGED_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# The kernel library: macros and skeletons every kernel template may import or extend as "_lib/<file>.j2"
LIBRARY = PACKAGED_TEMPLATES / "ascendc" / "_lib"
LIBRARY_PREFIX = "_lib"

# Bounds of an untrusted render, far above the packaged templates' (at most 8 loop iterations, 11 KB of output,
# 15 KB of template, blocks nested 2 deep). Strings and the output: MAX_TEXT characters; lists, tuples, dicts:
# MAX_ITEMS (Jinja's own range limit); integers: the expression language's MAX_INT_BITS.
LOOP_BUDGET = 100_000
MAX_TEXT = 1 << 20
MAX_ITEMS = 100_000
MAX_TEMPLATE = 1 << 20
RENDER_WALL_S = 5.0
RENDER_CPU_S = 5
RENDER_MEMORY = 256 << 20
# A template that parses within this many frames (the child's recursion limit, its own ~15 included) parses
# anywhere in this process, whose stack is far shallower than Python's limit of 1000 minus this.
PARSE_FRAMES = 300
CACHED_RENDERS = 32

_PADDING_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})
# filter name -> (position, keyword) of the argument that sets the size of what it makes, and its limit
_SIZING_FILTERS = {"center": (1, "width", MAX_TEXT), "indent": (1, "width", MAX_TEXT),
                   "batch": (1, "linecount", MAX_ITEMS), "slice": (1, "slices", MAX_ITEMS)}


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


_OPTIONS = {"undefined": jinja2.StrictUndefined, "trim_blocks": True, "lstrip_blocks": True,
            "keep_trailing_newline": True, "autoescape": False}


def _environment(search_dir: Path | None = None) -> SandboxedEnvironment:
    """The sandbox; `{% import "_lib/x.j2" %}` finds the library's x.j2, and with `search_dir`,
    `{% extends "x.j2" %}` finds x.j2 in that directory (and nowhere else). One environment serves every render
    over the same files (the library's and the directory's, by content), so what it compiles once — the library's
    skeletons and macros, a parent template — is not compiled again for the next render."""
    return _environment_over(None if search_dir is None else str(search_dir), _files_digest(search_dir))


def _files_digest(search_dir: Path | None) -> str:
    """A hash of the kernel library and of every file directly in `search_dir`: what a render there can read."""
    digest = hashlib.sha256(library_digest().encode())
    for path in sorted(search_dir.iterdir()) if search_dir is not None else ():
        if path.is_file():
            digest.update(f"{path.name}\0{path.stat().st_size}\0".encode() + path.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=64)
def _environment_over(search_dir: str | None, files_digest: str) -> SandboxedEnvironment:
    """The environment of `_environment`, made once per directory and content (`files_digest`)."""
    library = jinja2.PrefixLoader({LIBRARY_PREFIX: jinja2.FileSystemLoader(str(LIBRARY))})
    loaders = [jinja2.FileSystemLoader(search_dir)] if search_dir is not None else []
    return SandboxedEnvironment(loader=jinja2.ChoiceLoader([*loaders, library]), **_OPTIONS)


@functools.lru_cache(maxsize=256)
def _compiled(env: SandboxedEnvironment, text: str, name: str) -> jinja2.Template:
    """Template `text`, called `name`, compiled in `env` once (a space's structures render one text many times)."""
    return env.template_class.from_code(env, env.compile(text, name=name, filename=name), env.make_globals(None))


def library_files() -> dict[str, str]:
    """The kernel library as a template sees it: "_lib/<file>.j2" -> its text."""
    return {f"{LIBRARY_PREFIX}/{path.name}": read_template(path) for path in sorted(LIBRARY.glob("*.j2"))}


_REFERENCE = re.compile(r"""{%-?\s*(?:extends|import|include|from)\s+["']([^"']+)["']""")


def library_digest(template: Path | None = None) -> str:
    """A hash of the kernel library files a template reaches (through extends, import, include and from, in the
    library and beside the template, transitively): a rendered kernel depends on them as on its own template, and
    on no other library file. Without a template, every library file."""
    files = library_files()
    if template is None:
        reached = sorted(files)
    else:
        reached, pending, seen = [], [template.read_text() if template.is_file() else ""], set()
        while pending:
            for name in _REFERENCE.findall(pending.pop()):
                if name in seen:
                    continue
                seen.add(name)
                if name in files:
                    reached.append(name)
                    pending.append(files[name])
                elif template is not None and (template.parent / name).is_file():
                    pending.append((template.parent / name).read_text())
        reached.sort()
    digest = hashlib.sha256()
    for name in reached:
        digest.update(f"{name}\0{len(files[name])}\0{files[name]}".encode())
    return digest.hexdigest()


# ----- the bounded environment (it runs in the child) --------------------------------------------------------
def _too_big(value: Any) -> str | None:
    """Why `value` is beyond the render's bounds, or None."""
    if isinstance(value, (str, bytes)) and len(value) > MAX_TEXT:
        return f"a string of {len(value)} characters exceeds the limit of {MAX_TEXT}"
    if isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) > MAX_ITEMS:
        return f"a collection of {len(value)} items exceeds the limit of {MAX_ITEMS}"
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        return f"an integer of {value.bit_length()} bits exceeds the limit of {MAX_INT_BITS}"
    return None


def _bounded(value: Any) -> Any:
    why = _too_big(value)
    if why:
        raise SecurityError(why)
    return value


def _check_size(size: int, what: str, limit: int = MAX_TEXT) -> None:
    if size > limit:
        unit = "characters" if limit == MAX_TEXT else "items"
        raise SecurityError(f"{what} would make {size} {unit}, over the limit of {limit}")


def _check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse `*` and `**` whose result would pass the bounds, before it is computed."""
    ints = isinstance(left, int) and isinstance(right, int)
    if operator == "**" and ints and right > 0 and abs(left) > 1 and \
            (left.bit_length() - 1) * right + 1 > MAX_INT_BITS:
        raise SecurityError(f"{left} ** {right} exceeds the limit of {MAX_INT_BITS} bits")
    if operator == "*":
        if ints and left.bit_length() + right.bit_length() - 1 > MAX_INT_BITS:
            raise SecurityError(f"a product of {left.bit_length() + right.bit_length()} bits exceeds the limit "
                                f"of {MAX_INT_BITS} bits")
        for sequence, count in ((left, right), (right, left)):
            if isinstance(sequence, (str, bytes, list, tuple)) and isinstance(count, int):
                _check_size(len(sequence) * count, f"'*' ({len(sequence)} × {count})",
                            MAX_TEXT if isinstance(sequence, (str, bytes)) else MAX_ITEMS)


def _sized_filter(name: str, function: Any) -> Any:
    """A filter whose result is checked against the bounds, and whose sizing argument first where it has one."""
    sizing = _SIZING_FILTERS.get(name)

    @functools.wraps(function)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        if sizing is not None:
            position, keyword, limit = sizing
            size = kwargs.get(keyword, args[position] if len(args) > position else None)
            if isinstance(size, int):
                _check_size(size, f"the {name} filter ({keyword}={size})", limit)
        return _bounded(function(*args, **kwargs))

    return bounded


class _BoundedCodeGenerator(CodeGenerator):
    """Jinja's code generator, with every loop's iterable counted against the budget and every `~` checked."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        for loop in list(node.find_all(nodes.For)):
            loop.iter = nodes.Call(nodes.EnvironmentAttribute("counted"), [loop.iter], [], None, None,
                                   lineno=loop.iter.lineno)
        super().visit_Template(node, frame)

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.concatenated((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class BoundedEnvironment(SandboxedEnvironment):
    """The sandbox with bounds on loops, on the size of what operators, calls and filters make, and on the
    output; one instance renders one template."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, templates: Mapping[str, str]) -> None:
        super().__init__(loader=jinja2.DictLoader(dict(templates)), **_OPTIONS)
        self.filters = {name: _sized_filter(name, function) for name, function in self.filters.items()}
        self.iterations = 0

    def counted(self, iterable: Iterable[Any]) -> Iterator[Any]:
        """`iterable`, each item counted against the render's loop budget."""
        for item in iterable:
            self.iterations += 1
            if self.iterations > LOOP_BUDGET:
                raise SecurityError(f"more than {LOOP_BUDGET} loop iterations")
            yield item

    def concatenated(self, parts: tuple[Any, ...]) -> str:
        return _bounded("".join(map(str, parts)))

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        _check_binop(operator, left, right)
        return _bounded(super().call_binop(context, operator, left, right))

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(__obj, LoopContext) and args:  # `loop(children)` in a recursive loop
            args = (__self.counted(args[0]), *args[1:])
        if isinstance(getattr(__obj, "__self__", None), str) and getattr(__obj, "__name__", "") in _PADDING_METHODS \
                and args and isinstance(args[0], int):
            _check_size(args[0], f"str.{__obj.__name__}({args[0]})")
        return _bounded(super().call(__context, __obj, *args, **kwargs))


def _failure(exc: BaseException, name: str) -> tuple[int, str]:
    """(template line, one-line reason) of a render that raised `exc`."""
    if isinstance(exc, RecursionError):
        message = "recursion too deep (a template nested too deeply, or a macro or loop that calls itself)"
    elif isinstance(exc, MemoryError):
        message = f"the render ran out of its {RENDER_MEMORY >> 20} MiB of memory"
    elif isinstance(exc, jinja2.TemplateError):
        message = str(exc.message or exc)
    else:  # a filter or expression in the template failed
        message = str(exc)
    line = getattr(exc, "lineno", None)
    if not line:
        frames = traceback.extract_tb(exc.__traceback__)
        line = next((f.lineno for f in reversed(frames) if f.filename in (name, "<template>") and f.lineno), 0)
    flat = " ".join(message.split())
    return int(line or 0), flat if len(flat) <= 300 else f"{flat[:300]}…"


def _bounded_render(text: str, templates: Mapping[str, str], variables: Mapping[str, Any]) -> str:
    template = BoundedEnvironment(templates).from_string(text)
    template.filename = template.name = "<template>"
    parts, size = [], 0
    for chunk in template.generate(**variables):
        size += len(chunk)
        if size > MAX_TEXT:
            raise SecurityError(f"the output passes the limit of {MAX_TEXT} characters")
        parts.append(chunk)
    return "".join(parts)


def _answer(request: Mapping[str, Any]) -> dict[str, Any]:
    """What the child says to `request`: a render's source, or a template's parse check, or why it failed."""
    try:
        if request["task"] == "parse":
            sys.setrecursionlimit(PARSE_FRAMES)
            try:
                jinja2.Environment().parse(request["text"])
            except jinja2.TemplateSyntaxError:  # not a bound: the screen names it
                pass
            except RecursionError:
                return {"line": 0, "message": f"nested too deeply to parse within {PARSE_FRAMES} frames"}
            return {"ok": True}
        return {"source": _bounded_render(request["text"], request["templates"], request["variables"])}
    except BaseException as exc:  # every way the untrusted template can fail becomes the answer
        line, message = _failure(exc, "<template>")
        return {"line": line, "message": message}


# ----- the render server: a process that forks a fresh child, under the limits, for every request -----------------
_FRAME = struct.Struct(">Q")
MAX_ANSWER = 8 * MAX_TEXT  # the JSON of a MAX_TEXT-character source, every character escaped


def _read_frame(fd: int, deadline: float | None, limit: int) -> bytes | None:
    """One length-prefixed frame from `fd`; None at end of file, TimeoutError past `deadline`."""
    head = _read_exactly(fd, _FRAME.size, deadline)
    if head is None:
        return None
    (size,) = _FRAME.unpack(head)
    if size > limit:
        raise OSError(f"a frame of {size} bytes exceeds {limit}")
    body = _read_exactly(fd, size, deadline)
    if body is None:
        raise EOFError("the frame was cut short")
    return body


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        if deadline is not None and not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            raise TimeoutError
        chunk = os.read(fd, size - len(data))
        if not chunk:
            if data:
                raise EOFError("the frame was cut short")
            return None
        data += chunk
    return bytes(data)


def _write_frame(fd: int, data: bytes) -> None:
    view = memoryview(_FRAME.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _limit_answer(message: str) -> dict[str, Any]:
    """An answer that a limit or a failed process gave, not the template: it is not cached."""
    return {"line": 0, "message": message, "limit": True}


def _ended(limits: Mapping[str, Any], status: int) -> str:
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return f"the render used more than its {limits['cpu_s']} s of CPU"
    return f"the render process ended with status {os.waitstatus_to_exitcode(status)} and no answer"


def _forked_answer(blob: bytes) -> bytes:
    """The JSON answer to one request, computed in a fresh fork with the request's limits."""
    request = pickle.loads(blob)
    limits = request["limits"]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing but the answer leaves it
        try:
            os.close(read)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            resource.setrlimit(resource.RLIMIT_AS, (limits["memory"], limits["memory"]))
            resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_s"], limits["cpu_s"] + 1))
            data = json.dumps(_answer(request)).encode()
            with os.fdopen(write, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write)
    deadline = time.monotonic() + limits["wall_s"]
    data, why = bytearray(), None
    try:
        while chunk := _read_some(read, deadline):
            data += chunk
            if len(data) > MAX_ANSWER:
                why = f"the answer passes {MAX_ANSWER} bytes"
                break
    except TimeoutError:
        why = f"the render ran past its limit of {limits['wall_s']:g} s"
    finally:
        os.close(read)
        if why:
            os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    if why or not data:
        return json.dumps(_limit_answer(why or _ended(limits, status))).encode()
    return bytes(data)


def _read_some(fd: int, deadline: float) -> bytes:
    if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
        raise TimeoutError
    return os.read(fd, 1 << 16)


def _serve() -> None:
    """The render server's loop: a request in on stdin, its answer out on stdout, until stdin closes."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    while (blob := _read_frame(0, None, 16 * MAX_TEMPLATE)) is not None:
        _write_frame(1, _forked_answer(blob))


def _server_command() -> tuple[list[str], dict[str, str] | None]:
    """The render server's command line and environment: in the OS sandbox where there is one (no network, an
    empty environment, only Python, its packages and the tuner's code readable), so that an escape from Jinja's
    sandbox reaches nothing; the limits above hold either way."""
    command = [sys.executable, "-m", "tuner.space.render"]
    if sandbox_problem() is not None:
        return command, None
    package = Path(__file__).resolve().parents[1]
    readable = (Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent, package)
    jail = Jail(readable=readable, system=True)
    inner = ["/usr/bin/env", f"PYTHONPATH={package.parent}", "PYTHONNOUSERSITE=1", *command]
    return jail.command(inner), {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


class _RenderServer:
    """The parent's handle on the render server, started on first use and again after it fails; one request at a
    time. A fork of a small process that has already imported Jinja costs a few milliseconds, where starting a
    Python per render would cost a few hundred."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = os.getpid()  # a forked copy of this process must not talk to its parent's server
        self._lock = threading.Lock()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The server's answer; a server that died is started again and asked once more."""
        blob = pickle.dumps(request)
        deadline = time.monotonic() + request["limits"]["wall_s"] + 10
        with self._lock:
            for _ in range(2):
                try:
                    return self._exchange(blob, deadline)
                except TimeoutError:
                    self.stop()
                    return _limit_answer("the render server did not answer in time")
                except (OSError, EOFError, ValueError) as exc:
                    self.stop()
                    failure = f"{exc.__class__.__name__}: {exc}"
                except BaseException:  # Ctrl-C: its answer may still come, and no later request may read it
                    self.stop()
                    raise
            return _limit_answer(f"the render server failed ({failure})")

    def _exchange(self, blob: bytes, deadline: float) -> dict[str, Any]:
        process = self._started()
        assert process.stdin is not None and process.stdout is not None
        _write_frame(process.stdin.fileno(), blob)
        answer = _read_frame(process.stdout.fileno(), deadline, MAX_ANSWER + 1024)
        if answer is None:
            raise EOFError("the render server closed its output")
        return json.loads(answer)

    def _started(self) -> subprocess.Popen[bytes]:
        if self._owner != os.getpid():
            self._process, self._owner = None, os.getpid()
        if self._process is None or self._process.poll() is not None:
            command, env = _server_command()
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             start_new_session=True, env=env)
        return self._process

    def stop(self) -> None:
        """End the server and any render it has running (they share its process group)."""
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()
            self._process = None


_SERVER = _RenderServer()
atexit.register(_SERVER.stop)
_cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
_cache_lock = threading.Lock()


def _in_child(request: dict[str, Any]) -> dict[str, Any]:
    """The render server's answer to `request` (cached when it is the template's verdict, not a limit's)."""
    request = {**request, "limits": {"wall_s": RENDER_WALL_S, "cpu_s": RENDER_CPU_S, "memory": RENDER_MEMORY}}
    key = hashlib.sha256(pickle.dumps(request)).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    answer = _SERVER.ask(request)
    if not answer.get("limit"):
        with _cache_lock:
            _cache[key] = answer
            while len(_cache) > CACHED_RENDERS:
                _cache.popitem(last=False)
    return answer


def _too_long(text: str, name: str) -> None:
    if len(text) > MAX_TEMPLATE:
        raise TemplateError(f"{name}:0: template of {len(text)} characters exceeds the limit of {MAX_TEMPLATE}")


def read_template(path: Path) -> str:
    """The text of a template file; TemplateError when it cannot be read, is not UTF-8 or is too long."""
    try:
        if path.stat().st_size > 4 * MAX_TEMPLATE:  # UTF-8 takes at most 4 bytes a character
            raise TemplateError(f"{path}:0: template of {path.stat().st_size} bytes exceeds the limit of "
                                f"{MAX_TEMPLATE} characters")
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"{path}:0: cannot read the template ({type(exc).__name__})") from None
    _too_long(text, str(path))
    return text


def _beside(search_dir: Path | None) -> dict[str, str]:
    """The templates an untrusted template may import or extend: the kernel library (read-only: it is sent with
    each request, never written back) and the *.j2 files of its directory."""
    beside = {} if search_dir is None else {path.name: read_template(path) for path in sorted(search_dir.glob("*.j2"))}
    return {**beside, **library_files()}


def check_template(text: str, name: str) -> None:
    """Refuse an untrusted template that is longer than MAX_TEMPLATE characters or nests too deeply to be parsed
    in this process (raises TemplateError); a syntax error is left to the screen, which names it."""
    _too_long(text, name)
    answer = _in_child({"task": "parse", "text": text})
    if not answer.get("ok"):
        raise TemplateError(f"{name}:{answer['line']}: template is refused: {answer['message']}")


def render_text(text: str, name: str, variables: Mapping[str, Any], search_dir: Path | None = None, *,
                trusted: bool = False) -> str:
    """Render template `text` (called `name` in errors) with `variables`; TemplateError says file:line. A
    child template (a rewrite) extends a parent that lies in `search_dir`. Untrusted (the default), it renders
    in a child process under the module's bounds; `trusted` (a packaged template), here."""
    if not trusted:
        _too_long(text, name)
        answer = _in_child({"task": "render", "text": text, "templates": _beside(search_dir),
                            "variables": dict(variables)})
        if "source" in answer:
            return str(answer["source"])
        raise TemplateError(f"{name}:{answer['line']}: template does not render: {answer['message']}")
    env = _environment(search_dir)
    try:
        return _compiled(env, text, name).render(**variables)
    except Exception as exc:
        line, message = _failure(exc, name)
        raise TemplateError(f"{name}:{line}: template does not render: {message}") from None


def kernel_variables(*, kernel: str, dtype: str, struct: str, tiling_fields: list[str] | tuple[str, ...],
                     structural: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a kernel template sees: its entry's name, the dtype, the tiling struct (its source and its name), the
    operator's options and the structural knob values."""
    return {"kernel_name": kernel, "T": C_TYPES[dtype], "dtype": dtype, "tiling_name": struct,
            "tiling_struct": tiling_struct_source(struct, tiling_fields), **(options or {}), **structural}


def is_packaged(template: Path) -> bool:
    """Whether `template` is one of the project's own (under the packaged templates directory)."""
    return template.resolve().is_relative_to(PACKAGED_TEMPLATES)


def render_kernel(template: Path, *, kernel: str, dtype: str, struct: str, tiling_fields: list[str] | tuple[str, ...],
                  structural: Mapping[str, Any], options: Mapping[str, Any] | None = None,
                  trusted: bool | None = None) -> str:
    """The Ascend C source of one variant for a dtype, the operator's options and its structural knob values.
    `trusted` (by default: whether the template is packaged) renders it in this process, else in a bounded child."""
    if not template.is_file():
        raise TemplateError(f"{template}: template file does not exist")
    variables = kernel_variables(kernel=kernel, dtype=dtype, struct=struct, tiling_fields=tiling_fields,
                                 structural=structural, options=options)
    return render_text(read_template(template), str(template), variables, search_dir=template.parent,
                       trusted=is_packaged(template) if trusted is None else trusted)


if __name__ == "__main__":
    _serve()
