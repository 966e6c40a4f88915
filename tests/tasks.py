"""A user's task file in KernelBench's format, as the tests write one. Importable from every test package (pytest
puts tests/ on the path)."""

from __future__ import annotations

import textwrap
from pathlib import Path

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"


def write_task(directory: Path, name: str, forward: str, inputs: str, members: str = "") -> Path:
    """`directory/name.py`: a Model whose forward is `forward` ("x, y: expression"), with `members` (one line of
    statements) in its __init__, and get_inputs() returning `inputs`."""
    path = directory / f"{name}.py"
    arguments, expression = forward.split(":", 1)
    body = f"""
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
    {textwrap.indent(textwrap.dedent(members), "        ") if members else ""}
        def forward(self, {arguments}):
            return {expression.strip()}

    def get_inputs():
        return [{inputs}]

    def get_init_inputs():
        return []
    """
    path.write_text(HEADER + textwrap.dedent(body))
    return path
