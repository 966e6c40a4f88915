"""A dispatch table as a CANN custom-operator project (msopgen's layout): `op_host/` computes the tiling from the
shape at every call, `op_kernel/` holds every build the table's rule can pick, selected by tiling key.

    <dest>/<op>.json                   the op description msopgen reads
    <dest>/op_host/<op>.cpp            OpDef, InferShape, and the tiling function: the table's rule in C++
    <dest>/op_host/<op>_tiling.h       the tiling data: the build's uint32 tiling fields, in its struct's order
    <dest>/op_kernel/<op>.cpp          the builds, each in a namespace, and the entry that picks one by tiling key
    <dest>/build.sh, README.md         msopgen + the project's build (untried here: no CANN toolkit)

The tiling function is generated from the search space's expressions (`cpp_expression`: the expression language in
C++, every value a double, each string a code), the same rule `Dispatcher.choose` applies in Python: the range, the
nearest bucket in log distance, its knobs carried to the shape, the nearest feasible point of the same build, else
of another exported build with the fewest structural knobs changed. `tuner simulate --project` runs the export.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tuner.backends.npu.package import render_template
from tuner.errors import UsageError
from tuner.search.builds import Build, exported_builds
from tuner.search.dispatch import RANGE_FACTOR, Dispatcher
from tuner.space.expr import FUNCTIONS, parse
from tuner.space.spaces import Variant

__all__ = ["CPP_HELPERS", "CannExportError", "cpp_expression", "op_type_of", "write_cann_project"]

GE_TYPES = {"float16": "ge::DT_FLOAT16", "float32": "ge::DT_FLOAT", "bfloat16": "ge::DT_BF16",
            "int32": "ge::DT_INT32", "int64": "ge::DT_INT64", "int8": "ge::DT_INT8", "bool": "ge::DT_BOOL"}
JSON_TYPES = {"float16": "fp16", "float32": "fp32", "bfloat16": "bf16", "int32": "int32", "int64": "int64",
              "int8": "int8", "bool": "bool"}
# The functions `cpp_expression`'s C++ calls: the language's operators and functions over doubles, Python's floor
# division and modulo; t_fits: a value a uint32 tiling field or block count can hold.
CPP_HELPERS = """inline bool t_true(double v) { return v != 0.0; }
inline double t_bool(bool b) { return b ? 1.0 : 0.0; }
inline double t_floordiv(double a, double b) { return std::floor(a / b); }
inline double t_mod(double a, double b) { return a - b * std::floor(a / b); }
inline double t_pow(double a, double b) { return std::pow(a, b); }
inline double t_min(std::initializer_list<double> v) { return std::min(v); }
inline double t_max(std::initializer_list<double> v) { return std::max(v); }
inline double t_abs(double a) { return std::fabs(a); }
inline double t_ceil_div(double a, double b) { return -std::floor(-a / b); }
inline double t_align_up(double a, double b) { return t_ceil_div(a, b) * b; }
inline double t_align_down(double a, double b) { return std::floor(a / b) * b; }
inline bool t_fits(double v) { return std::isfinite(v) && v >= 0 && v <= 4294967295.0 && v == std::floor(v); }
"""
# CANN's short SoC names, as OpDef's AddConfig and msopgen's `-c ai_core-<name>` take them, by SoC family.
OPDEF_CONFIG = {"A2": "ascend910b", "A3": "ascend910_93", "310P": "ascend310p", "950": "ascend950"}
_ENTRY = re.compile(r'extern\s+"C"\s+__global__\s+__aicore__\s+void\s+(\w+)\s*\(')
_CPP_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_CPP_HELPERS = {ast.FloorDiv: "t_floordiv", ast.Mod: "t_mod", ast.Pow: "t_pow"}
_CPP_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class CannExportError(UsageError):
    """What the CANN export cannot express: an expression outside its C++ subset, an operator view or output shape
    it has no rule for."""


def _double(value: object) -> str:
    return f"{float(value)!r}".replace("inf", "INFINITY")


def cpp_expression(text: str, name_of: Callable[[str], str], code_of: Callable[[str], int]) -> str:
    """The C++ of an expression of the language, every value a double: a name through `name_of`, a string constant
    as its code (`code_of`), booleans 1.0 and 0.0; CannExportError for a construct it has no C++ for."""

    def emit(node: ast.AST) -> str:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return _double(code_of(node.value))
            if isinstance(node.value, bool | int | float):
                return _double(node.value)
        elif isinstance(node, ast.Name):
            return name_of(node.id)
        elif isinstance(node, ast.BinOp):
            if type(node.op) in _CPP_BINARY:
                return f"({emit(node.left)} {_CPP_BINARY[type(node.op)]} {emit(node.right)})"
            return f"{_CPP_HELPERS[type(node.op)]}({emit(node.left)}, {emit(node.right)})"
        elif isinstance(node, ast.UnaryOp):
            inner = emit(node.operand)
            return {ast.USub: f"(-{inner})", ast.UAdd: inner, ast.Not: f"t_bool(!t_true({inner}))"}[type(node.op)]
        elif isinstance(node, ast.BoolOp):
            joint = " && " if isinstance(node.op, ast.And) else " || "
            return "t_bool(" + joint.join(f"t_true({emit(v)})" for v in node.values) + ")"
        elif isinstance(node, ast.IfExp):
            return f"(t_true({emit(node.test)}) ? {emit(node.body)} : {emit(node.orelse)})"
        elif isinstance(node, ast.Compare):
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.In | ast.NotIn):
                    if not isinstance(right, ast.Tuple | ast.List):
                        raise CannExportError(f"'{text}': 'in' needs a literal tuple for C++")
                    test = " || ".join(f"{emit(left)} == {emit(e)}" for e in right.elts) or "false"
                    parts.append(f"({test})" if isinstance(op, ast.In) else f"!({test})")
                else:
                    parts.append(f"{emit(left)} {_CPP_COMPARE[type(op)]} {emit(right)}")
                left = right
            return "t_bool(" + " && ".join(parts) + ")"
        elif isinstance(node, ast.Call):
            args = ", ".join(emit(a) for a in node.args)
            assert isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
            if node.func.id in ("min", "max"):
                return f"t_{node.func.id}({{{args}}})"
            return f"t_{node.func.id}({args})"
        raise CannExportError(f"'{text}': {type(node).__name__} has no C++ form in the export")

    return emit(parse(text))


class _Names:
    """Every name the expressions see, an index into the generated code's value array `n`; string values coded."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.codes: dict[str, int] = {}

    def slot(self, name: str) -> str:
        return f"n[{self.index.setdefault(name, len(self.index))}]"

    def code(self, text: str) -> int:
        return self.codes.setdefault(text, len(self.codes) + 1)

    def value(self, value: Any) -> str:
        return _double(self.code(value)) if isinstance(value, str) else _double(value)

    def cpp(self, text: Any) -> str:
        return cpp_expression(text, self.slot, self.code) if isinstance(text, str) else self.value(text)


