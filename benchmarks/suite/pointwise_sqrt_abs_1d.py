"""sqrt(|x|) on a 1-D float32 vector of 65537 elements (2^16 + 1, one element past an even split)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sqrt(torch.abs(x))


LENGTH = 65537


def get_inputs():
    return [torch.randn(LENGTH, dtype=torch.float32)]


def get_init_inputs():
    return []
