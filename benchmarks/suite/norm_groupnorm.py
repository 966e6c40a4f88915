"""GroupNorm with 6 groups over 24 channels and deterministic affine, float32 3x24x13x13 (odd 13x13 planes)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, groups, channels):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.copy_(torch.linspace(0.6, 1.4, channels))
            self.norm.bias.copy_(torch.linspace(0.3, -0.3, channels))

    def forward(self, x):
        return self.norm(x)


SHAPE = (3, 24, 13, 13)
GROUPS = 6


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return [GROUPS, SHAPE[1]]
