"""KL divergence of log_softmax(x) against softmax(y) over 1000 classes, reduction 'batchmean', float32 16x1000."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        log_p = F.log_softmax(x, dim=-1)
        q = torch.softmax(y, dim=-1)
        return F.kl_div(log_p, q, reduction="batchmean")


ROWS = 16
COLS = 1000


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float32), torch.randn(ROWS, COLS, dtype=torch.float32)]


def get_init_inputs():
    return []
