"""hardtanh(2x) with bounds (-2, 0.5) on float32 256x129 (129 columns, 516-byte rows)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, low, high):
        super().__init__()
        self.low = low
        self.high = high

    def forward(self, x):
        return F.hardtanh(x * 2.0, min_val=self.low, max_val=self.high)


ROWS = 256
COLS = 129


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return [-2.0, 0.5]
