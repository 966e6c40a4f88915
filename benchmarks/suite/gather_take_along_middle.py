"""take_along_dim along the middle axis: bfloat16 8x300x16 read at int64 indices of shape 8x40x16."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        return torch.take_along_dim(x, index, dim=1)


SHAPE = (8, 300, 16)
PICKS = 40


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16),
            torch.randint(0, SHAPE[1], (SHAPE[0], PICKS, SHAPE[2]), dtype=torch.int64)]


def get_init_inputs():
    return []
