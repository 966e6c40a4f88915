"""silu on a float16 8x1x2047 tensor: a size-1 middle dim and an odd last dim."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.silu(x)


SHAPE = (8, 1, 2047)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
