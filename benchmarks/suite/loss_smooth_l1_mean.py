"""Smooth L1 loss with beta 0.5, mean over bfloat16 7x4097 (7 rows, odd width), a scalar output."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, beta):
        super().__init__()
        self.beta = beta

    def forward(self, pred, target):
        return F.smooth_l1_loss(pred, target, reduction="mean", beta=self.beta)


ROWS = 7
COLS = 4097


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.bfloat16), torch.randn(ROWS, COLS, dtype=torch.bfloat16)]


def get_init_inputs():
    return [0.5]
