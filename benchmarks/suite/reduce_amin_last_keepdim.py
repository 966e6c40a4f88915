"""amin over the last axis with keepdim of bfloat16 3x5000 (3 rows for 20 cores: the work must be split inside a
row)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.amin(dim=-1, keepdim=True)


ROWS = 3
COLS = 5000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
