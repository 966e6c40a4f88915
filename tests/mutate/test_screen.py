"""The distrust layer: the static screen of templates and sources, the symbol check of compiled kernels, and the
limits every compiler and simulator process runs under (time, CPU, memory, its own process group)."""

from __future__ import annotations

import shutil
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from probes import running

from tuner.backends.args import GmOut, pack_tiling
from tuner.data.socs import get_soc
from tuner.mutate.screen import ScreenError, check_symbols, screen_source, screen_template
from tuner.ops import get_operator
from tuner.processes import Limits, run_limited, stop_children
from tuner.search.evaluate import kernel_args
from tuner.sim import build, run
from tuner.sim.build import build_kernel
from tuner.sim.run import run_executable
from tuner.space.render import render_kernel
from tuner.space.spaces import PROJECT_ROOT, TEMPLATES_DIR, load_space, run_context

SOC = get_soc("Ascend910B2")
OPS = sorted(p.stem for p in (PROJECT_ROOT / "search_spaces").glob("*.yaml"))
HEAD = '#include "kernel_operator.h"\n'
ENTRY = 'extern "C" __global__ __aicore__ void probe(GM_ADDR x)\n'


def _kernel(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.cpp"
    path.write_text(text)
    return path


def _out() -> list:
    return [GmOut(np.dtype(np.uint8), (32,), "x")]


def _gone(exe: Path, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while running(exe):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# ---- the static screen ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "line", "words"), [
    ("#include <cstdlib>\n", 2, "only \"kernel_operator.h\""),
    ('#include "../x.h"\n', 2, "only \"kernel_operator.h\""),
    ('#include "kernel_operator.h" // twice is fine\n#include "./kernel_operator.h"\n', 3, "only"),
    ('extern "C" int system(const char*);\n', 2, "extern declarations are not allowed"),
    ("extern char **environ;\n", 2, "extern declarations"),
    ('extern "C" {\nint system(const char*);\n}\n', 2, "extern declarations"),
    ('void f() { asm("nop"); }\n', 2, "inline assembly (asm)"),
    ('void f() { __asm__ __volatile__("syscall"); }\n', 2, "inline assembly (__asm__)"),
    ('__attribute__((section(".text"))) static const uint8_t code[] = {0x0f, 0x05, 0xc3};\n', 2, "attributes"),
    ('static int early [[gnu::constructor]] ();\n', 2, "GNU attributes (gnu)"),
    ("#define HEADER <cstdlib>\n#include HEADER\n", 3, "only \"kernel_operator.h\""),  # a macro hiding an include
    ('#define CAT(a, b) a##b\nvoid f() { CAT(as, m)("nop"); }\n', 2, "token pasting"),  # a macro building `asm`
    ("%:include <cstdlib>\n", 2, "only"),  # the digraph of #
    ("#inc\\\nlude <cstdlib>\n", 2, "only"),  # a line splice inside the directive
    ('void f() { as\\\nm("nop"); }\n', 2, "inline assembly"),
    ("/* a comment first */ # include <cstdlib>\n", 2, "only"),
    ('const char *s = R"x( " )x"; void f() { asm("nop"); } // "\n', 2, "raw string"),
    ("#pragma GCC poison memcpy\n", 2, "loop-hint pragmas"),
    ('_Pragma("GCC optimize(\\"O3\\")")\n', 2, "_Pragma"),
    ("#include_next <cstdlib>\n", 2, "#include_next is not allowed"),
    ("#import <cstdlib>\n", 2, "#import is not allowed"),
    ('#line 7 "other.cpp"\n', 2, "#line is not allowed"),
    ('const char data[] = {\n#embed "/etc/passwd"\n};\n', 3, "#embed is not allowed"),
    ("#if __has_include(<cstdlib>)\n#endif\n", 2, "probing for files"),
    ('void f() { \\u0061sm("nop"); }\n', 2, "backslash"),
])
def test_source_screen_refuses_with_the_line(body: str, line: int, words: str):
    with pytest.raises(ScreenError) as caught:
        screen_source(HEAD + body, "probe")
    reason = str(caught.value)
    assert reason.startswith(f"line {line}: ") and words in reason and "\n" not in reason


