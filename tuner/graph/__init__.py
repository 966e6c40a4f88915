"""A user's own PyTorch operator as the tuner sees it (issue 15, in progress): a task file in KernelBench's format
(`load.py`), traced with torch.export into the kernel IR (`ir.py`, `capture.py`). Not yet reachable from the
command line: the lowering onto the kernel library comes next."""
