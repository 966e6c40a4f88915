"""The search commands as a user runs them: bad input, the JSON contract, show, export, kill -9, Ctrl-C, dashboard."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import optuna
import pytest
from commands import one_line_error as _one_line_error
from commands import tuner_child as tuner
from commands import tuner_here
from optuna.trial import TrialState

from tuner.search.storage import open_storage, run_studies

from .disks import damage, digest, remount, tmpfs
from .run_trials import finished

SMALL = ["--shape", "16x200", "--seed", "3"]


@pytest.mark.parametrize(("args", "fragments"), [
    (["optimize", "softmaxx"], ["unknown operator 'softmaxx'", "softmax"]),
    (["optimize", "softmax", "--soc", "Ascend999"], ["Ascend999", "Ascend910B2"]),
    (["optimize", "softmax", "--shape", "40x"], ["malformed shape '40x'"]),
    (["optimize", "softmax", "--shape", "0x8"], ["malformed shape '0x8'"]),
    (["optimize", "softmax", "--shape", "65536x65536"], ["exceed"]),
    (["optimize", "softmax", "--dtype", "int8"], ["does not support dtype 'int8'"]),
    (["optimize", "softmax", "--budget", "0"], ["--budget must be at least 1"]),
    (["optimize", "softmax", "--sampler", "annealing"], ["unknown sampler 'annealing'"]),
    (["optimize", "softmax", "--backend", "npu"], ["npu backend is not available"]),
    (["show", "no-such-run"], ["no run 'no-such-run'"]),
    (["export", "no-such-run", "out"], ["no run 'no-such-run'"]),
    (["optimize", "softmax", "--time-limit", "-1"], ["--time-limit must be a positive, finite number", "-1"]),
    (["optimize", "softmax", "--time-limit", "nan"], ["--time-limit must be a positive, finite number", "nan"]),
    (["optimize", "softmax", "--plateau-eps", "nan"], ["--plateau-eps must be a relative improvement", "nan"]),
    (["optimize", "softmax", "--plateau-eps", "-0.5"], ["--plateau-eps must be a relative improvement"]),
    (["optimize", "softmax", "--gate", "fast"], ["--gate takes a relative margin", "auto or off", "fast"]),
    (["optimize", "softmax", "--gate", "-0.1"], ["--gate must be a relative margin of at least 0", "-0.1"]),
    (["optimize", "softmax", "--llm-timeout", "inf"], ["--llm-timeout must be a positive, finite number", "inf"]),
    (["optimize", "softmax", "--jobs", "-2"], ["--jobs must be at least 1 (got -2)"]),
    (["optimize", "softmax", "--workers", "0"], ["--workers must be at least 1 (got 0)"]),
    (["optimize", "softmax", "--plateau", "-1"], ["--plateau must not be negative (got -1)"]),
    (["optimize", "rmsnorm", "--option", "eps=nan"], ["option eps=nan: not a finite number"]),
    (["optimize", "softmax", "--run", "../../escape"], ["run name '../../escape' is not one safe path component"]),
    (["optimize", "softmax", "--run", ".."], ["run name '..' is not one safe path component"]),
    (["optimize", "softmax", "--shape", "4096x4096", "--jobs", "1000000"], ["1000000 candidates at once",
                                                                           "needs about", "available"]),
    (["bench", "--jobs", "0"], ["--jobs must be at least 1 (got 0)"]),
    (["bench", "--soc", "ascend999"], ["unknown SoC 'ascend999'"]),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, fragments):
    _one_line_error(tuner_here(*args, cwd=tmp_path), 2, *fragments)
    assert not (tmp_path / "runs").exists() or args[0] in ("show", "export")


def test_a_run_the_machine_cannot_hold_is_refused_before_it_takes_memory(tmp_path):
    from tuner.ops import get_operator
    from tuner.processes import available_memory
    from tuner.search.config import run_memory_bytes

    need, (room, _) = run_memory_bytes(get_operator("softmax"), (40000, 40000), "float16", 2), available_memory()
    if need <= room:
        pytest.skip(f"this machine has {room / 2**30:.0f} GiB available: 40000x40000 fits")
    proc = subprocess.Popen([sys.executable, "-m", "tuner.cli", "optimize", "softmax", "--shape", "40000x40000"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    done = subprocess.CompletedProcess(proc.args, os.waitstatus_to_exitcode(status), proc.stdout.read(),
                                       proc.stderr.read())
    _one_line_error(done, 2, "softmax 40000x40000 float16", f"needs about {need / 2**30:.1f} GiB of memory; "
                    "this machine has ", "GiB available")
    assert usage.ru_maxrss < 2 * 2**20, "refused only after taking memory"  # KiB


def test_a_soc_in_any_case_names_the_same_run(tmp_path):
    proc = tuner_here("optimize", "softmax", *SMALL, "--soc", "ascend910b2", "--prepare", "--json", cwd=tmp_path)
    assert proc.exit_code == 0, proc.stderr
    assert "times are simulated, Ascend910B2 model" in proc.stderr
    studies = json.loads(proc.stdout)["studies"]
    assert studies and all(name.startswith("softmax-16x200-float16-Ascend910B2-sim:") for name in studies)
    suite = tmp_path / "suite.yaml"
    suite.write_text("cases:\n  - {op: softmax, shape: [65536, 65536], dtype: float16}\n")  # refused, not run
    bench = tuner_here("bench", "--suite", str(suite), "--soc", "ASCEND910B2", "--json", cwd=tmp_path)
    assert bench.exit_code == 0, bench.stderr
    result = json.loads(bench.stdout)
    assert result["soc"] == "Ascend910B2" and result["cases"][0]["run"] == "softmax-65536x65536-float16-Ascend910B2-sim"


def test_storage_problems_are_one_line_errors(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(os.urandom(4096))
    _one_line_error(tuner("optimize", "softmax", "--storage", f"sqlite:///{junk}", cwd=tmp_path), 2,
                    "not an Optuna database")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    _one_line_error(tuner_here("show", "--storage", f"sqlite:///{other}", cwd=tmp_path), 2, "not an Optuna database")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _one_line_error(tuner_here("show", "--storage", f"postgresql+psycopg://u:p@127.0.0.1:{port}/db", cwd=tmp_path), 2,
                    "cannot open storage")


def test_ops_lists_operators_their_variants_and_options(tmp_path):
    proc = tuner_here("ops", cwd=tmp_path)
    assert proc.exit_code == 0
    assert "softmax:" in proc.stdout and "  rows:" in proc.stdout and "  split:" in proc.stdout
    assert "  options: approximate=none (--option NAME=VALUE)" in proc.stdout  # gelu's own option


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("cli")
    proc = tuner("optimize", "softmax", *SMALL, "--budget", "8", "--json", cwd=cwd)
    return cwd, proc


def test_json_prints_exactly_one_object_on_stdout(cli_run):
    cwd, proc = cli_run
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["op"] == "softmax" and data["shape"] == [16, 200] and data["soc"] == "Ascend910B2"
    assert data["backend"] == "sim" and data["trials"] == 8 and data["best_us"] <= data["baseline_us"]
    assert data["best_dir"] == str(Path("runs") / data["run"] / "best")
    assert (cwd / data["best_dir"] / "kernel.json").is_file()
    assert data["storage"] == "sqlite:///runs/tuner.db"


def test_show_lists_runs_and_one_run(cli_run):
    cwd, proc = cli_run
    run = json.loads(proc.stdout)["run"]
    listing = tuner_here("show", cwd=cwd)
    assert listing.exit_code == 0 and "softmax-16x200" in listing.stdout
    one = tuner_here("show", run, "--json", cwd=cwd)
    assert json.loads(one.stdout)["best_us"] == json.loads(proc.stdout)["best_us"]
    table = tuner_here("show", run, cwd=cwd)
    assert "speedup" in table.stdout and "simulated, Ascend910B2 model" in table.stdout


def test_export_any_trial_and_refuse_a_failed_one(cli_run):
    cwd, proc = cli_run
    data = json.loads(proc.stdout)
    storage, _ = open_storage(None, cwd / "runs")
    info = next(i for i in run_studies(storage, data["run"])[data["run"]] if i.variant == "split")
    trials = optuna.load_study(study_name=info.name, storage=storage).trials
    done = next(t for t in trials if t.state == TrialState.COMPLETE)
    out = tuner_here("export", data["run"], "exported", "--trial", f"split:{done.number}", cwd=cwd)
    assert out.exit_code == 0, out.stderr
    described = json.loads((cwd / "exported" / "kernel.json").read_text())
    assert described["variant"] == "split" and described["trial"] == done.number
    pruned = next((t for t in trials if t.state == TrialState.PRUNED), None)
    if pruned is not None:
        _one_line_error(tuner_here("export", data["run"], "x", "--trial", f"split:{pruned.number}", cwd=cwd), 2,
                        "did not produce a correct kernel")
    _one_line_error(tuner_here("export", data["run"], "x", "--trial", "split:9999", cwd=cwd), 2, "has no trial")


def test_dashboard_serves_runs_with_kernel_sources(cli_run):
    cwd, proc = cli_run
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "tuner.cli", "dashboard", "--port", str(port)], cwd=cwd,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                studies = json.load(urllib.request.urlopen(f"{base}/api/studies", timeout=5))["study_summaries"]
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        run = json.loads(proc.stdout)["run"]
        ours = [s for s in studies if s["study_name"].startswith(f"{run}:")]
        assert ours and all(any(a["key"] == "run_id" for a in s["user_attrs"]) for s in ours)
        detail = json.load(urllib.request.urlopen(f"{base}/api/studies/{ours[0]['study_id']}?after=0", timeout=10))
        with_source = [t for t in detail["trials"] if t["artifacts"]]
        assert with_source
        trial = with_source[0]
        artifact = next(a for a in trial["artifacts"] if a["filename"].endswith(".cpp"))
        url = f"{base}/artifacts/{ours[0]['study_id']}/{trial['trial_id']}/{artifact['artifact_id']}"
        source = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "softmax_custom" in source and "__aicore__" in source
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_damaged_database_is_one_line_and_left_untouched(cli_run, tmp_path):
    cwd, proc = cli_run
    run = json.loads(proc.stdout)["run"]
    shutil.copytree(cwd / "runs", tmp_path / "runs")
    before = finished(tmp_path / "runs", run)
    backup = tmp_path / "backup.db"
    shutil.copyfile(tmp_path / "runs" / "tuner.db", backup)
    damaged = damage(tmp_path / "runs" / "tuner.db")
    for args in (["optimize", "softmax", *SMALL, "--budget", "10"], ["show"], ["show", run], ["export", run, "x"]):
        _one_line_error(tuner_here(*args, cwd=tmp_path), 2, "runs/tuner.db is damaged", "nothing was written to it")
    assert digest(tmp_path / "runs" / "tuner.db") == damaged
    shutil.copyfile(backup, tmp_path / "runs" / "tuner.db")  # restored, the run is all there
    assert finished(tmp_path / "runs", run) == before


def test_a_read_only_runs_directory_is_one_line_and_the_run_resumes_once_writable(cli_run, tmp_path):
    cwd, proc = cli_run
    run = json.loads(proc.stdout)["run"]
    before = finished(cwd / "runs", run)
    with tmpfs(tmp_path / "runs", "16m") as runs:
        shutil.copytree(cwd / "runs", runs, dirs_exist_ok=True)
        remount(runs, "ro")
        try:
            for args in (["optimize", "softmax", *SMALL, "--budget", "10"], ["show", run]):
                _one_line_error(tuner_here(*args, cwd=tmp_path), 2, "cannot write in runs (Read-only file system)")
        finally:
            remount(runs, "rw")
        done = tuner_here("optimize", "softmax", *SMALL, "--budget", "10", "--json", cwd=tmp_path)
        assert done.exit_code == 0, done.stderr
        assert json.loads(done.stdout)["trials"] == 10 and before <= finished(runs, run)


@pytest.mark.parametrize(("arg", "fragments"), [
    ("out=z.npy:float16:99999999999999", ["the simulation (largest GM buffer: z.npy", "needs about",
                                          "GiB available"]),
    ("out=/nonexistent/dir/z.npy:float16:4096", ["out=/nonexistent/dir/z.npy:float16:4096: directory "
                                                 "/nonexistent/dir does not exist"]),
    ("in=empty.npy", ["--arg in=empty.npy: empty.npy is empty (0 bytes), not a .npy file"]),
    ("--json=/nonexistent/r.json", ["--json /nonexistent/r.json: directory /nonexistent does not exist"]),
    ("--timeout=nan", ["--timeout must be a positive, finite number of seconds (got nan)"]),
])
def test_simulate_refuses_what_it_could_not_finish_before_building(tmp_path, arg, fragments):
    import numpy as np

    np.save(tmp_path / "x.npy", np.ones(4096, np.float16))
    (tmp_path / "empty.npy").write_bytes(b"")
    (tmp_path / "add.cpp").write_text("this does not compile\n")  # a build would end in exit 3
    args = ["in=x.npy", "in=x.npy", "out=z.npy:float16:4096", "u32=4096", "u32=2"]
    extra = [arg] if arg.startswith("--") else []
    if not extra:
        args[0 if arg.startswith("in=") else 2] = arg
    proc = tuner_here("simulate", "add.cpp", "--kernel", "add_custom", "--block-dim", "4",
                      *[f"--arg={a}" for a in args], *extra, cwd=tmp_path)
    _one_line_error(proc, 2, *fragments)
