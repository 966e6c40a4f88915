"""Nearest-neighbour interpolate of float16 2x8x15x17 to 37x29 (non-integer ratios, up in H and up in W)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.interpolate(x, size=(37, 29), mode="nearest")


SHAPE = (2, 8, 15, 17)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
