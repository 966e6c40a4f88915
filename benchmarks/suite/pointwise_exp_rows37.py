"""Elementwise exp over a 37x1000 float32 matrix: 37 rows (not a multiple of the 20 cores), 1000 columns (4000
bytes, not a multiple of 32)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.exp(x)


ROWS = 37
COLS = 1000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