@pytest.mark.parametrize("body", [
    ENTRY + "{}\n",
    'extern "C" __aicore__ __global__ void probe(GM_ADDR x);\n',  # the qualifiers in either order
    "#pragma unroll\n#pragma unroll 4\n#pragma GCC unroll 8\n#pragma GCC ivdep\n",
    "#define STR(x) #x\n#define N 4\n#undef N\n#ifdef N\n#error no\n#elif 1\n#endif\n#\n",
    '// #include <cstdlib> and asm("nop") in a comment\n/* extern "C" */\n',
    'const char *s = "#include <cstdlib> asm extern";\nchar q = \'"\';\n',
    "uint32_t n = 1'000'000; float f = 1e-3f + 0x1p-4f;\n",
    "void f() { __builtin_expect(1, 1); }\n",  # builtins are left to the symbol check
])
def test_source_screen_allows_ordinary_kernels(body: str):
    screen_source(HEAD + body, "probe")


def test_source_screen_wants_the_entry_named_as_the_kernel():
    with pytest.raises(ScreenError, match='extern "C" __global__ __aicore__ void probe'):
        screen_source(HEAD + ENTRY.replace("probe", "other") + "{}\n", "probe")


@pytest.mark.parametrize(("text", "line", "words"), [
    ('{% include "kernel.cpp.j2" %}\n', 1, "{% include %}"),
    ('{% include "_lib/rows.j2" %}\n', 1, "{% include %}"),
    ('// x\n{% import "macros.j2" as m %}\n', 2, "{% import %} may name only a file of the kernel library"),
    ('{% import "_lib/../../add/flat/kernel.cpp.j2" as m %}\n', 1, "{% import %}"),
    ('{% import "_lib/" ~ name as m %}\n', 1, "as a constant"),
    ('{% from "macros.j2" import tile %}\n', 1, "{% from %}"),
    ('{% extends "../../add/flat/kernel.cpp.j2" %}\n', 1, "or 'parent.cpp.j2'"),
    ("{% extends name %}\n", 1, "{% extends %}"),
    ("{% if sync == 'queue' %}\n#include <cstdlib>\n{% endif %}\n", 2, "only \"kernel_operator.h\""),
    ('{# a comment #}\n#{{ "include" }} <cstdlib>\n', 2, "preprocessor directive"),
    ('extern "C" __global__ __aicore__ void {{ other }}(GM_ADDR x) {}\n', 1, "void {{ kernel_name }}(...)"),
    ("{% if x %}\nasm(\"nop\");\n", 1, "does not parse"),
])
def test_template_screen_refuses_with_the_line(text: str, line: int, words: str):
    with pytest.raises(ScreenError) as caught:
        screen_template(text)
    reason = str(caught.value)
    assert reason.startswith(f"line {line}: ") and words in reason


def test_template_screen_passes_every_template_and_a_child_template():
    for path in sorted(TEMPLATES_DIR.glob("*/*/kernel.cpp.j2")):
        screen_template(path.read_text())
    screen_template('{% extends "parent.cpp.j2" %}\n{% block compute %}\n    Muls(y, x, (T)2.0, n);\n'
                    "{% endblock %}\n")
    screen_template('{% extends "_lib/rows.j2" %}\n{% import "_lib/reduce.j2" as reduce with context %}\n'
                    '{% from "_lib/precision.j2" import each_row %}\n')


def test_screening_the_rendered_source_catches_what_jinja_assembles():
    text = HEAD + '{{ "as" ~ "m" }}("nop");\n'
    screen_template(text)  # the template's own text shows no asm
    with pytest.raises(ScreenError, match="line 2: inline assembly"):
        screen_source(text.replace('{{ "as" ~ "m" }}', "asm"), "probe")


# ---- the symbol check ----------------------------------------------------------------------------------------

def _baselines(op_name: str) -> list[tuple[str, str]]:
    """(variant, rendered source) of every baseline of the operator that is feasible at 16 x 256 float16."""
    op, space = get_operator(op_name), load_space(op_name)
    context = run_context(op, (16, 256), "float16", SOC)
    found = []
    for entry in space.baselines:
        variant = space.variant(entry.variant)
        params = entry.params(variant, context)
        if variant.evaluate(params, context).feasible:
            found.append((variant.name, render_kernel(
                variant.template, kernel=space.kernel, dtype="float16", struct=space.tiling_struct,
                tiling_fields=[name for name, _ in variant.tiling], structural=variant.structural(params),
                options=op.opts)))
    return found


