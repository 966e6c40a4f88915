"""x / (|y| + 1): an elementwise division of two float32 inputs of 64x513 (513 columns, one past a power of two)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x / (y.abs() + 1.0)


ROWS = 64
COLS = 513


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
