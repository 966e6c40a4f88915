"""RoPE applied to q (8 heads) and k (2 heads) together, bfloat16, seq 37, head_dim 128, cos/sin [seq, dim]
buffers; returns (q, k)."""
import torch
import torch.nn as nn


def _rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat([-t[..., half:], t[..., :half]], dim=-1)


class Model(nn.Module):
    def __init__(self, seq, dim, base):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        angles = torch.outer(torch.arange(seq, dtype=torch.float32) + 5.0, inv_freq)
        emb = torch.cat([angles, angles], dim=-1)
        self.register_buffer("cos", emb.cos().to(torch.bfloat16))
        self.register_buffer("sin", emb.sin().to(torch.bfloat16))

    def forward(self, q, k):
        q_out = q * self.cos + _rotate_half(q) * self.sin
        k_out = k * self.cos + _rotate_half(k) * self.sin
        return q_out, k_out


Q_HEADS = 8
KV_HEADS = 2
SEQ = 37
DIM = 128
BASE = 500000.0


def get_inputs():
    return [torch.randn(1, Q_HEADS, SEQ, DIM, dtype=torch.bfloat16),
            torch.randn(1, KV_HEADS, SEQ, DIM, dtype=torch.bfloat16)]


def get_init_inputs():
    return [SEQ, DIM, BASE]
