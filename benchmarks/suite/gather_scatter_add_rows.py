"""scatter_add along axis 0: 300x64 float32 source rows added into a 100x64 base at randint indices (collisions)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, base, index, src):
        return torch.scatter_add(base, 0, index, src)


BASE_ROWS = 100
SRC_ROWS = 300
COLS = 64


def get_inputs():
    return [torch.randn(BASE_ROWS, COLS, dtype=torch.float32),
            torch.randint(0, BASE_ROWS, (SRC_ROWS, COLS), dtype=torch.int64),
            torch.randn(SRC_ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
