"""masked_fill of float16 19x1500 with -1e4 where a boolean mask input is set (19 rows, 3000-byte rows)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, fill):
        super().__init__()
        self.fill = fill

    def forward(self, x, mask):
        return x.masked_fill(mask, self.fill)


ROWS = 19
COLS = 1500


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16), torch.randint(0, 2, (ROWS, COLS)).to(torch.bool)]


def get_init_inputs():
    return [-1e4]
