"""maximum(x, y) + minimum(x, y[0]): a binary max and a min against a broadcast row, float16 100x300."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.maximum(x, y) + torch.minimum(x, y[0:1])


ROWS = 100
COLS = 300


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16), torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
