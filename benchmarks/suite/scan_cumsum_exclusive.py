"""Exclusive cumsum (cumsum(x) - x) along the last axis of float16 5x1023 (5 rows, odd scan length)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=-1) - x


ROWS = 5
COLS = 1023


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
