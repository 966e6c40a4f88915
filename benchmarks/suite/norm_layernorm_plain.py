"""LayerNorm without affine parameters (eps 1e-6) over the last 1024 of a float16 3-D tensor 4x64x1024."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), eps=1e-6)


SHAPE = (4, 64, 1024)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16) * 2.0 + 0.5]


def get_init_inputs():
    return []
