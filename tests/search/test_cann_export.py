"""The CANN custom-operator export of a dispatch table: its generated tiling function picks what the Python rule picks
(build, block count, tiling bytes) at shapes of the range, the kernel it selects is right, a shape outside the range
fails in op_host with the reason; (e2e) the same for every packaged operator whose view the export knows."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tuner.backends.args import pack_tiling
from tuner.data.socs import get_soc
from tuner.ops import get_operator, operators
from tuner.search.builds import build_key
from tuner.search.cann_op import CPP_HELPERS, CannExportError, cpp_expression, write_cann_project
from tuner.search.dispatch import Bucket, Dispatcher, DispatchTable, view_ranges
from tuner.sim.project import simulate_project
from tuner.space.spaces import load_space, run_context

from .test_dispatch import SOC, baseline_bucket, dispatcher


def builds_of(project) -> list[str]:
    kernel = next((project / "op_kernel").glob("*.cpp")).read_text()
    return [line.split(": ")[1].strip() for line in kernel.splitlines() if line.startswith("// build ")]


def agrees(project, d: Dispatcher, inputs: dict[str, np.ndarray], shape: tuple[int, ...]):
    """Run the project on `inputs` and check its host's decisions against the Python rule's; the result."""
    result = simulate_project(project, inputs, soc=SOC)
    assert result.ok, [f.text for f in result.faults]
    choice = d.choose(shape)
    assert builds_of(project)[result.tiling_key] == build_key(choice), shape
    assert result.block_dim == choice.point.block_dim, shape
    assert result.tiling[:4 * len(choice.point.tiling)] == pack_tiling(choice.point.tiling), shape
    return result


@pytest.fixture(scope="module")
def softmax_project(tmp_path_factory):
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((64, 1024)))
    return write_cann_project(d, tmp_path_factory.mktemp("cann") / "softmax"), d


def test_the_layout_is_msopgens(softmax_project):
    project, _ = softmax_project
    for name in ("softmax_custom.json", "op_host/softmax_custom.cpp", "op_host/softmax_custom_tiling.h",
                 "op_kernel/softmax_custom.cpp", "build.sh", "README.md", "dispatch.json"):
        assert (project / name).is_file(), name
    assert "msopgen gen -i" in (project / "build.sh").read_text()
    assert 'AddConfig("ascend910b")' in (project / "op_host" / "softmax_custom.cpp").read_text()


def test_the_generated_tiling_function_picks_what_the_rule_picks_and_the_kernel_is_right(softmax_project):
    project, d = softmax_project
    rng = np.random.default_rng(3)
    for shape in ((1, 1024), (3, 1000), (8, 1024), (100, 513), (128, 2048)):
        x = rng.standard_normal(shape).astype(np.float16)
        result = agrees(project, d, {"x": x}, shape)
        expected = torch.softmax(torch.from_numpy(x).double(), -1).numpy()
        np.testing.assert_allclose(result.outputs["y"].astype(np.float64), expected, rtol=2e-3, atol=1e-5)


def test_a_shape_outside_the_range_fails_in_op_host_with_the_reason(softmax_project):
    project, _ = softmax_project
    result = simulate_project(project, {"x": np.zeros((2, 8192), np.float16)}, soc=SOC)
    assert not result.ok
    assert "outside the tuned range (rows 1..128, cols 512..2048)" in result.host_printed


@pytest.mark.parametrize(("text", "names", "expected"), [
    ("ceil_div(cols * dtype_bytes, 32) * 32 if compute == 'fp32' else -7 // 2", {"cols": 1000, "dtype_bytes": 2,
                                                                                "compute": "fp32"}, 2016),
    ("min(rows, 4, cols % 5) + max(1, 2) ** 2", {"rows": 9, "cols": 13}, 7),
    ("copy in ('a', 'b') and not rows > 3", {"copy": "b", "rows": 2}, True),
])
def test_expressions_in_cpp_say_what_they_say_in_python(text, names, expected, tmp_path):
    import subprocess

    from tuner.space.expr import evaluate

    assert evaluate(text, names) == expected
    codes: dict[str, int] = {}
    cpp = cpp_expression(text, lambda n: f"n_{n}", lambda s: codes.setdefault(s, len(codes) + 1))
    declarations = "".join(f"double n_{k} = {codes.setdefault(v, len(codes) + 1) if isinstance(v, str) else v};\n"
                           for k, v in names.items())
    program = tmp_path / "expression.cpp"
    program.write_text("#include <algorithm>\n#include <cmath>\n#include <cstdio>\n#include <initializer_list>\n" +
                       CPP_HELPERS + declarations + f'int main() {{ printf("%.17g\\n", (double)({cpp})); }}\n')
    subprocess.run(["g++", "-o", str(tmp_path / "e"), str(program)], check=True)
    out = subprocess.run([str(tmp_path / "e")], capture_output=True, text=True, check=True).stdout
    assert float(out) == float(expected)


def test_what_the_export_cannot_express_is_one_line():
    with pytest.raises(CannExportError, match="Tuple"):
        cpp_expression("(1, 2)", str, lambda s: 1)


EXPORTABLE = [name for name, op in operators().items() if name != "softmax"]


@pytest.mark.e2e
@pytest.mark.parametrize("name", EXPORTABLE)
def test_every_packaged_operator_exports_and_agrees_with_the_rule(name, tmp_path):
    op = get_operator(name)
    space = load_space(name)
    soc = get_soc(SOC)
    dtype = "float16" if "float16" in op.dtypes else op.dtypes[0]
    shapes = [(4, 1024), (64, 2048)]
    buckets = []
    for shape in shapes:
        entry, params = space.baseline(run_context(op, shape, dtype, soc))
        buckets.append(Bucket(shape, op.view(shape), entry.variant, params, None, None, run="r"))
    table = DispatchTable("set", name, dtype, SOC, "sim", "simulated", {}, tuple(buckets),
                          view_ranges([b.view for b in buckets]))
    d = Dispatcher(table, op, {"r": space})
    if name == "swiglu":  # its context's h = cols // 2 is Python the export cannot translate
        with pytest.raises(CannExportError, match="context name 'h' changes with the shape"):
            write_cann_project(d, tmp_path / name)
        return
    project = write_cann_project(d, tmp_path / name)
    for shape in ((4, 1024), (5, 1000), (64, 2048), (30, 1536)):
        inputs = {k: v.numpy() for k, v in op.make_inputs(shape, dtype, 0).items()}
        result = agrees(project, d, inputs, shape)
        expected = op.reference(op.make_inputs(shape, dtype, 0))
        for out, want in expected.items():
            np.testing.assert_allclose(result.outputs[out].astype(np.float64), want.double().numpy(),
                                       rtol=2e-2, atol=2e-2 * float(want.abs().max()))


def test_a_general_kernel_serves_the_other_shapes_in_cpp_too(tmp_path):
    from dataclasses import replace

    winner = baseline_bucket((4, 1024), rows_per_tile=1, compute="native")
    bucket = replace(winner, general_variant=winner.variant,
                     general_params=dict(winner.params, rows_per_tile=2, compute="fp32"))
    d = dispatcher(bucket, baseline_bucket((256, 1024)))
    project = write_cann_project(d, tmp_path / "softmax")
    rng = np.random.default_rng(5)
    for shape in ((4, 1024), (5, 1024), (3, 1000)):
        agrees(project, d, {"x": rng.standard_normal(shape).astype(np.float16)}, shape)
