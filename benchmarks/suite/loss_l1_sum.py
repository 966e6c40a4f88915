"""L1 loss with reduction 'sum' of float32 33x333 (odd in both dims), a scalar output."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return F.l1_loss(pred, target, reduction="sum")


ROWS = 33
COLS = 333


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
