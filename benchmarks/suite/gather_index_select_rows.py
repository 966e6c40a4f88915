"""index_select of 777 rows (with repeats) out of a float16 5000x64 table."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        return torch.index_select(x, 0, index)


ROWS = 5000
COLS = 64
PICKS = 777


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16), torch.randint(0, ROWS, (PICKS,), dtype=torch.int64)]


def get_init_inputs():
    return []
