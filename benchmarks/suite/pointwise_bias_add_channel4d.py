"""x + bias[C] broadcast over an NCHW float16 tensor (4x24x15x15): a per-channel parameter on a 4-D input with
15x15 planes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.linspace(-1.0, 1.0, channels).to(torch.float16).view(channels, 1, 1))

    def forward(self, x):
        return x + self.bias


BATCH = 4
CHANNELS = 24
HEIGHT = 15
WIDTH = 15


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH, dtype=torch.float16)]


def get_init_inputs():
    return [CHANNELS]
