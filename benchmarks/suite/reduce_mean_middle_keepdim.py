"""Mean over the middle axis with keepdim of float16 8x77x130 (strided reduction, 77 odd, result 8x1x130)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.mean(dim=1, keepdim=True)


SHAPE = (8, 77, 130)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
