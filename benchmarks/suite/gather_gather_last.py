"""torch.gather along the last axis: 50 picks per row from float32 64x1000 with int64 indices from randint."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        return torch.gather(x, -1, index)


ROWS = 64
COLS = 1000
PICKS = 50


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randint(0, COLS, (ROWS, PICKS), dtype=torch.int64)]


def get_init_inputs():
    return []
