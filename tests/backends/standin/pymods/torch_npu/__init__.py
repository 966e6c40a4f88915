"""Stand-in torch_npu (tests only): see tests/backends/standin/npu_runtime.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from npu_runtime import __version__, install  # noqa: E402

install()
__all__ = ["__version__"]
