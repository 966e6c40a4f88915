"""Softmax with temperature 0.7 (softmax(x / T)) over the last axis of float16 96x250."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, x):
        return torch.softmax(x / self.temperature, dim=-1)


ROWS = 96
COLS = 250
TEMPERATURE = 0.7


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return [TEMPERATURE]
