"""Builds kernels for the simulator: a precompiled runtime library, per-SoC generated inputs, and one
cached executable per (source, kernel, defines, SoC, simulator version); and how every compiler and simulator
process is run, under time and memory limits in a process group of its own (`run_limited`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tuner.data.api_support import api_support
from tuner.data.socs import Soc
from tuner.errors import CompileError, ToolchainError
from tuner.paths import cache_root
from tuner.processes import JAIL_COMPILE_FILE_BYTES, Finished, Limits, run_limited
from tuner.sandbox import Jail, require_sandbox
from tuner.sim import codegen
from tuner.sim.launches import PRELUDE, launch_headers, rewrite_launches

SIM_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = SIM_DIR / "include"
RUNTIME_DIR = SIM_DIR / "runtime"
RUNTIME_SOURCES = ("numerics.cpp", "runtime.cpp", "ops.cpp", "rearrange.cpp", "timing.cpp")
RUNTIME_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-pthread", "-Wall", "-Wno-unused-parameter")
# The instrumentation is how a kernel's own scalar work reaches the model (runtime.cpp, "kernel scalar code"): a
# call per basic block executed, and per load and store with its address; the simulator's headers are exempt
# (tuner_sim/uncharged.h). GCC >= 12.
KERNEL_FLAGS = ("-std=c++17", "-O1", "-pthread", "-fno-strict-aliasing", "-D__CCE_KT_TEST__=1",
                "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1", "-DASCENDC_DUMP=0",
                "-fsanitize-coverage=trace-pc", "-fsanitize=kernel-address",
                "--param=asan-instrumentation-with-call-threshold=0", "--param=asan-stack=0",
                "--param=asan-globals=0")
COMPILE_TIMEOUT_S = 300


# A kernel compiles in well under a second and 100 MB; the runtime library in a few seconds and 300 MB.
COMPILE_LIMITS = Limits(wall_s=COMPILE_TIMEOUT_S, cpu_s=COMPILE_TIMEOUT_S, memory_bytes=4 << 30)
# Messages of a compiler that failed because of the machine, not the source: never cached as the kernel's.
ENVIRONMENT_FAILURES = ("No space left on device", "Disk quota exceeded", "Cannot allocate memory",
                        "Read-only file system", "Too many open files", "Resource temporarily unavailable",
                        "virtual memory exhausted", "out of memory allocating")


def compiler() -> str:
    """The host C++ compiler ($CXX or g++): GCC 12 or newer, whose instrumentation the model charges a kernel's
    scalar code by (KERNEL_FLAGS) and which leaves the simulator's own header code out of it."""
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        raise ToolchainError(f"the simulator needs a C++17 compiler; '{cxx}' was not found (install g++ or set CXX)")
    _check_gcc(cxx)
    return cxx


@cache
def _banner(cxx: str) -> str:
    return subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout


