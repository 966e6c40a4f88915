"""relu on a bfloat16 2048x64 matrix: the aligned baseline (128-byte rows, 2048 rows to spread over the cores)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


ROWS = 2048
COLS = 64


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
