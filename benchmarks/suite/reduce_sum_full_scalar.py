"""Full reduction of a float32 1000x1000 matrix to a 0-d scalar sum (1M elements across all cores)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum()


ROWS = 1000
COLS = 1000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
