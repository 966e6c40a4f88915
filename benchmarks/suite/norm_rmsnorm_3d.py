"""RMSNorm written out on a float32 3-D tensor 2x9x1000 with a deterministic random weight (1000 = 4000-byte rows)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        g = torch.Generator().manual_seed(5)
        self.weight = nn.Parameter(1.0 + 0.2 * torch.randn(dim, generator=g))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


SHAPE = (2, 9, 1000)
EPS = 1e-5


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float32)]


def get_init_inputs():
    return [SHAPE[-1], EPS]