@cache
def _check_gcc(cxx: str) -> None:
    banner = _banner(cxx)
    version = subprocess.run([cxx, "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    major = int(version.split(".")[0]) if version.split(".")[0].isdigit() else 0
    if "clang" in banner.lower() or major < 12:
        found = banner.splitlines()[0] if banner else cxx
        raise ToolchainError(f"the simulator needs GCC 12 or newer as its C++ compiler, found '{found}' "
                             "(install g++-12 and set CXX=g++-12)")


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:20]


@cache
def sim_version() -> str:
    """Hash of everything that decides a simulator build: headers, runtime, data files, compiler."""
    files = sorted(INCLUDE_DIR.rglob("*.h")) + sorted(RUNTIME_DIR.glob("*.[ch]*"))
    data = sorted(p for p in (SIM_DIR.parent / "data").rglob("*") if p.suffix in (".yaml", ".csv"))
    return _digest(_banner(compiler()), *(p.read_bytes() for p in files + data))


def _run(cmd: list[str], what: str, jail: Jail | None = None) -> Finished:
    proc = run_limited(cmd, COMPILE_LIMITS, jail=jail)
    if proc.limit == "wall":
        raise CompileError(f"{what}: the compiler ran longer than {COMPILE_LIMITS.wall_s:g} s", proc.stderr,
                           cacheable=False)
    if proc.limit == "cpu":
        raise CompileError(f"{what}: the compiler used more than {COMPILE_LIMITS.cpu_s} s of CPU time", proc.stderr,
                           cacheable=False)
    too_big = proc.returncode == -signal.SIGXFSZ or "File size limit exceeded" in proc.stderr
    if jail is not None and too_big:  # a verdict on the source: it asks for a huge object (a static array)
        raise CompileError(f"{what}: the kernel's object or executable would exceed "
                           f"{JAIL_COMPILE_FILE_BYTES >> 20} MiB (a huge static array?)", proc.stderr)
    if proc.returncode < 0:  # stopped from outside (Ctrl-C, kill): not a verdict on the source
        raise ToolchainError(f"{what}: {Path(cmd[0]).name} was stopped by signal {-proc.returncode}")
    failure = next((f for f in ENVIRONMENT_FAILURES if f in proc.stderr), None) if proc.returncode else None
    if failure is not None and jail is not None:  # an untrusted source may ask for this: not the run's end
        raise CompileError(f"{what}: {failure} (within the sandbox's limits)", proc.stderr, cacheable=False)
    if failure is not None:
        raise ToolchainError(f"{what} failed because of the machine, not the source: {failure} "
                             f"(nothing was cached; free the resource and run again)")
    return proc


def _atomic_dir(final: Path, build) -> Path:
    """Build into a temporary sibling and rename it into place, so concurrent builds never see half a dir."""
    if final.exists():
        return final
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=final.name + ".", dir=final.parent))
    except OSError as exc:
        raise machine_error(exc, final.parent) from None
    try:
        build(tmp)
        try:
            tmp.rename(final)
        except OSError:  # another process won the race
            shutil.rmtree(tmp, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise machine_error(exc, final.parent) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def machine_error(exc: OSError, where: Path) -> ToolchainError:
    """A cache write that the machine stopped (a full disk, a read-only cache): one line, and nothing is cached."""
    return ToolchainError(f"cannot write the build cache in {where}: {exc.strerror or exc} (nothing was cached; "
                          "free the resource or set TUNER_CACHE_DIR, and run again)")


def runtime_dir() -> Path:
    """The precompiled runtime (libtunersim.a and driver.o), built once per simulator version."""

    def build(out: Path) -> None:
        cxx = compiler()
        objects = []
        for name in (*RUNTIME_SOURCES, "driver.cpp"):
            obj = out / (Path(name).stem + ".o")
            proc = _run([cxx, *RUNTIME_FLAGS, "-I", str(INCLUDE_DIR), "-c", str(RUNTIME_DIR / name), "-o", str(obj)],
                        "runtime")
            if proc.returncode != 0:
                raise ToolchainError(f"the simulator runtime failed to compile ({name}):\n{proc.stderr}")
            if name != "driver.cpp":
                objects.append(str(obj))
        proc = _run(["ar", "rcs", str(out / "libtunersim.a"), *objects], "runtime")
        if proc.returncode != 0:
            raise ToolchainError(f"cannot archive the simulator runtime: {proc.stderr}")

    return _atomic_dir(cache_root() / "sim" / f"runtime-{sim_version()}", build)


def soc_dir(soc: Soc) -> Path:
    """Generated support header and compiled SoC configuration for one SoC."""

    def build(out: Path) -> None:
        (out / "tuner_sim_support.h").write_text(codegen.support_header(soc))
        (out / "soc_config.cpp").write_text(codegen.config_source(soc, sim_version()))
        proc = _run([compiler(), *RUNTIME_FLAGS, "-I", str(INCLUDE_DIR), "-c", str(out / "soc_config.cpp"),
                     "-o", str(out / "soc_config.o")], "SoC configuration")
        if proc.returncode != 0:
            raise ToolchainError(f"the generated SoC configuration failed to compile:\n{proc.stderr}")

    return _atomic_dir(cache_root() / "sim" / f"soc-{soc.name}-{sim_version()}", build)


@dataclass(frozen=True)
class Executable:
    """A kernel built for the simulator, ready to run; an untrusted one runs only in the sandbox."""

    path: Path
    kernel: str
    soc: str
    cached: bool
    untrusted: bool = False


_DIAG = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<kind>error|fatal error): (?P<msg>.*)$")


_UNSUPPORTED_DECL = re.compile(r"^TUNER_SIM_UNSUPPORTED\((\w+),\s*(\w+)\)", re.MULTILINE)
_CALL_ERROR = re.compile(r"no matching function for call to [‘'`](\w+)[<(]|[‘'`](\w+)[’'] was not declared")
_SCALAR_TYPE_ERROR = re.compile(r"no matching function for call to [‘'`]\w+\(.*LocalTensor<(half|bfloat16_t|float)>"
                                r".*, (float|double)[,)]")
