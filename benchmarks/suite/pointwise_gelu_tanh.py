"""tanh-approximate GELU on float32 64x1000 (1000 columns = 4000 bytes, not 32-byte aligned)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x, approximate="tanh")


ROWS = 64
COLS = 1000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
