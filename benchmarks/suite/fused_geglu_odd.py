"""GeGLU: exact gelu(a) * b of the two halves of x, float32 7x2000 -> 7x1000 (7 rows, halves of 4000 bytes)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.gelu(a) * b


ROWS = 7
HIDDEN = 1000


def get_inputs():
    return [torch.randn(ROWS, 2 * HIDDEN, dtype=torch.float32)]


def get_init_inputs():
    return []