@pytest.mark.parametrize("op_name", OPS)
def test_every_baseline_kernel_passes_both_checks(tmp_path: Path, op_name: str):
    baselines = _baselines(op_name)
    assert baselines
    kernel = load_space(op_name).kernel
    for variant, source in baselines:
        screen_source(source, kernel)
        build_kernel(_kernel(tmp_path, variant, source), kernel, SOC, check_object=check_symbols)


@pytest.mark.parametrize(("call", "symbol"), [
    ('FILE *f = fopen("/tmp/tuner-screen-probe", "w");\n    *(__gm__ uint8_t *)x = f != nullptr;', "fopen"),
    ("*(__gm__ uint8_t *)x = std::system(\"true\");", "system"),  # declared by the headers' <cstdlib>
    ("*(__gm__ uint8_t *)x = getenv(\"HOME\") != nullptr;", "getenv"),
    ("*(__gm__ void **)x = __builtin_malloc(64);", "malloc"),
    ("static int *p = new int(3);\n    *(__gm__ int *)x = *p;", "operator new(unsigned long)"),
])
def test_symbol_check_refuses_what_the_static_screen_cannot_see(tmp_path: Path, call: str, symbol: str):
    source = HEAD + ENTRY + "{\n    " + call + "\n}\n"
    screen_source(source, "probe")  # nothing here for a lexer to object to
    with pytest.raises(ScreenError) as caught:
        build_kernel(_kernel(tmp_path, "probe", source), "probe", SOC, check_object=check_symbols)
    reason = str(caught.value)
    assert reason.startswith("the kernel references symbols the simulator does not provide") and symbol in reason


def test_symbol_check_refuses_the_runtimes_host_side(tmp_path: Path):
    source = HEAD + ENTRY + "{\n    tuner_sim::launch_options().report_path = \"/tmp/elsewhere\";\n}\n"
    with pytest.raises(ScreenError, match=r"tuner_sim::launch_options\(\)"):
        build_kernel(_kernel(tmp_path, "probe", source), "probe", SOC, check_object=check_symbols)


def test_a_cached_build_is_checked_too(tmp_path: Path):
    path = _kernel(tmp_path, "probe", HEAD + ENTRY + "{\n    *(__gm__ uint8_t *)x = getenv(\"HOME\") != nullptr;\n}\n")
    assert not build_kernel(path, "probe", SOC).cached  # trusted: built without the check
    with pytest.raises(ScreenError, match="getenv"):
        build_kernel(path, "probe", SOC, check_object=check_symbols)


# ---- limits ----------------------------------------------------------------------------------------------------

SPIN = HEAD + """
extern "C" int fork();

extern "C" __global__ __aicore__ void spin(GM_ADDR x)
{
    fork();  // the child spins too: both must go
    volatile uint32_t i = 0;
    while (true) {
        i = i + 1;
    }
}
"""


@pytest.fixture
def spinner(tmp_path: Path) -> Path:
    """A kernel that never ends and leaves a second process; trusted (fork is refused by the symbol check)."""
    return build_kernel(_kernel(tmp_path, "spin", SPIN), "spin", SOC).path


