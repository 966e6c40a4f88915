"""avg_pool1d kernel 4, stride 3, padding 2, ceil_mode, count_include_pad False on float32 3x20x500."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool1d(x, kernel_size=4, stride=3, padding=2, ceil_mode=True, count_include_pad=False)


SHAPE = (3, 20, 500)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return []
