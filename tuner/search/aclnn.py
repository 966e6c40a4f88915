"""A CANN custom operator called on torch_npu tensors through the two entry points msopgen's build generates for it,
`aclnn<Op>GetWorkspaceSize(inputs..., outputs..., &workspaceSize, &executor)` and
`aclnn<Op>(workspace, workspaceSize, executor, stream)`, with ctypes: the NPU path of the exported torch package.

The operator is the project `tuner export --format cann-op` writes (the torch export holds a copy), built with its
`build.sh` and installed; its `libcust_opapi.so` is found where CANN's installer puts it (`ASCEND_CUSTOM_OPP_PATH`,
then `$ASCEND_OPP_PATH/vendors/*`), `aclCreateTensor` in CANN's `libnnopbase.so`. Untried on a device here (no NPU,
no CANN): what runs here is the marshalling, against a C library with the same signatures.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from tuner.errors import UsageError

__all__ = ["ACL_DTYPES", "AclnnError", "AclnnOp", "NpuOpUnavailable", "TensorDesc", "opapi_candidates"]

# aclDataType (CANN's acl_base.h) of each torch dtype the kernels take; ACL_FORMAT_ND is aclFormat 2.
ACL_DTYPES = {torch.float32: 0, torch.float16: 1, torch.int8: 2, torch.int32: 3, torch.uint8: 4, torch.int16: 6,
              torch.int64: 9, torch.bool: 12, torch.bfloat16: 27}
ACL_FORMAT_ND = 2
OPAPI_LIBRARY = "libcust_opapi.so"
NNOPBASE_LIBRARY = "libnnopbase.so"


class NpuOpUnavailable(UsageError):
    """The built CANN operator (or CANN itself) is not where the NPU path looks for it."""


class AclnnError(RuntimeError):
    """An aclnn entry point returned an error status."""


@dataclass(frozen=True)
class TensorDesc:
    """What `aclCreateTensor` takes of a tensor: view dims, strides (in elements), offset, storage dims, dtype."""

    dims: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    storage_dims: tuple[int, ...]
    dtype: int
    address: int

    @classmethod
    def of(cls, tensor: torch.Tensor) -> TensorDesc:
        if tensor.dtype not in ACL_DTYPES:
            raise UsageError(f"the CANN operator takes no {tensor.dtype} tensors")
        # the storage as one flat run of elements from the storage's start: the view sits at its offset in it
        storage = tensor.untyped_storage().nbytes() // tensor.element_size()
        return cls(tuple(tensor.shape), tuple(tensor.stride()), tensor.storage_offset(), (storage,),
                   ACL_DTYPES[tensor.dtype], tensor.untyped_storage().data_ptr())


def opapi_candidates(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where an installed custom operator's `libcust_opapi.so` may be, in CANN's order of precedence: each entry of
    ASCEND_CUSTOM_OPP_PATH (a library directory, or a vendor directory holding op_api/lib), then every vendor of
    $ASCEND_OPP_PATH/vendors (the installer's default)."""
    env = os.environ if environ is None else environ
    found: list[Path] = []
    for entry in filter(None, env.get("ASCEND_CUSTOM_OPP_PATH", "").split(":")):
        base = Path(entry)
        found += [base / OPAPI_LIBRARY, base / "op_api" / "lib" / OPAPI_LIBRARY]
    opp = env.get("ASCEND_OPP_PATH") or (env.get("ASCEND_HOME_PATH") and f"{env['ASCEND_HOME_PATH']}/opp")
    if opp:
        found += sorted(Path(opp, "vendors").glob(f"*/op_api/lib/{OPAPI_LIBRARY}"))
    return found


def _load(candidates: Sequence[Path | str], what: str, hint: str) -> ctypes.CDLL:
    errors = []
    for path in candidates:
        try:
            return ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
        except OSError as exc:
            errors.append(str(exc))
    tried = ", ".join(map(str, candidates)) or "nowhere: the CANN environment is not set"
    raise NpuOpUnavailable(f"{what} not found ({hint}); tried {tried}")


class AclnnOp:
    """`op(inputs, outputs, stream)` runs the built operator `op_type` on device tensors: creates their aclTensors,
    asks the workspace size, allocates it beside the inputs, and launches on `stream` (an aclrtStream address)."""

    def __init__(self, op_type: str, opapi: Sequence[Path | str] | None = None,
                 nnopbase: Sequence[Path | str] | None = None) -> None:
        self.op_type = op_type
        home = os.environ.get("ASCEND_HOME_PATH", "")
        base = _load(nnopbase if nnopbase is not None else
                     ([f"{home}/lib64/{NNOPBASE_LIBRARY}"] if home else []) + [NNOPBASE_LIBRARY],
                     NNOPBASE_LIBRARY, "source the CANN toolkit's set_env.sh")
        api = _load(opapi if opapi is not None else opapi_candidates(), OPAPI_LIBRARY,
                    f"build the export's cann_op/ with build.sh and install its custom_opp_*.run for {op_type}")
        try:
            self._workspace_size = getattr(api, f"aclnn{op_type}GetWorkspaceSize")
            self._launch = getattr(api, f"aclnn{op_type}")
        except AttributeError:
            raise NpuOpUnavailable(f"the installed custom operators have no aclnn{op_type}: install this export's "
                                   "cann_op/ build") from None
        self._create = base.aclCreateTensor
        self._create.restype = ctypes.c_void_p
        self._create.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(
            ctypes.c_int64), ctypes.c_int64, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_uint64,
            ctypes.c_void_p]
        self._destroy = base.aclDestroyTensor
        self._destroy.argtypes = [ctypes.c_void_p]
        self._launch.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
        self._launch.restype = self._workspace_size.restype = ctypes.c_int

    def _tensor(self, desc: TensorDesc) -> ctypes.c_void_p:
        def array(values: tuple[int, ...]):
            return (ctypes.c_int64 * max(len(values), 1))(*values)

        handle = self._create(array(desc.dims), len(desc.dims), desc.dtype, array(desc.strides), desc.offset,
                              ACL_FORMAT_ND, array(desc.storage_dims), len(desc.storage_dims), desc.address)
        if not handle:
            raise AclnnError(f"aclCreateTensor refused a {desc.dims} tensor for {self.op_type}")
        return ctypes.c_void_p(handle)

    def __call__(self, inputs: Sequence[torch.Tensor], outputs: Sequence[torch.Tensor], stream: int) -> None:
        handles = [self._tensor(TensorDesc.of(t)) for t in (*inputs, *outputs)]
        try:
            size = ctypes.c_uint64(0)
            executor = ctypes.c_void_p()
            status = self._workspace_size(*handles, ctypes.byref(size), ctypes.byref(executor))
            if status != 0:
                raise AclnnError(f"aclnn{self.op_type}GetWorkspaceSize returned {status}")
            workspace = torch.empty(size.value, dtype=torch.uint8, device=inputs[0].device) if size.value else None
            status = self._launch(ctypes.c_void_p(workspace.data_ptr() if workspace is not None else 0), size.value,
                                  executor, ctypes.c_void_p(stream))
            if status != 0:
                raise AclnnError(f"aclnn{self.op_type} returned {status}")
        finally:
            for handle in handles:
                self._destroy(handle)
