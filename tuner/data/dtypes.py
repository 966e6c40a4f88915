"""The element types kernels take: each dtype's type in Ascend C and its size in bytes."""

__all__ = ["C_SIZES", "C_TYPES"]

C_TYPES = {"float16": "half", "float32": "float", "bfloat16": "bfloat16_t", "int32": "int32_t", "bool": "uint8_t"}
C_SIZES = {"half": 2, "float": 4, "bfloat16_t": 2, "int32_t": 4, "uint8_t": 1}
