"""L2 norm (linalg.vector_norm, ord 2) over the last axis of float32 128x777."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=2, dim=-1)


ROWS = 128
COLS = 777


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