def test_an_endless_kernel_is_a_timeout_and_leaves_no_process(spinner: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(run, "RUN_GRACE_S", 1.0)
    start = time.monotonic()
    # timeout 0 turns the simulator's own watchdog off: only the process's wall-clock limit can stop it
    result = run_executable(build.Executable(spinner, "spin", SOC.name, True), _out(), 1, timeout_s=0)
    assert [f.cls for f in result.faults] == ["timeout"]
    assert "did not finish within 1 s" in result.faults[0].text
    assert time.monotonic() - start < 10
    assert _gone(spinner)


def test_a_kernel_that_spins_before_its_launch_is_a_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    source = HEAD + "static const uint32_t never = [] { volatile uint32_t i = 0; while (true) { i = i + 1; } " \
                    "return 0u; }();\n" + ENTRY + "{\n    *(__gm__ uint32_t *)x = never;\n}\n"
    screen_source(source, "probe")
    exe = build_kernel(_kernel(tmp_path, "probe", source), "probe", SOC, check_object=check_symbols)
    monkeypatch.setattr(run, "DESCRIBE_TIMEOUT_S", 1.0)
    result = run_executable(exe, _out(), 1)
    assert [f.cls for f in result.faults] == ["timeout"]
    assert _gone(exe.path)


def test_the_cpu_limit_stops_a_process_and_says_so():
    start = time.monotonic()
    finished = run_limited(["/bin/sh", "-c", "while :; do :; done"], Limits(wall_s=30, cpu_s=1, memory_bytes=1 << 30))
    assert finished.limit == "cpu" and finished.returncode == -signal.SIGXCPU
    assert time.monotonic() - start < 10


def test_the_memory_limit_stops_a_runaway_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # A tile count that underflowed: the kernel issues instructions until something stops it, and the simulator
    # records every one (about 0.4 GB/s); without a limit it would fill the machine's memory long before the
    # watchdog fires.
    source = HEAD + """using namespace AscendC;
extern "C" __global__ __aicore__ void runaway(GM_ADDR x)
{
    TPipe pipe;
    TBuf<QuePosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> t = buf.Get<float>();
    const uint32_t tiles = 0u - 1u;
    for (uint32_t i = 0; i < tiles; ++i) {
        Adds(t, t, 1.0f, 256);
    }
}
"""
    screen_source(source, "runaway")
    exe = build_kernel(_kernel(tmp_path, "runaway", source), "runaway", SOC, check_object=check_symbols)
    monkeypatch.setattr(run, "RUN_MEMORY_HEADROOM_BYTES", 1 << 30)
    start = time.monotonic()
    result = run_executable(exe, _out(), 1, timeout_s=50)
    assert [f.cls for f in result.faults] == ["crash"]
    assert "out of memory: the simulator may use 1.0 GiB" in result.faults[0].text
    assert time.monotonic() - start < 30


def test_the_biggest_kernels_run_within_the_limits(tmp_path: Path):
    op, space = get_operator("add"), load_space("add")
    shape = (4096, 8192)
    context = run_context(op, shape, "float32", SOC)
    baseline, params = space.baseline(context)
    variant = space.variant(baseline.variant)
    point = variant.evaluate(params, context)
    source = render_kernel(variant.template, kernel=space.kernel, dtype="float32", struct=space.tiling_struct,
                           tiling_fields=[name for name, _ in variant.tiling], structural=variant.structural(params))
    exe = build_kernel(_kernel(tmp_path, "add", source), space.kernel, SOC, check_object=check_symbols)
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(shape, dtype=np.float32) for _ in range(2))
    args = kernel_args(space, {"x": x, "y": y}, {"z": shape}, "float32", pack_tiling(point.tiling))
    result = run_executable(exe, args, point.block_dim)
    assert result.ok, result.faults
    np.testing.assert_array_equal(result.outputs[0], x + y)


def test_stop_children_interrupts_running_simulators(spinner: Path):
    exe = build.Executable(spinner, "spin", SOC.name, True)
    results = []
    worker = threading.Thread(target=lambda: results.append(run_executable(exe, _out(), 1, timeout_s=0)))
    worker.start()
    deadline = time.monotonic() + 30
    while len(running(spinner)) < 2 and time.monotonic() < deadline:  # the launch has begun (and forked)
        time.sleep(0.05)
    stop_children()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert [f.cls for f in results[0].faults] == ["interrupted"]
    assert _gone(spinner)


class _Alarm(Exception):
    pass


def test_an_exception_while_waiting_kills_the_whole_group(tmp_path: Path):
    """Ctrl-C in the main thread raises while the child runs: the child and what it started go too."""
    sleeper = tmp_path / "sleeper"
    shutil.copy(shutil.which("sleep"), sleeper)

    def ring(signum, frame):  # noqa: ANN001 - signal handler signature
        raise _Alarm

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(_Alarm):
            run_limited(["/bin/sh", "-c", f"{sleeper} 30 & {sleeper} 30"], Limits(wall_s=30, cpu_s=30,
                                                                                 memory_bytes=1 << 30))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _gone(sleeper)


def test_a_template_nested_past_the_parser_is_refused_not_a_crash():
    with pytest.raises(ScreenError, match="nests too deeply"):
        screen_template("{% if x %}" * 3000 + "y" + "{% endif %}" * 3000)
