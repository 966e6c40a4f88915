"""index_add along axis 0 with alpha 0.5: 200 float32 rows of 129 added into a 50x129 base at randint row indices."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, base, index, src):
        return torch.index_add(base, 0, index, src, alpha=self.alpha)


BASE_ROWS = 50
SRC_ROWS = 200
COLS = 129


def get_inputs():
    return [torch.randn(BASE_ROWS, COLS, dtype=torch.float32),
            torch.randint(0, BASE_ROWS, (SRC_ROWS,), dtype=torch.int64),
            torch.randn(SRC_ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return [0.5]
