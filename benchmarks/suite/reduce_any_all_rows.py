"""Two boolean row reductions of float32 50x400: any(x > 2.5) and all(|x| < 3.2); returns both."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.any(x > 2.5, dim=-1), torch.all(x.abs() < 3.2, dim=-1)


ROWS = 50
COLS = 400


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
