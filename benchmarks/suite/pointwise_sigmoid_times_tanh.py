"""sigmoid(x) * tanh(y): two transcendental activations of two float16 inputs multiplied (LSTM-cell style), 77x640."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.sigmoid(x) * torch.tanh(y)


ROWS = 77
COLS = 640


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16), torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
