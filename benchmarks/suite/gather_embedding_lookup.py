"""nn.Embedding lookup: a 1000x96 float32 table with a deterministic weight, int64 token ids of shape 4x37."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.table = nn.Embedding(vocab, dim)
        g = torch.Generator().manual_seed(13)
        with torch.no_grad():
            self.table.weight.copy_(torch.randn(vocab, dim, generator=g))

    def forward(self, ids):
        return self.table(ids)


VOCAB = 1000
DIM = 96
BATCH = 4
SEQ = 37


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ), dtype=torch.int64)]


def get_init_inputs():
    return [VOCAB, DIM]
