"""L1 norm over the two trailing axes (1, 2) of bfloat16 6x31x45: a multi-axis reduction to one value per batch."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=1, dim=(1, 2))


SHAPE = (6, 31, 45)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
