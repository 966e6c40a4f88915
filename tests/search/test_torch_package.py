"""The exported torch package: pip-installed, torch.ops.tuner.softmax matches torch.softmax on CPU (through the
simulator) at shapes of its range, works under torch.compile, and refuses a shape or dtype outside it in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tuner.search.aclnn import NpuOpUnavailable
from tuner.search.binding import TunedOp, write_torch_package
from tuner.search.builds import build_key, exported_builds

from .test_aclnn import build_standin
from .test_dispatch import baseline_bucket, dispatcher

CHECK = r"""
import json, sys
import torch
import tuner_op_softmax

out = {}
torch.manual_seed(0)
for shape in [(3, 1000), (1, 1024), (70, 2048)]:
    x = torch.randn(*shape, dtype=torch.float16) * 4
    y = torch.ops.tuner.softmax(x)
    ref = torch.softmax(x.double(), -1)
    out[str(shape)] = [y.dtype == torch.float16, tuple(y.shape) == shape,
                       bool(torch.allclose(y.double(), ref, rtol=2e-3, atol=2e-5 * ref.abs().max().item()))]
compiled = torch.compile(lambda x: torch.ops.tuner.softmax(x) * 2.0)
x = torch.randn(5, 1024, dtype=torch.float16)
out["compile"] = bool(torch.allclose(compiled(x).double(), 2 * torch.softmax(x.double(), -1), rtol=2e-3, atol=1e-4))
for bad in (torch.randn(1, 8192, dtype=torch.float16), torch.randn(4, 1024, dtype=torch.float32)):
    try:
        torch.ops.tuner.softmax(bad)
        out[str(bad.dtype)] = "no error"
    except Exception as exc:
        out[str(bad.dtype) + str(tuple(bad.shape))] = str(exc)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("torch_package")
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((64, 1024)))
    write_torch_package(d, root / "runs", root / "pkg")
    target = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target",
                    str(target), str(root / "pkg")], check=True, capture_output=True, text=True)
    return target


def test_the_package_holds_every_build_its_range_needs(tmp_path):
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((64, 1024)))
    builds = exported_builds(d)
    assert build_key(d.choose((1, 1024))) in builds
    assert build_key(d.choose((3, 1023))) in builds  # rows that are no whole 32-byte blocks: DataCopyPad
    assert len(builds) == 2
    write_torch_package(d, tmp_path / "runs", tmp_path / "pkg")
    package = tmp_path / "pkg" / "tuner_op_softmax"
    assert sorted(p.stem for p in (package / "builds").glob("*.cpp")) == sorted(builds)
    assert json.loads((package / "dispatch.json").read_text())["name"] == "set"
    assert json.loads((package / "npu.json").read_text()) == {"op_type": "SoftmaxCustom"}
    assert json.loads((package / "cann_op" / "softmax_custom.json").read_text())[0]["op"] == "SoftmaxCustom"


def test_without_a_cann_operator_the_npu_path_says_why_in_one_line():
    d = dispatcher(baseline_bucket((1, 1024)))
    op = TunedOp(d, {key: build.source for key, build in exported_builds(d).items()},
                 npu={"refused": "a function generated from PyTorch"})
    with pytest.raises(NpuOpUnavailable, match=r"^torch.ops.tuner.softmax has no NPU kernel: a function generated"):
        op.on_npu(torch.zeros(2, 1024, dtype=torch.float16))


def test_installed_it_matches_torch_and_compiles_and_refuses_one_line(installed):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env=env, cwd=installed,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for shape in ("(3, 1000)", "(1, 1024)", "(70, 2048)"):
        assert out[shape] == [True, True, True], (shape, out)
    assert out["compile"] is True
    assert "cols = 8192 is outside 512..2048" in out["torch.float16(1, 8192)"]
    assert "tuned for float16, not float32" in out["torch.float32(4, 1024)"]
    assert all("\n" not in v for v in out.values() if isinstance(v, str))


ON_NPU = r"""
import json, sys
import torch
sys.path.insert(0, sys.argv[1])
torch.utils.rename_privateuse1_backend("npu")  # what torch_npu does on import; the stand-in's tensors stay on CPU
import torch_npu, tuner_op_softmax

torch.manual_seed(0)
x = torch.randn(3, 1000, dtype=torch.float16) * 4
y = tuner_op_softmax.tuned_op().on_npu(x)[0]
ref = torch.softmax(x.double(), -1)
print(json.dumps([y.dtype == torch.float16, bool(torch.allclose(y.double(), ref, rtol=2e-3, atol=1e-4))]))
"""


def test_on_an_npu_it_calls_the_installed_cann_operator(installed, tmp_path):
    """The package's npu kernel, against the stand-in torch_npu of tests/backends and the C stand-in for CANN's
    libraries where CANN's installer puts them: the op found by its type, run on the current stream."""
    build_standin(tmp_path / "cann" / "lib64" / "libnnopbase.so")
    build_standin(tmp_path / "vendors" / "customize" / "op_api" / "lib" / "libcust_opapi.so")
    env = {**os.environ, "ASCEND_HOME_PATH": str(tmp_path / "cann"),
           "ASCEND_CUSTOM_OPP_PATH": str(tmp_path / "vendors" / "customize"),
           "PYTHONPATH": os.pathsep.join([str(installed), os.environ.get("PYTHONPATH", "")])}
    pymods = Path(__file__).resolve().parents[1] / "backends" / "standin" / "pymods"
    proc = subprocess.run([sys.executable, "-c", ON_NPU, str(pymods)], capture_output=True, text=True, env=env,
                          cwd=installed, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [True, True]
