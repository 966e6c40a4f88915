"""Attention scores scaled by 1/sqrt(64), masked with a fixed causal boolean buffer via masked_fill(-inf), then
softmax; float32 2x4x77x77."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, seq, head_dim):
        super().__init__()
        self.scale = 1.0 / math.sqrt(head_dim)
        self.register_buffer("blocked", torch.ones(seq, seq, dtype=torch.bool).triu(diagonal=1))

    def forward(self, scores):
        s = (scores * self.scale).masked_fill(self.blocked, float("-inf"))
        return torch.softmax(s, dim=-1)


BATCH = 2
HEADS = 4
SEQ = 77
HEAD_DIM = 64


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, SEQ, dtype=torch.float32) * 8.0]


def get_init_inputs():
    return [SEQ, HEAD_DIM]
