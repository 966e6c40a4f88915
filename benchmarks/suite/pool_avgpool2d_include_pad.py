"""avg_pool2d kernel 3, stride 2, padding 1, count_include_pad True on bfloat16 4x32x28x28."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, count_include_pad=True)


SHAPE = (4, 32, 28, 28)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