_DTYPE_ERROR = re.compile(r"^(\w+): this element type is not supported on (\S+)")


@cache
def unsupported_apis() -> dict[str, str]:
    """APIs unsupported.h refuses, with the reason it gives: {name: why}."""
    text = (INCLUDE_DIR / "tuner_sim" / "unsupported.h").read_text()
    whys = dict(re.findall(r'^#define (TUNER_SIM_\w+) "([^"]*)"', text, re.MULTILINE))
    return {name: whys.get(why, "") for name, why in _UNSUPPORTED_DECL.findall(text)}


def _explain(msg: str, soc: Soc | None) -> str:
    """Say what a raw compiler message means when it comes from a refused API or an API missing on a SoC."""
    m = _CALL_ERROR.search(msg)
    name = m and (m[1] or m[2])
    if name in unsupported_apis():
        return f"{name} is not supported by the tuner simulator: {unsupported_apis()[name]}"
    if name and m[2]:
        return f"{msg} (not provided by the tuner simulator, or misspelt)"
    m = _SCALAR_TYPE_ERROR.search(msg)
    if m and m[1] != m[2]:
        return (f"{msg} (a scalar operand must have the tensor's element type: write ({m[1]})value, as with "
                "Ascend C's own headers)")
    m = _DTYPE_ERROR.match(msg)
    if m and soc is not None and m[1] in api_support()["apis"] and not codegen.supported_types(
            m[1], soc.vector_costs):
        return f"{m[1]} is not available on {m[2]} (for any element type)"
    return msg


def summarize_diagnostics(stderr: str, sources: list[Path], soc: Soc | None = None) -> str:
    """One line naming the first real problem, in the user's file where possible."""
    names = {str(p) for p in sources} | {p.name for p in sources}
    user_locations = []
    for line in stderr.splitlines():
        m = re.match(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+:\s+(required from here|note: in expansion of macro)",
                     line)
        if m and (m["file"] in names or Path(m["file"]).name in names):
            user_locations.append(f"{m['file']}:{m['line']}")
    with_types = re.findall(r"\[with ([^\]]+)\]", stderr)
    for line in stderr.splitlines():
        m = _DIAG.match(line)
        if not m:
            continue
        msg = m["msg"]
        if msg.startswith("static assertion failed: "):
            msg = msg.removeprefix("static assertion failed: ")
            where = user_locations[0] if user_locations else f"{m['file']}:{m['line']}"
            explained = _explain(msg, soc)
            detail = f" [with {with_types[0]}]" if with_types and explained == msg else ""
            return f"{where}: error: {explained}{detail}"
        return f"{m['file']}:{m['line']}: error: {_explain(msg, soc)}"
    return stderr.strip().splitlines()[-1] if stderr.strip() else "compilation failed"


def _compile_error(stderr: str, sources: list[Path], soc: Soc | None = None) -> CompileError:
    return CompileError(summarize_diagnostics(stderr, sources, soc), stderr)


_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def local_includes(source: Path) -> list[Path]:
    """Quoted includes found next to the including file, recursively: they are part of a build's cache key."""
    found: list[Path] = []
    todo = [source]
    while todo:
        current = todo.pop()
        for name in _LOCAL_INCLUDE.findall(current.read_text(errors="replace")):
            path = (current.parent / name).resolve()
            if path.is_file() and path not in found and path != source:
                found.append(path)
                todo.append(path)
    return sorted(found)


def _define_flags(defines: list[str]) -> list[str]:
    return [f"-D{d}" for d in defines]


APP = "app"
APP_DIGEST = "app.sha256"
# The kernel caches' size cap ($TUNER_CACHE_MAX_BYTES overrides it); the least recently used builds go first,
# never one used in the last EVICT_MIN_AGE_S (a run may be about to launch it). Checked every EVICT_EVERY builds.
CACHE_MAX_BYTES = 8 << 30
EVICT_MIN_AGE_S = 600
EVICT_EVERY = 32
_new_builds = [0]


def _tree_bytes(path: Path) -> int:
    total = 0
    for item in path.rglob("*"):
        with contextlib.suppress(OSError):
            total += item.lstat().st_size
    return total


