"""log_softmax over the middle axis of float32 4x50x64 (a strided normalization axis)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.log_softmax(x, dim=1)


SHAPE = (4, 50, 64)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return []
