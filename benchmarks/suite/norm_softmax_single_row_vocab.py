"""Softmax of a single float16 row of 32000 (a vocabulary-sized row: one row must be split across cores)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x * 4.0, dim=-1)


ROWS = 1
COLS = 32000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