def evict_kernels(max_bytes: int | None = None) -> list[Path]:
    """Remove the least recently used kernel builds until the kernel caches (packaged and untrusted) hold at most
    `max_bytes`; returns what was removed."""
    cap = max_bytes if max_bytes is not None else int(os.environ.get("TUNER_CACHE_MAX_BYTES", CACHE_MAX_BYTES))
    entries = []
    for parent in (kernels_dir(False), kernels_dir(True)):
        if parent.is_dir():
            for entry in parent.iterdir():
                with contextlib.suppress(OSError):
                    entries.append((entry.stat().st_mtime, _tree_bytes(entry), entry))
    total = sum(size for _, size, _ in entries)
    removed = []
    now = time.time()
    for mtime, size, entry in sorted(entries):
        if total <= cap:
            break
        if now - mtime < EVICT_MIN_AGE_S or "." in entry.name:  # recent, or a build in progress
            continue
        shutil.rmtree(entry, ignore_errors=True)
        total -= size
        removed.append(entry)
    return removed


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _intact(directory: Path) -> bool:
    """Whether a cached kernel is the one that was built there: its executable's hash as recorded at build."""
    try:
        return file_digest(directory / APP) == (directory / APP_DIGEST).read_text().strip()
    except OSError:
        return False


def kernels_dir(untrusted: bool) -> Path:
    """Cached kernel builds; untrusted kernels (LLM-written) are kept apart from the packaged templates'."""
    return cache_root() / "sim" / ("untrusted-kernels" if untrusted else "kernels")


def _compile_jail(readable: list[Path], out: Path) -> Jail:
    """The sandbox of an untrusted compile or link: the compiler's system paths, the simulator's headers and
    the inputs read-only, `out` writable; no network, no environment, no home directory."""
    extra = []
    cxx = shutil.which(compiler())
    if cxx is not None:
        extra.append(Path(cxx).resolve().parent.parent)
    return Jail(readable=(*readable, *extra), scratch=out, system=True, proc=True)


# The C library's copies a kernel's object may call, and the runtime's wrappers that charge them as scalar work.
CHARGED_MEMORY_CALLS = {"memcpy": "tuner_sim_memcpy", "memmove": "tuner_sim_memmove", "memset": "tuner_sim_memset"}


def _charge_memory_calls(obj: Path, jail: Jail | None) -> None:
    """Point the object's calls of memcpy/memmove/memset at the runtime's charged wrappers (GCC keeps a call for a
    copy of variable length; without this, GM->UB by memcpy would cost nothing)."""
    renames = [f"--redefine-sym={old}={new}" for old, new in CHARGED_MEMORY_CALLS.items()]
    objcopy = shutil.which("objcopy")
    if objcopy is None:
        raise ToolchainError("the simulator needs objcopy (binutils), which was not found")
    proc = _run([objcopy, *renames, str(obj)], "objcopy", jail)
    if proc.returncode != 0:
        raise ToolchainError(f"objcopy failed on the kernel object: {proc.stderr.strip()}")


