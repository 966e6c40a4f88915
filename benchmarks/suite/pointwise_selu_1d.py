"""selu on a 1-D float32 vector of 12345 elements (odd length, no row structure)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.selu(x)


LENGTH = 12345


def get_inputs():
    return [torch.randn(LENGTH, dtype=torch.float32)]


def get_init_inputs():
    return []
