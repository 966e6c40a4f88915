"""Inclusive cumsum along the middle axis of float16 4x129x40 (a scan across a strided axis)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=1)


SHAPE = (4, 129, 40)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
