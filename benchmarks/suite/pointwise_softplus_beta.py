"""softplus(3x) with beta 2 and threshold 10 on bfloat16 300x50 (100-byte rows; the 3x puts some inputs past the
threshold)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, beta, threshold):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x):
        return F.softplus(x * 3.0, beta=self.beta, threshold=self.threshold)


ROWS = 300
COLS = 50


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return [2.0, 10.0]
