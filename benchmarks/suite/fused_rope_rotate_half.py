"""RoPE in rotate-half form on float32 2x4x64x64 (batch, heads, seq, head_dim) with cos/sin buffers of shape
[seq, dim]."""
import torch
import torch.nn as nn


def _cos_sin(seq, dim, base):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    angles = torch.outer(torch.arange(seq, dtype=torch.float32), inv_freq)
    emb = torch.cat([angles, angles], dim=-1)
    return emb.cos(), emb.sin()


class Model(nn.Module):
    def __init__(self, seq, dim, base):
        super().__init__()
        cos, sin = _cos_sin(seq, dim, base)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(self, x):
        half = x.shape[-1] // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * self.cos + rotated * self.sin


BATCH = 2
HEADS = 4
SEQ = 64
DIM = 64
BASE = 10000.0


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, DIM, dtype=torch.float32)]


def get_init_inputs():
    return [SEQ, DIM, BASE]
