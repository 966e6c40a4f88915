"""Mean squared error of float32 128x1000 prediction and target, reduced to a scalar mean."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return F.mse_loss(pred, target, reduction="mean")


ROWS = 128
COLS = 1000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
