"""float32 in, (1.5 x - 0.25) cast down to bfloat16: output dtype differs from the input, 1500x1000 (1.5M elements)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * 1.5 - 0.25).to(torch.bfloat16)


ROWS = 1500
COLS = 1000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
