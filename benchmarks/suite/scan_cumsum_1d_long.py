"""Inclusive cumsum of a 1-D float32 vector of 100000 elements (one long scan to split across cores)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=0)


LENGTH = 100000


def get_inputs():
    return [torch.randn(LENGTH, dtype=torch.float32)]


def get_init_inputs():
    return []
