"""Bilinear interpolate with align_corners False (half-pixel centres), scale 1.5, bfloat16 2x16x24x24 to 36x36."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False)


SHAPE = (2, 16, 24, 24)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
