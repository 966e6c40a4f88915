"""x * gamma[D] + beta[D] with deterministic parameters on a bfloat16 3-D tensor 2x50x200 (last-axis broadcast)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        g = torch.Generator().manual_seed(11)
        self.gamma = nn.Parameter((1.0 + 0.25 * torch.randn(dim, generator=g)).to(torch.bfloat16))
        self.beta = nn.Parameter(torch.linspace(-0.5, 0.5, dim).to(torch.bfloat16))

    def forward(self, x):
        return x * self.gamma + self.beta


SHAPE = (2, 50, 200)


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.bfloat16)]


def get_init_inputs():
    return [SHAPE[-1]]