def build_kernel(source: Path, kernel: str, soc: Soc, defines: list[str] | tuple[str, ...] = (), *,
                 check_object: Callable[[Path], None] | None = None, untrusted: bool = False) -> Executable:
    """Compile `source` and link its entry `kernel` with the simulator runtime; cached by content, and the cached
    executable's hash checked before it is reused (a mismatch is rebuilt). For untrusted code, `check_object` is
    called with the compiled kernel object before it is linked (or before it is returned, for a build that is
    cached or that another process made) and raises to refuse it; with `untrusted`, the compiler and linker run
    in the sandbox, the executable is static (it runs under a seccomp filter that lets nothing be opened, the
    loader's libraries included) and it is cached apart."""
    if untrusted:
        require_sandbox()
    source = source.resolve()
    text = source.read_text(errors="replace")
    runtime = runtime_dir()
    socd = soc_dir(soc)
    headers = [h.read_bytes() for h in local_includes(source)]
    key = _digest(text, str(source), kernel, soc.name, sim_version(), *defines, *headers)
    final = kernels_dir(untrusted) / key
    checked: list[Path] = []  # the object check_object passed in this call

    def check(obj: Path) -> None:
        if check_object is not None:
            check_object(obj)
            checked.append(obj)

    if final.exists() and not _intact(final):
        shutil.rmtree(final, ignore_errors=True)  # tampered with, or left half-written by an older version
    if final.exists():
        check(final / "entry.o")
        with contextlib.suppress(OSError):
            os.utime(final)  # recently used: the last to be evicted
        return Executable(final / APP, kernel, soc.name, cached=True, untrusted=untrusted)

    def build(out: Path) -> None:
        entry = out / "entry.cpp"
        included = source
        if "<<<" in text:  # a kernel of a whole program: its launches rewritten, its main() kept out of the way
            body, _ = rewrite_launches(text, str(source))
            included = out / "program.cpp"
            included.write_text("#define main tuner_sim_program_main\n" + PRELUDE.format(path=source) + body)
        entry.write_text(f'#include "{included}"\n#include "tuner_sim/entry.h"\nTUNER_SIM_ENTRY({kernel})\n')
        cxx = compiler()
        obj = out / "entry.o"
        jail = _compile_jail([INCLUDE_DIR, socd, runtime, source.parent], out) if untrusted else None
        proc = _run([cxx, *KERNEL_FLAGS, *_define_flags(list(defines)), "-I", str(INCLUDE_DIR), "-I", str(socd),
                     "-I", str(source.parent), "-c", str(entry), "-o", str(obj)], "compile", jail)
        if proc.returncode != 0:
            # Only the generated entry.cpp naming the kernel: a user's own undeclared name in a file whose
            # path contains the kernel name (add_custom.cpp) is not a missing kernel.
            missing = (rf"entry\.cpp:\d+:(\d+:)? error: [‘'`]{re.escape(kernel)}[’'] "
                       r"(was not declared|has not been declared)")
            if re.search(missing, proc.stderr):
                raise CompileError(f"{source}: error: no kernel function named '{kernel}' in this source "
                                   "(check --kernel)", proc.stderr)
            raise _compile_error(proc.stderr, [source], soc)
        _charge_memory_calls(obj, jail)
        check(obj)
        static = ["-static"] if untrusted else []
        proc = _run([cxx, *static, "-pthread", str(obj), str(runtime / "driver.o"), str(socd / "soc_config.o"),
                     str(runtime / "libtunersim.a"), "-o", str(out / APP)], "link", jail)
        if proc.returncode != 0:
            raise _compile_error(proc.stderr, [source], soc)
        (out / APP_DIGEST).write_text(file_digest(out / APP) + "\n")

    _atomic_dir(final, build)
    if not checked:  # another process finished the same build first
        check(final / "entry.o")
    _new_builds[0] += 1
    if _new_builds[0] % EVICT_EVERY == 1:
        evict_kernels()
    return Executable(final / APP, kernel, soc.name, cached=False, untrusted=untrusted)


def build_program(sources: list[Path], output: Path, soc: Soc, defines: list[str] | tuple[str, ...] = ()) -> Path:
    """Build a host program and its kernels unchanged: a CANN CPU-debug-mode program (tikicpulib.h, ICPU_RUN_KF),
    or one that launches with <<<...>>> or ACLRT_LAUNCH_KERNEL (those sources are compiled as rewritten copies,
    launches.py, with the aclrtlaunch_<kernel>.h headers CANN generates)."""
    runtime = runtime_dir()
    socd = soc_dir(soc)
    cxx = compiler()
    with tempfile.TemporaryDirectory() as tmp:
        generated = Path(tmp) / "generated"
        generated.mkdir()
        texts = [src.read_text(errors="replace") for src in sources]
        for name, header in launch_headers(texts).items():
            (generated / name).write_text(header)
        objects = []
        for i, (src, text) in enumerate(zip(sources, texts, strict=True)):
            src = src.resolve()
            obj = Path(tmp) / f"{i}_{src.stem}.o"
            compiled = src
            if "<<<" in text or src.suffix == ".asc":
                body, _ = rewrite_launches(text, str(src))
                compiled = Path(tmp) / f"{i}_{src.stem}.cpp"
                compiled.write_text(PRELUDE.format(path=src) + body)
            proc = _run([cxx, *KERNEL_FLAGS, *_define_flags(list(defines)), "-I", str(INCLUDE_DIR), "-I", str(socd),
                         "-I", str(src.parent), "-I", str(generated), "-c", str(compiled), "-o", str(obj)],
                        "compile")
            if proc.returncode != 0:
                raise _compile_error(proc.stderr, sources, soc)
            _charge_memory_calls(obj, None)
            objects.append(str(obj))
        proc = _run([cxx, "-pthread", *objects, str(socd / "soc_config.o"), str(runtime / "libtunersim.a"),
                     "-o", str(output)], "link")
        if proc.returncode != 0:
            raise _compile_error(proc.stderr, sources, soc)
    return output
