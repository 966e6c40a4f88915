"""BatchNorm in eval mode with running stats as buffers and deterministic affine, float16 8x40x14x14."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, channels, eps):
        super().__init__()
        self.eps = eps
        g = torch.Generator().manual_seed(7)
        self.register_buffer("running_mean", (0.2 * torch.randn(channels, generator=g)).to(torch.float16))
        self.register_buffer("running_var", (0.5 + torch.rand(channels, generator=g)).to(torch.float16))
        self.weight = nn.Parameter(torch.linspace(0.8, 1.2, channels).to(torch.float16))
        self.bias = nn.Parameter(torch.linspace(-0.1, 0.1, channels).to(torch.float16))

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            training=False, eps=self.eps)


SHAPE = (8, 40, 14, 14)
EPS = 1e-3


def get_inputs():
    return [torch.randn(*SHAPE, dtype=torch.float16)]


def get_init_inputs():
    return [SHAPE[1], EPS]
