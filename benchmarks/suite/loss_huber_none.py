"""Huber loss with delta 1.3 and reduction 'none' (an elementwise loss map) of float32 64x200."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, delta):
        super().__init__()
        self.delta = delta

    def forward(self, pred, target):
        return F.huber_loss(pred, target, reduction="none", delta=self.delta)


ROWS = 64
COLS = 200


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32) * 2.0, torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return [1.3]
