"""elu with alpha 0.7 on a 4-D float16 tensor 2x3x40x40 (3 channels, 80-byte rows)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, x):
        return F.elu(x, alpha=self.alpha)


SHAPE = (2, 3, 40, 40)
ALPHA = 0.7


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return [ALPHA]
