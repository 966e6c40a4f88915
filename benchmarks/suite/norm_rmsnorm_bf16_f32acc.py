"""RMSNorm written out, bfloat16 in, statistics in float32, cast back and scaled by a weight: 3 rows of 4096
(decode-sized)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.linspace(0.5, 1.5, dim).to(torch.bfloat16))

    def forward(self, x):
        xf = x.to(torch.float32)
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return y.to(x.dtype) * self.weight


ROWS = 3
DIM = 4096
EPS = 1e-6


def get_inputs():
    return [torch.randn(ROWS, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIM, EPS]
