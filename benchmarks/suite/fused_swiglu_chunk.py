"""SwiGLU: silu(a) * b of the two halves of x (chunk on the last axis), float16 16x2752 -> 16x1376."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


ROWS = 16
HIDDEN = 1376


def get_inputs():
    return [torch.randn(ROWS, 2 * HIDDEN, dtype=torch.float16)]


def get_init_inputs():
    return []
