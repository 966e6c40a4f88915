"""SwiGLU on a bfloat16 3-D activation 2x19x(2x688): silu(a) * b with the gate halves taken by chunk."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        gate, up = torch.chunk(x, 2, dim=-1)
        return F.silu(gate) * up


BATCH = 2
SEQ = 19
HIDDEN = 688


def get_inputs():
    return [torch.randn(BATCH, SEQ, 2 * HIDDEN, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
