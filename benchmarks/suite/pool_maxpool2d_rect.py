"""max_pool2d with a rectangular kernel (2, 3) and stride (2, 1) on a single-image float32 1x3x64x100."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool2d(x, kernel_size=(2, 3), stride=(2, 1))


SHAPE = (1, 3, 64, 100)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return []
