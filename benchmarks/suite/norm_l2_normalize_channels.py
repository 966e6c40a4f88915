"""F.normalize (p 2) along the channel axis of float32 2x64x9x9 (normalization over a strided middle axis)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.normalize(x, p=2.0, dim=1)


SHAPE = (2, 64, 9, 9)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return []