_PROBES = [(3, 5, 8), (7, 16), (2, 2, 2, 4)]


def _view_rule(dispatcher: Dispatcher) -> str:
    """'rows' (rows × cols: the last axis and the product of the others) or 'flat' (n: every element), as the
    operator's `view` gives at probe shapes; CannExportError for another view."""
    views = [dispatcher.op.view(s) for s in _PROBES]
    if all(v == {"rows": math.prod(s[:-1]), "cols": s[-1]} for v, s in zip(views, _PROBES, strict=True)):
        return "rows"
    if all(v == {"n": math.prod(s)} for v, s in zip(views, _PROBES, strict=True)):
        return "flat"
    raise CannExportError(f"{dispatcher.table.op}: its view {views[0]} has no C++ rule in the export")


def _output_rule(dispatcher: Dispatcher, name: str) -> str:
    """How output `name`'s shape follows the input's: 'same', 'drop_last' or 'half_last'."""
    rules = {"same": lambda s: s, "drop_last": lambda s: tuple(s[:-1]) or (1,),
             "half_last": lambda s: (*s[:-1], s[-1] // 2)}
    for rule, fn in rules.items():
        if all(tuple(dispatcher.op.output_shapes(s)[name]) == fn(s) for s in _PROBES):
            return rule
    raise CannExportError(f"{dispatcher.table.op}: output {name}'s shape follows no rule the export knows")


def _context_constants(dispatcher: Dispatcher, view: str) -> dict[str, Any]:
    """The context names that do not change with the shape (dtype, SoC, options); CannExportError where one does
    that the view does not give."""
    shapes = [(1, 32), (5, 4096), (64, 1000)]
    contexts = [dispatcher.context(s) for s in shapes]
    view_keys = {"rows", "cols"} if view == "rows" else {"n"}
    constants = {}
    for key, value in contexts[0].items():
        if key in view_keys:
            continue
        if any(c[key] != value for c in contexts[1:]):
            raise CannExportError(f"{dispatcher.table.op}: context name '{key}' changes with the shape and has no "
                                  "C++ rule in the export")
        constants[key] = value
    return constants


def _variant_code(v: int, variant: Variant, names: _Names) -> str:
    """The C++ of one variant: its knobs' values (bounds or choices) and the evaluation of a point."""
    lines = [f"// variant {variant.name}"]
    bounds = []
    for knob in variant.knobs:
        names.slot(knob.name)
        if knob.type == "int":
            bounds.append(f"        case {names.index[knob.name]}: *lo = {names.cpp(knob.low)}; "
                          f"*hi = {names.cpp(knob.high)}; *step = {float(knob.step)!r}; return true;")
    lines.append(f"static bool V{v}_IntRange(int slot, const double* n, double* lo, double* hi, double* step)\n{{\n"
                 f"    switch (slot) {{\n" + "\n".join(bounds) + "\n        default: return false;\n    }\n}")
    lines.append(f"static const KnobSpec V{v}_Knobs[] = {{")
    for knob in variant.knobs:
        choices = ", ".join(names.value(c) for c in knob.choices) or "0"
        lines.append(f"    {{{names.index[knob.name]}, {str(knob.type == 'int').lower()}, "
                     f"{str(knob.structural).lower()}, {len(knob.choices)}, {{{choices}}}}},")
    lines.append("};")
    body = [f"    {names.slot(name)} = {names.cpp(expr)};" for name, expr in variant.derived]
    body += [f"    if (!t_true({names.cpp(c.expr)})) return false;" for c in variant.constraints]
    body += [f"    fields[{i}] = {names.cpp(expr)};" for i, (_, expr) in enumerate(variant.tiling)]
    body.append(f"    *blockDim = {names.cpp(variant.block_dim)};")
    body.append(f"    for (int i = 0; i < {len(variant.tiling)}; ++i) if (!t_fits(fields[i])) return false;")
    lines.append(f"static bool V{v}_Eval(double* n, double* fields, double* blockDim)\n{{\n" + "\n".join(body) +
                 "\n    return t_fits(*blockDim) && *blockDim >= 1;\n}")
    return "\n".join(lines)


def op_type_of(kernel: str) -> str:
    """The CANN op type of a kernel (`softmax_rows` → `SoftmaxRows`), which names its aclnn entry points."""
    return "".join(part.capitalize() for part in kernel.split("_"))


def write_cann_project(dispatcher: Dispatcher, dest: Path) -> Path:
    """Write the CANN custom-operator project of `dispatcher`'s table to `dest`; CannExportError for what its C++
    cannot express."""
    table = dispatcher.table
    if table.task is not None:
        raise CannExportError(f"{table.name} is a function generated from PyTorch: its context at a shape is its "
                              "lowering there, which the export's C++ cannot compute yet (export it as torch)")
    builds = exported_builds(dispatcher)
    some_space = next(iter(dispatcher.spaces.values()))
    kernel = some_space.kernel
    op_type = op_type_of(kernel)
    view = _view_rule(dispatcher)
    constants = _context_constants(dispatcher, view)
    names = _Names()
    view_keys = ("rows", "cols") if view == "rows" else ("n",)
    for key in view_keys:
        names.slot(key)
    # the variants the buckets and builds use, each with its index; the builds with theirs (the tiling key)
    variants: dict[str, tuple[int, Variant]] = {}
    build_rows = []
    for bucket in table.buckets:
        for name in filter(None, (bucket.variant, bucket.general_variant)):
            if name not in variants:
                variants[name] = (len(variants), dispatcher.space(bucket).variant(name))
    build_specs = list(builds.values())
    for spec in build_specs:
        if spec.variant.name not in variants:
            variants[spec.variant.name] = (len(variants), spec.variant)
    variant_code = "\n\n".join(_variant_code(i, v, names) for i, v in variants.values())
    for i, spec in enumerate(build_specs):
        index = variants[spec.variant.name][0]
        structural = ", ".join(f"{{{names.index[k]}, {names.value(val)}}}" for k, val in spec.structural.items())
        build_rows.append(f"    {{{index}, {len(spec.structural)}, {{{structural}}}}},  // {i}: {spec.key}")
    bucket_rows = []

    def knob_settings(name: str, params: Mapping[str, Any]) -> tuple[int, int, str]:
        index, variant = variants[name]
        settings = ", ".join(f"{{{names.index[k.name]}, {names.value(params[k.name])}}}" for k in variant.knobs)
        return index, len(variant.knobs), f"{{{settings}}}"

    for bucket in table.buckets:
        view_values = ", ".join(_double(bucket.view[k]) for k in view_keys)
        tuned_view = ", ".join(f"{{{names.index[k]}, {_double(bucket.view[k])}}}" for k in view_keys)
        own = ", ".join(map(str, knob_settings(bucket.variant, bucket.params)))
        general = ", ".join(map(str, knob_settings(bucket.general_variant, bucket.general_params or {}))) \
            if bucket.general_variant else "-1, 0, {}"
        bucket_rows.append(f"    {{{{{view_values}}}, {own}, {general}, {{{tuned_view}}}, "
                           f"{_double(math.prod(bucket.shape))}}},  // {'x'.join(map(str, bucket.shape))}")
    context_code = [f"    {names.slot(k)} = {names.value(v)};  // {k}" for k, v in constants.items()]
    inputs = [a.tensor or a.name for a in some_space.args if a.kind == "in"]
    outputs = [a.tensor or a.name for a in some_space.args if a.kind == "out"]
    in_dtypes = {**dict.fromkeys(inputs, table.dtype), **dispatcher.op.input_dtypes(table.dtype)}
    out_dtypes = {**dict.fromkeys(outputs, table.dtype), **dispatcher.op.output_dtypes(table.dtype)}
    max_fields = max(len(spec.variant.tiling) for spec in build_specs)
    workspace = next((a for a in some_space.args if a.kind == "workspace"), None)
    context = {
        "op_type": op_type, "kernel": kernel, "table": table, "view": view, "view_keys": view_keys,
        "names": names, "n_names": len(names.index), "variant_code": variant_code,
        "variants": list(variants.values()), "build_rows": build_rows, "bucket_rows": bucket_rows,
        "context_code": context_code, "inputs": inputs, "outputs": outputs, "ge": GE_TYPES,
        "in_dtypes": in_dtypes, "out_dtypes": out_dtypes, "output_rules": {o: _output_rule(dispatcher, o)
                                                                           for o in outputs},
        "max_fields": max_fields, "ranges": [table.ranges[k] for k in view_keys], "range_factor": RANGE_FACTOR,
        "cores_slot": names.index.get("vector_cores"), "workspace": workspace,
        "workspace_cpp": names.cpp(workspace.bytes) if workspace is not None else "0.0",
        "builds": build_specs, "args": some_space.args, "soc_config": OPDEF_CONFIG[dispatcher.soc.family],
        "helpers": CPP_HELPERS,
    }
    op_json = [{"op": op_type,
                "input_desc": [{"name": n, "param_type": "required", "format": ["ND"],
                                "type": [JSON_TYPES[in_dtypes[n]]]} for n in inputs],
                "output_desc": [{"name": n, "param_type": "required", "format": ["ND"],
                                 "type": [JSON_TYPES[out_dtypes[n]]]} for n in outputs]}]
    files = {
        f"{kernel}.json": json.dumps(op_json, indent=4) + "\n",
        f"op_host/{kernel}_tiling.h": render_template("cann_op/tiling.h.j2", **context),
        f"op_host/{kernel}.cpp": render_template("cann_op/op_host.cpp.j2", **context),
        f"op_kernel/{kernel}.cpp": _kernel_file(kernel, build_specs, some_space.args),
        "build.sh": render_template("cann_op/build.sh.j2", **context),
        "README.md": render_template("cann_op/README.md.j2", **context),
        "dispatch.json": json.dumps(table.to_json(), indent=2) + "\n",
    }
    try:
        for name, text in files.items():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_text(text)
        (dest / "build.sh").chmod(0o755)
    except OSError as exc:
        raise UsageError(f"cannot write the CANN project to {dest}: {exc.strerror or exc}") from None
    return dest


def _kernel_file(kernel: str, specs: list[Build], args: tuple[Any, ...]) -> str:
    """op_kernel/<op>.cpp: each build's source in a namespace of its own (its entry an inline function there) and the
    operator's entry, which calls the build its tiling key names."""
    includes: list[str] = []
    bodies = []
    for i, spec in enumerate(specs):
        body = []
        for line in spec.source.splitlines():
            if line.startswith("#include"):
                if line not in includes:
                    includes.append(line)
            else:
                body.append(line)
        text = "\n".join(body)
        entry = _ENTRY.search(text)
        if entry is None or entry.group(1) != kernel:
            raise CannExportError(f"build {spec.key}: no extern \"C\" entry '{kernel}' in its source")
        text = _ENTRY.sub(f"__aicore__ inline void {kernel}(", text, count=1)
        bodies.append(f"// build {i}: {spec.key}\nnamespace tuner_build_{i} {{\n{text}\n}}  // namespace "
                      f"tuner_build_{i}\n")
    tensors = [a.name for a in args if a.kind in ("in", "out")]
    passed = {"tiling": "tiling", "workspace": "AscendC::GetUserWorkspace(workspace)"}
    call = ", ".join(passed.get(a.kind, a.name) for a in args)
    dispatch = "\n".join(f"    {'if' if i == 0 else '} else if'} (TILING_KEY_IS({i})) {{\n"
                         f"        tuner_build_{i}::{kernel}({call});" for i in range(len(specs)))
    params = ", ".join(f"GM_ADDR {n}" for n in tensors)
    return ("// Written by `tuner export --format cann-op`: every build of the dispatch table, picked by tiling key.\n"
            + "\n".join(includes) + "\n\n" + "\n".join(bodies) +
            f'\nextern "C" __global__ __aicore__ void {kernel}({params}, GM_ADDR workspace, GM_ADDR tiling)\n{{\n'
            f"{dispatch}\n    }}\n}}\n")
