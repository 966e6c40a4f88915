"""hardsigmoid(4x) on a single float16 row of 999 elements (one row, odd length)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.hardsigmoid(x * 4.0)


ROWS = 1
COLS = 999


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
