"""Cumulative product along the last axis of (1 + 0.01 x), float32 64x77 (odd scan length)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumprod(1.0 + 0.01 * x, dim=-1)


ROWS = 64
COLS = 77


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
