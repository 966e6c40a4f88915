"""A pre-norm transformer block as `tuner scan` reads a model: RMSNorm, attention with a softmax over the keys, a
residual add, LayerNorm, a GELU MLP and a second residual add, float16 [batch, tokens, dim].

    tuner scan examples/transformer_block.py
    tuner bench --suite runs/scan/transformer_block
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, TOKENS, DIM, HEADS, HIDDEN = 1, 32, 256, 4, 512


class Model(nn.Module):
    def __init__(self, dim: int = DIM, heads: int = HEADS, hidden: int = HIDDEN):
        super().__init__()
        self.heads = heads
        self.attn_norm = nn.RMSNorm(dim, eps=1e-6)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.mlp_norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)
        self.half()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in self.qkv(self.attn_norm(x)).chunk(3, dim=-1))
        scores = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        x = x + self.out((scores @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.down(F.gelu(self.up(self.mlp_norm(x))))


def get_inputs():
    return [torch.randn(BATCH, TOKENS, DIM, dtype=torch.float16)]


def get_init_inputs():
    return []
