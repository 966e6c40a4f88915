"""max_pool1d kernel 3, stride 2, padding 1 over float16 4x16x1001 (odd length)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool1d(x, kernel_size=3, stride=2, padding=1)


SHAPE = (4, 16, 1001)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
