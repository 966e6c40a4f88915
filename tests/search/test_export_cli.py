"""`tuner export` and `runs/<run>/best/` as a user meets them: kernel.json names the kernel file beside it, and an
export that cannot be written is one line and exit status 2, never a traceback (tests/search/test_cli.py has the
trials that cannot be exported)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from commands import one_line_error
from commands import tuner_child as tuner

RUN = "add-8x64-float16-Ascend910B2-sim"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    cwd = tmp_path_factory.mktemp("export_cli")
    proc = tuner("optimize", "add", "--shape", "8x64", "--budget", "1", "--seed", "1", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return cwd


def test_kernel_json_names_its_source_file(run_dir):
    best = run_dir / "runs" / RUN / "best"
    described = json.loads((best / "kernel.json").read_text())
    assert described["source"] == "kernel.cpp"
    assert f'void {described["entry"]}(' in (best / described["source"]).read_text()


def test_an_unwritable_destination_is_one_line(run_dir):
    (run_dir / "a-file").write_text("not a directory\n")
    one_line_error(tuner("export", RUN, "a-file/best", cwd=run_dir), 2, "cannot write the export to a-file/best",
                   "a-file")
