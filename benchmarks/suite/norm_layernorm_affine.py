"""LayerNorm over 777 features with deterministic weight and bias, float32, 19 rows (fewer than the cores, odd
width)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, eps):
        super().__init__()
        self.norm = nn.LayerNorm(features, eps=eps)
        g = torch.Generator().manual_seed(3)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.3 * torch.randn(features, generator=g))
            self.norm.bias.copy_(torch.linspace(-0.2, 0.4, features))

    def forward(self, x):
        return self.norm(x)


ROWS = 19
FEATURES = 777
EPS = 1e-5


def get_inputs():
    return [torch.randn(ROWS, FEATURES, dtype=torch.float32)]


def get_init_inputs():
    return [FEATURES, EPS]
