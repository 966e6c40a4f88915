"""Cumulative product along the middle axis of (1 + 0.02 x), bfloat16 2x50x33 (strided scan, 66-byte rows)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumprod(1.0 + 0.02 * x, dim=1)


SHAPE = (2, 50, 33)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
