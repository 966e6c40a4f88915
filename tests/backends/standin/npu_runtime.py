"""A stand-in for torch_npu, for tests on machines without an NPU: "device" tensors are CPU tensors, streams are
handles, events read the host clock, and a launch runs synchronously (the stand-in compiler builds kernels for
the tuner's simulator, so a launched kernel really computes). It offers exactly the torch_npu API the tuner
uses: `Tensor.npu()`, `torch.npu.{device_count, get_device_name, set_device, current_device, current_stream,
synchronize, Event, Stream}` and `torch_npu.__version__`."""

from __future__ import annotations

import os
import time
import types

import torch

__version__ = "2.1.0.post-standin"
_current = {"device": 0}


def _log(line: str) -> None:
    path = os.environ.get("STANDIN_NPU_LOG")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


class Stream:
    """A stream handle (`npu_stream` is what a kernel launch takes as its aclrtStream)."""

    def __init__(self, device: int = 0) -> None:
        self.device = device
        self.npu_stream = 0x5000 + device

    def synchronize(self) -> None:
        pass


class Event:
    """An event that records the host clock; launches are synchronous here, so it brackets their run time."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        self.enable_timing = enable_timing
        self._at: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        self._at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: Event) -> float:
        if not (self.enable_timing and end.enable_timing):
            raise RuntimeError("Events were not created with enable_timing=True")
        if self._at is None or end._at is None:
            raise RuntimeError("an event was not recorded")
        return (end._at - self._at) * 1000.0


def device_count() -> int:
    visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES", "").strip()
    if visible:
        return len(visible.split(","))
    return int(os.environ.get("STANDIN_NPU_COUNT", "1"))


def get_device_name(device: int = 0) -> str:
    return os.environ.get("STANDIN_NPU_NAME", "Ascend910B2")


def set_device(device: int) -> None:
    _current["device"] = int(device)
    _log(f"set_device {device} pid={os.getpid()} visible={os.environ.get('ASCEND_RT_VISIBLE_DEVICES', '')}")


def current_device() -> int:
    return _current["device"]


def current_stream(device: int | None = None) -> Stream:
    return Stream(_current["device"] if device is None else device)


def synchronize(device: int | None = None) -> None:
    pass


def is_available() -> bool:
    return device_count() > 0


def _tensor_npu(self: torch.Tensor, device: int | None = None, non_blocking: bool = False) -> torch.Tensor:
    return self.detach().clone().contiguous()


def namespace() -> types.ModuleType:
    """The `torch.npu` module torch_npu registers."""
    npu = types.ModuleType("torch.npu")
    for name in ("Event", "Stream", "device_count", "get_device_name", "set_device", "current_device",
                 "current_stream", "synchronize", "is_available"):
        setattr(npu, name, globals()[name])
    return npu


def install() -> None:
    """What importing torch_npu does to torch: `torch.npu` and `Tensor.npu`."""
    torch.npu = namespace()
    torch.Tensor.npu = _tensor_npu
