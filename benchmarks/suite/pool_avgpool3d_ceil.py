"""avg_pool3d kernel 2, stride 2, ceil_mode on float32 2x4x9x16x15 (odd depth and width leave partial windows)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool3d(x, kernel_size=2, stride=2, ceil_mode=True)


SHAPE = (2, 4, 9, 16, 15)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return []
