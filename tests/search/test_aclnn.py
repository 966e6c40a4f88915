"""The NPU path's marshalling (tuner.search.aclnn) against a C stand-in with CANN's signatures, whose operator computes
a row softmax from the descriptors it is handed; where the libraries are missing, one line."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from tuner.search.aclnn import AclnnError, AclnnOp, NpuOpUnavailable, TensorDesc, opapi_candidates


def build_standin(library: Path) -> Path:
    """Compile the C stand-in for CANN's libraries to `library`."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    library.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(library), str(Path(__file__).with_name(
        "aclnn_standin.c")), "-lm"], check=True)
    return library


@pytest.fixture(scope="module")
def standin(tmp_path_factory) -> Path:
    return build_standin(tmp_path_factory.mktemp("aclnn") / "libstandin.so")


def test_a_view_is_described_by_its_storage_and_offset():
    base = torch.arange(40, dtype=torch.float32).reshape(4, 10)
    view = base[1:3, 2:8]
    desc = TensorDesc.of(view)
    assert desc.dims == (2, 6) and desc.strides == (10, 1) and desc.offset == 12
    assert desc.storage_dims == (40,) and desc.dtype == 0 and desc.address == base.data_ptr()
    assert TensorDesc.of(torch.zeros(3, dtype=torch.float16).t()).dtype == 1


def test_the_operator_library_is_looked_for_where_cann_installs_it(tmp_path):
    vendor = tmp_path / "opp" / "vendors" / "customize" / "op_api" / "lib"
    vendor.mkdir(parents=True)
    (vendor / "libcust_opapi.so").touch()
    found = opapi_candidates({"ASCEND_CUSTOM_OPP_PATH": "/a/vendors/mine:/b/op_api/lib",
                              "ASCEND_HOME_PATH": str(tmp_path)})
    assert found[:4] == [Path("/a/vendors/mine/libcust_opapi.so"), Path("/a/vendors/mine/op_api/lib/libcust_opapi.so"),
                         Path("/b/op_api/lib/libcust_opapi.so"), Path("/b/op_api/lib/op_api/lib/libcust_opapi.so")]
    assert found[4] == vendor / "libcust_opapi.so"
    assert opapi_candidates({}) == []


def test_without_cann_the_error_is_one_line(tmp_path, standin):
    with pytest.raises(NpuOpUnavailable, match="libnnopbase.so not found .*set_env.sh") as missing:
        AclnnOp("SoftmaxCustom", opapi=[standin], nnopbase=[tmp_path / "libnnopbase.so"])
    assert "\n" not in str(missing.value)
    with pytest.raises(NpuOpUnavailable, match="libcust_opapi.so not found .*build.sh"):
        AclnnOp("SoftmaxCustom", opapi=[], nnopbase=[standin])
    with pytest.raises(NpuOpUnavailable, match="no aclnnRmsNorm"):
        AclnnOp("RmsNorm", opapi=[standin], nnopbase=[standin])


def test_the_operator_gets_each_tensor_workspace_and_stream(standin):
    op = AclnnOp("SoftmaxCustom", opapi=[standin], nnopbase=[standin])
    lib = ctypes.CDLL(str(standin))
    torch.manual_seed(0)
    wide = torch.randn(6, 40)
    x = wide[1:5, 3:35]  # a view: offset and row stride differ from a fresh tensor's
    y = torch.empty(32, 4).t()  # a transposed output: column stride 4
    op([x], [y], stream=0x1234)
    assert torch.allclose(y, torch.softmax(x, -1), atol=1e-6)
    assert ctypes.c_int.in_dll(lib, "live_tensors").value == 0
    assert ctypes.c_uint64.in_dll(lib, "last_workspace_size").value == 4096
    assert ctypes.c_void_p.in_dll(lib, "last_stream").value == 0x1234
    with pytest.raises(AclnnError, match="GetWorkspaceSize returned 161001"):
        op([x.int()], [y.int()], stream=0)
    assert ctypes.c_int.in_dll(lib, "live_tensors").value == 0
