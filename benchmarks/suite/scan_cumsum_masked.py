"""Masked cumsum, cumsum(x * mask) along the last axis, float32 37x600 values with a boolean mask input."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask):
        return torch.cumsum(x * mask.to(x.dtype), dim=-1)


ROWS = 37
COLS = 600


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randint(0, 2, (ROWS, COLS)).to(torch.bool)]


def get_init_inputs():
    return []
