"""Bilinear interpolate with align_corners True of float32 1x3x20x30 to 48x64."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.interpolate(x, size=(48, 64), mode="bilinear", align_corners=True)


SHAPE = (1, 3, 20, 30)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return []
