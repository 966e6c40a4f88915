"""gelu(x + bias) + residual with a deterministic bias parameter, float16 24x3000 (transformer MLP epilogue)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        g = torch.Generator().manual_seed(19)
        self.bias = nn.Parameter((0.5 * torch.randn(dim, generator=g)).to(torch.float16))

    def forward(self, x, residual):
        return F.gelu(x + self.bias) + residual


ROWS = 24
DIM = 3000


def get_inputs():
    return [torch.randn(ROWS, DIM, dtype=torch.float16), torch.randn(ROWS, DIM, dtype=torch.float16)]


def get_init_inputs():
    return [DIM]
