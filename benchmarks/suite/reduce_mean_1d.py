"""Mean of a 1-D float16 vector of 100003 elements to a scalar (odd length, float16 accumulation risk)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.mean()


LENGTH = 100003


def get_inputs():
    return [torch.randn(LENGTH, dtype=torch.float16)]


def get_init_inputs():
    return []
