"""Sum over axes (0, 2) with keepdim of bfloat16 16x48x100 (per-channel statistics, result 1x48x1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=(0, 2), keepdim=True)


SHAPE = (16, 48, 100)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
