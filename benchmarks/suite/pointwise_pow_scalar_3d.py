"""|x| ** p with the scalar exponent p = 1.7 passed as a constant input, on a 3-D bfloat16 tensor 3x13x129."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, exponent):
        return torch.pow(x.abs(), exponent)


D0 = 3
D1 = 13
D2 = 129
EXPONENT = 1.7


def get_inputs():
    return [torch.randn(D0, D1, D2, dtype=torch.bfloat16), EXPONENT]


def get_init_inputs():
    return []
