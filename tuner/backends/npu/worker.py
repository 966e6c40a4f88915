"""The device worker: a process of its own per NPU that loads built kernels, launches them on torch_npu's current
stream, and times them with NPU events.

The tuner (device.py) talks to it in JSON lines on stdin/stdout and kills it when a request outlives its
timeout: a hung kernel takes this process down, never the tuner. Arrays travel as raw files in a directory
both sides share. Input tensors are loaded onto the device once per file and copied afresh before every
request, so a kernel that writes into its inputs cannot spoil a later candidate's run; raw buffers (the tiling, a
workspace of zeros) are given again before every timed launch, so each launch starts from what the first did.
Every device call is
torch_npu's public API: `Tensor.npu()`, `torch.npu.current_stream().npu_stream`, `torch.npu.Event`.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tuner.backends.npu.launcher import LAUNCH_SYMBOL
from tuner.backends.npu.timing import launches_needed
from tuner.ops import get_operator
from tuner.ops.base import DTYPES, NUMPY_DTYPES, to_numpy, to_torch


class LaunchError(RuntimeError):
    """tuner_launch returned an error code (the ACL launch failed, or the argument count is wrong)."""


def read_array(spec: dict[str, Any]) -> np.ndarray:
    return np.fromfile(spec["path"], dtype=NUMPY_DTYPES[spec["dtype"]]).reshape(spec["shape"])


def write_array(tensor: torch.Tensor, path: Path) -> str:
    to_numpy(tensor.cpu()).tofile(path)
    return str(path)


class Worker:
    """The state of one device process: loaded libraries and the pristine copy of every input file."""

    def __init__(self) -> None:
        import torch_npu  # noqa: F401  (registers torch.npu and Tensor.npu)

        torch.npu.set_device(0)  # the parent pins the NPU with ASCEND_RT_VISIBLE_DEVICES
        self.libraries: dict[str, Callable[..., int]] = {}
        self.inputs: dict[str, torch.Tensor] = {}
        self.flush_buffers: dict[int, torch.Tensor] = {}

    def hello(self, _: dict[str, Any]) -> dict[str, Any]:
        import torch_npu

        return {"device": str(torch.npu.get_device_name(0)), "torch_npu": str(torch_npu.__version__),
                "pid": os.getpid()}

    def _launcher(self, path: str) -> Callable[..., int]:
        if path not in self.libraries:
            fn = getattr(ctypes.CDLL(path), LAUNCH_SYMBOL)
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                           ctypes.POINTER(ctypes.c_uint64), ctypes.c_uint32]
            self.libraries[path] = fn
        return self.libraries[path]

    def _input(self, spec: dict[str, Any]) -> torch.Tensor:
        """A fresh device copy of an input file (the file's first load is kept as the pristine copy)."""
        if spec["path"] not in self.inputs:
            self.inputs[spec["path"]] = to_torch(read_array(spec)).npu()
        return self.inputs[spec["path"]].clone()

    def _tensor(self, spec: dict[str, Any]) -> torch.Tensor:
        if spec["kind"] == "in":
            return self._input(spec)
        if spec["kind"] == "out":
            return torch.zeros(spec["shape"], dtype=DTYPES[spec["dtype"]]).npu()
        data = bytes.fromhex(spec["hex"])
        return torch.frombuffer(bytearray(data), dtype=torch.uint8).npu()

    def launch(self, req: dict[str, Any]) -> dict[str, Any]:
        """Launch a kernel once and, with `timing`, time it; outputs of the first launch, and of the last timed
        one (checked again: a kernel that races can be right once and wrong later)."""
        fn = self._launcher(req["lib"])
        tensors = [self._tensor(spec) for spec in req["args"]]
        n = len(tensors)
        ptrs = (ctypes.c_void_p * n)(*[t.data_ptr() for t in tensors])
        sizes = (ctypes.c_uint64 * n)(*[t.numel() * t.element_size() for t in tensors])
        stream = ctypes.c_void_p(torch.npu.current_stream().npu_stream)
        block_dim = int(req["block_dim"])

        def run() -> None:
            code = fn(block_dim, stream, ptrs, sizes, n)
            if code != 0:
                raise LaunchError(f"{LAUNCH_SYMBOL} returned {code}")

        given = [(tensors[i], tensors[i].clone()) for i, spec in enumerate(req["args"]) if spec["kind"] == "bytes"]

        def give_again() -> None:
            for tensor, content in given:
                tensor.copy_(content)

        outs = [i for i, spec in enumerate(req["args"]) if spec["kind"] == "out"]
        out_dir = Path(req["out_dir"])
        run()
        torch.npu.synchronize()
        reply: dict[str, Any] = {"outputs": [write_array(tensors[i], out_dir / f"first-{i}.bin") for i in outs]}
        if req.get("timing"):
            reply["samples_us"] = time_launches(run, req["timing"], self._flush(req["timing"]), give_again)
            reply["after"] = [write_array(tensors[i], out_dir / f"after-{i}.bin") for i in outs]
        return reply

    def _flush(self, timing: dict[str, Any]) -> torch.Tensor | None:
        """The device buffer written before each timed launch, allocated once per size."""
        size = int(timing.get("flush_bytes") or 0)
        if size and size not in self.flush_buffers:
            self.flush_buffers[size] = torch.empty(size, dtype=torch.uint8).npu()
        return self.flush_buffers.get(size)

    def torch_op(self, req: dict[str, Any]) -> dict[str, Any]:
        """torch's own implementation of an operator on the device (`Operator.torch_native`): its outputs, and
        with `timing` its launch times."""
        op = get_operator(req["name"]).with_options(req.get("options") or {})
        inputs = {name: self._input(spec) for name, spec in req["inputs"].items()}
        out_dir = Path(req["out_dir"])
        outputs = op.torch_native(inputs)
        torch.npu.synchronize()
        reply: dict[str, Any] = {"outputs": {name: {"path": write_array(t, out_dir / f"torch-{name}.bin"),
                                                    "shape": list(t.shape)} for name, t in outputs.items()}}
        if req.get("timing"):
            reply["samples_us"] = time_launches(lambda: op.torch_native(inputs), req["timing"],
                                                self._flush(req["timing"]))
        return reply


def time_launches(run: Callable[[], None], timing: dict[str, Any], flush: torch.Tensor | None,
                  prepare: Callable[[], None] = lambda: None) -> list[float]:
    """Launch times in µs from NPU events: a warm launch sets the count (≥ min_launches or ≥ min_total_ms),
    then each timed launch follows a write of `flush` (2× L2) so it reads its inputs cold. `prepare` runs before
    every launch, outside its events (the launch's raw buffers given again)."""
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    prepare()
    start.record()
    run()
    end.record()
    end.synchronize()
    count = launches_needed(start.elapsed_time(end) * 1000.0, int(timing["min_launches"]),
                            float(timing["min_total_ms"]))
    events = [(torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)) for _ in range(count)]
    for before, after in events:
        prepare()
        if flush is not None:
            flush.zero_()
        before.record()
        run()
        after.record()
    torch.npu.synchronize()
    return [before.elapsed_time(after) * 1000.0 for before, after in events]


def serve(requests, replies) -> None:
    """Answer each JSON request line with one JSON line; an exception becomes {"error": ...}."""
    worker = Worker()
    handlers = {"hello": worker.hello, "launch": worker.launch, "torch": worker.torch_op}
    for line in requests:
        request = json.loads(line)
        try:
            reply = handlers[request["op"]](request)
        except Exception as exc:  # reported to the tuner, which records it against the candidate
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main(argv: list[str]) -> None:
    """Serve requests on stdin; or, with `--once REQUEST.json`, answer that one request and exit (the program
    `msprof op` profiles)."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever native code prints goes to stderr, never into the replies
    if argv[:1] == ["--once"] and len(argv) == 2:
        serve([Path(argv[1]).read_text()], replies)
    else:
        serve(sys.stdin, replies)


if __name__ == "__main__":
    main(sys.argv[1:])
