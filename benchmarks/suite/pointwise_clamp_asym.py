"""clamp(x, -0.75, 1.25) with asymmetric bounds, bfloat16 128x96 (a well-aligned baseline shape)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, low, high):
        super().__init__()
        self.low = low
        self.high = high

    def forward(self, x):
        return torch.clamp(x, self.low, self.high)


ROWS = 128
COLS = 96


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return [-0.75, 1.25]
