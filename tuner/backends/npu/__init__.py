"""The NPU backend (CANN + torch_npu). So far only `detect.detect()`: what of it this machine has."""
