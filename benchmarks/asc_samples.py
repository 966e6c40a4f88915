"""Huawei's own Ascend C examples, run unchanged on the simulator: every A2 vector example of asc-devkit
(`examples/01_simd_cpp_api`), each as its README runs it: `scripts/gen_data.py`, then the program (built by
`tuner simulate`'s program build with the defines its CMakeLists gives), then `scripts/verify_result.py`
against the sample's own golden output. Writes the table of every example with its status and, for each that
fails, why.

    python benchmarks/asc_samples.py [--repo ASC_DEVKIT_GIT_DIR] [--only NAME] [--report docs/asc_samples.md]

The repository is a git directory (a clone or the mirror `fetch` leaves); nothing from it is kept here.
Selected: examples whose README lists Atlas A2 among its products, leaving out the cube (matmul, mmad, conv,
load_data, fixpipe, L1/L0C movement), the register API of Ascend 950 (`reg_*`, `*_reg_*`), and framework
integrations (PyTorch, GE, aclgraph, AOT, compile-mode demos) — the simulator models the vector core.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tuner.errors import CompileError, UsageError  # noqa: E402
from tuner.sim.program import build_cached_program  # noqa: E402

DEFAULT_REPO = Path(os.environ.get("ASC_DEVKIT_GIT", "/work/.mirror/mirror-cann+asc-devkit/repo"))
EXAMPLES = "examples/01_simd_cpp_api"
SOC = "Ascend910B2"
ARCH = "dav-2201"
# Paths (under EXAMPLES) left out, with the reason the table gives.
EXCLUDED = (
    (r"matmul|mmad|conv|load_data|fixpipe|l0c|gm2l1|ub2l1|l1togm|cube|batch_matmul|set_loaddata", "cube API"),
    (r"(^|/)reg_|_reg_|/02_reg_|/04_reg_compute|/02_reg_compute|bank_conflict_3510", "Ascend 950 register API"),
    (r"00_framework|04_aclgraph|06_aot_compilation|04_compile|torch_library|msprof|ms_sanitizer|08_simulator"
     r"|06_cpu_debug|09_log", "framework, toolchain or device-tool demo"),
)
STEP_TIMEOUT_S = 900


@dataclass
class Row:
    name: str
    status: str  # pass, fail, excluded
    why: str = ""
    launches: int = 0
    simulated_us: float | None = None
    seconds: float = 0.0
    reports: list[dict] = field(default_factory=list)  # the simulator's report of each launch
    output: str = ""  # what the README's steps printed


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True).stdout


def example_dirs(repo: Path) -> list[str]:
    files = git(repo, "ls-tree", "-r", "--name-only", "HEAD", EXAMPLES).decode().splitlines()
    return sorted({f.rsplit("/", 1)[0] for f in files if f.endswith(".asc") and "/scripts/" not in f})


# Code of the cube core: an example whose sources use it is not a vector-core example, whatever its path says.
CUBE_CODE = re.compile(r"\b(Mmad|LoadData|Fixpipe|Matmul\w*|TPosition::(A1|A2|B1|B2|CO1|CO2)|__cube__)\b")


def exclusion(name: str, readme: str, code: str = "") -> str | None:
    for pattern, why in EXCLUDED:
        if re.search(pattern, name):
            return why
    if CUBE_CODE.search(code):
        return "cube API"
    if readme and "A2" not in readme.split("## 目录结构")[0]:
        return "not for Atlas A2"
    return None


def extract(repo: Path, path: str, into: Path) -> None:
    data = git(repo, "archive", "--format=tar", f"HEAD:{path}")
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


def _bash_block(readme: str) -> str:
    """The commands that build and run the example: the first code block of the README's build-and-run section
    (编译运行) that runs a program."""
    section = readme.split("## 编译运行", 1)[-1]
    for block in re.findall(r"```[ \t]*(?:bash|shell)?[ \t]*\n(.*?)```", section, re.S):
        if "./demo" in block or re.search(r"\./\w+\s*(#|$)", block, re.M):
            return block
    return ""


def _strip_comment(line: str) -> str:
    return re.sub(r"(^|\s)#.*$", "", line).strip()


def cmake_defines(cmake: str, cache: dict[str, str]) -> tuple[list[str], list[str]]:
    """The program's sources and its compile definitions, from a CMakeLists read with `cache` (-D values):
    set() of variables, if/elseif/else on STREQUAL/EQUAL of them, add_definitions and
    target_compile_definitions."""
    values = dict(cache)
    taken: list[bool] = []   # per open if: whether a branch was taken
    active: list[bool] = []  # per open if: whether the current branch runs

    def expand(s: str) -> str:
        return re.sub(r"\$\{(\w+)\}", lambda m: values.get(m[1], ""), s)

    def truth(cond: str) -> bool:
        m = re.match(r'(NOT\s+)?\$?\{?(\w+)\}?\s+(STREQUAL|EQUAL)\s+"?([^"\s)]*)"?', cond.strip())
        if not m:
            return False
        result = values.get(m[2], m[2]) == expand(m[4])
        return result != bool(m[1])

    sources, defines = [], []
    text = re.sub(r"#[^\n]*", "", cmake)
    for m in re.finditer(r"(\w+)\s*\((.*?)\)\s*(?=\n|$)", text, re.S):
        cmd, body = m[1].lower(), " ".join(m[2].split())
        running = all(active)
        if cmd == "if":
            ok = running and truth(body)
            taken.append(ok)
            active.append(ok)
            continue
        if cmd == "elseif":
            ok = not taken[-1] and truth(body)
            taken[-1] |= ok
            active[-1] = ok
            continue
        if cmd == "else":
            active[-1] = not taken[-1]
            continue
        if cmd == "endif":
            taken.pop()
            active.pop()
            continue
        if not running:
            continue
        words = body.split()
        if cmd == "set" and words:
            cached = "CACHE" in words
            if cached and words[0] in cache:
                continue  # a -D value of the README's cmake line wins over the cache default
            value_words = words[1:words.index("CACHE")] if cached else words[1:]
            values[words[0]] = expand(" ".join(w.strip('"') for w in value_words))
        elif cmd == "add_executable" and words:
            sources += [expand(w) for w in words[1:] if re.search(r"\.(asc|cpp|cc)$", w)]
        elif cmd == "add_definitions":
            defines += [expand(w)[2:] for w in words if w.startswith("-D")]
        elif cmd == "target_compile_definitions":
            defines += [expand(w) for w in words[1:] if w not in ("PRIVATE", "PUBLIC", "INTERFACE")]
    return sources, defines


def run_example(repo: Path, name: str, work: Path, overrides: dict[str, str] | None = None,
                in_scope_only: bool = True) -> Row:
    """Run the example `name` (a path under EXAMPLES) in `work` as its README does; `overrides` are CMake cache
    values set after the README's own -D values (a best-practice case's SCENARIO_NUM), and its shell variables of the
    same name. With `in_scope_only`, an example outside the vector core's memory-based API (EXCLUDED, CUBE_CODE) is
    not run."""
    path = f"{EXAMPLES}/{name}"
    start = time.perf_counter()
    extract(repo, path, work)
    readme = (work / "README.md").read_text(errors="replace") if (work / "README.md").exists() else ""
    code = "\n".join(f.read_text(errors="replace") for f in work.rglob("*") if f.suffix in (".asc", ".h", ".cpp"))
    why = exclusion(name, readme, code) if in_scope_only else None
    if why:
        return Row(name, "excluded", why)
    block = _bash_block(readme)
    assignments = [line for line in map(_strip_comment, block.splitlines()) if re.fullmatch(r"\s*(\w+=\S+\s*)+", line)]
    variables = {name: value for line in assignments for name, value in re.findall(r"(\w+)=(\S+)", line)}
    variables.update({k: v for k, v in (overrides or {}).items() if k in variables})
    cache = {"CMAKE_ASC_ARCHITECTURES": ARCH, "CMAKE_ASC_RUN_MODE": "cpu"}
    steps = []
    for raw in block.splitlines():
        line = _strip_comment(raw)
        for part in re.split(r"\s*(?:&&|;)\s*", line):
            part = re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: variables.get(m[1] or m[2], ""), part)
            if part.startswith("cmake"):
                cache.update(dict(re.findall(r"-D(\w+)=(\S+)", part)))
            elif part.startswith(("python", "./")) or part.startswith("cd "):
                steps.append(part)
    cache.update(overrides or {})
    cmake = (work / "CMakeLists.txt").read_text() if (work / "CMakeLists.txt").exists() else ""
    sources, defines = cmake_defines(cmake, cache)
    if not sources:
        return Row(name, "fail", "no program sources found in CMakeLists.txt", seconds=time.perf_counter() - start)
    try:
        exe = build_cached_program([work / s for s in sources], SOC, defines)
    except CompileError as exc:
        return Row(name, "fail", f"compile: {exc.summary.replace(str(work) + '/', '')}",
                   seconds=time.perf_counter() - start)
    except UsageError as exc:
        return Row(name, "fail", f"build: {exc}", seconds=time.perf_counter() - start)
    demo = re.search(r"\./(\w+)", " ".join(s for s in steps if s.startswith("./")))
    program = demo[1] if demo else "demo"
    build = work / "build"
    build.mkdir(exist_ok=True)
    shutil.copy(exe, build / program)
    reports = work / "reports"
    reports.mkdir()
    env = dict(os.environ, TUNER_SIM_REPORT_DIR=str(reports), TUNER_SIM_REPORT=str(reports / "crash.json"),
               TUNER_SIM_TIMEOUT=str(STEP_TIMEOUT_S))
    script = "set -e\n" + "\n".join(steps) + "\n"
    try:
        proc = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                              timeout=STEP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Row(name, "fail", f"timeout after {STEP_TIMEOUT_S} s", seconds=time.perf_counter() - start)
    launches = [json.loads(p.read_text()) for p in sorted(reports.glob("*.json"))]
    faults = [f["text"] for r in launches for f in r.get("faults", [])]
    simulated = sum(r.get("task_duration_us") or 0 for r in launches) if launches else None
    row = Row(name, "pass", launches=len(launches), simulated_us=simulated, seconds=time.perf_counter() - start,
              reports=launches, output=proc.stdout)
    if faults:
        row.status, row.why = "fail", "fault: " + faults[0].replace(str(work) + "/", "")
    elif proc.returncode != 0:
        tail = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()][-3:]
        row.status, row.why = "fail", f"exit {proc.returncode}: " + " | ".join(tail)[:300]
    elif not launches:
        row.status, row.why = "fail", "the program launched no kernel"
    return row


def markdown(rows: list[Row], repo_commit: str) -> str:
    run = [r for r in rows if r.status != "excluded"]
    passed = sum(r.status == "pass" for r in run)
    lines = [
        "# asc-devkit's A2 vector examples on the simulator",
        "",
        f"Generated by `python benchmarks/asc_samples.py --report docs/asc_samples.md` from asc-devkit at "
        f"`{repo_commit[:12]}`. Each example runs unchanged, as its README runs it (gen_data.py, the program built "
        f"for the simulator with its CMakeLists' defines, verify_result.py against its own golden data), on the "
        f"{SOC} model. Times are simulated ({SOC} model), the sum over the program's launches.",
        "",
        f"**{passed} of {len(run)} run and match their golden output** ({len(rows) - len(run)} examples excluded "
        "as outside the vector core's memory-based API).",
        "",
        "| Example | Status | Launches | Simulated us | Why it fails / is excluded |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        us = f"{r.simulated_us:.2f}" if r.simulated_us is not None and r.status == "pass" else ""
        why = r.why.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r.name} | {r.status} | {r.launches or ''} | {us} | {why} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO, help="asc-devkit git directory")
    parser.add_argument("--only", action="append", default=[], help="run examples whose path contains this")
    parser.add_argument("--report", type=Path, help="write the markdown table here")
    args = parser.parse_args()
    if not (args.repo / "HEAD").exists() and not (args.repo / ".git").exists():
        print(f"error: no asc-devkit git directory at {args.repo} (fetch mirror-cann/asc-devkit, or --repo)")
        return 2
    names = [n.removeprefix(EXAMPLES + "/") for n in example_dirs(args.repo)]
    if args.only:
        names = [n for n in names if any(o in n for o in args.only)]
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix="asc-sample-") as tmp:
            row = run_example(args.repo, name, Path(tmp))
        rows.append(row)
        print(f"{row.status:8} {row.name:70} {row.seconds:6.1f}s {row.why[:160]}", flush=True)
    if args.report:
        commit = git(args.repo, "rev-parse", "HEAD").decode().strip()
        args.report.write_text(markdown(rows, commit))
    run = [r for r in rows if r.status != "excluded"]
    print(f"{sum(r.status == 'pass' for r in run)} of {len(run)} examples pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
