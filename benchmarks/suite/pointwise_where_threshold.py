"""where(x > 0.3, 2x, y): a comparison against a threshold choosing between two float32 inputs, 11 rows of 2500."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, threshold):
        super().__init__()
        self.threshold = threshold

    def forward(self, x, y):
        return torch.where(x > self.threshold, x * 2.0, y)


ROWS = 11
COLS = 2500
THRESHOLD = 0.3


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return [THRESHOLD]
