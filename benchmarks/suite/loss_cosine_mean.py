"""1 - mean cosine similarity of two float16 embedding batches 256x96 along the last axis, a scalar output."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return 1.0 - F.cosine_similarity(a, b, dim=-1, eps=1e-6).mean()


ROWS = 256
DIM = 96


def get_inputs():
    return [torch.randn(ROWS, DIM, dtype=torch.float16), torch.randn(ROWS, DIM, dtype=torch.float16)]


def get_init_inputs():
    return []
