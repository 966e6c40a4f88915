"""x[N, M] * scale[N, 1]: each of 7 rows (fewer than the cores) scaled by its own input value, float32, 2048 columns."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, scale):
        return x * scale


ROWS = 7
COLS = 2048


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.rand(ROWS, 1, dtype=torch.float32) + 0.5]


def get_init_inputs():
    return []
