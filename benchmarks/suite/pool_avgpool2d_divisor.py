"""avg_pool2d kernel 5, stride 3 with divisor_override 16 on float16 8x12x23x23 (odd planes, non-standard divisor)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=5, stride=3, divisor_override=16)


SHAPE = (8, 12, 23, 23)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return []
