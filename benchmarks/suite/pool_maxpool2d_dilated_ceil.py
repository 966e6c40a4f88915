"""max_pool2d kernel 3, stride 2, padding 1, dilation 2, ceil_mode on float16 2x8x34x34 (ceil_mode adds a partial
last window in each axis)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool2d(x, kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)


SHAPE = (2, 8, 34, 34)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
