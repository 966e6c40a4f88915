"""Shape sets: the dispatch rule on the packaged softmax space, its range and errors, the table on disk, kernels the
rule picks checked on the simulator at shapes nobody tuned, and (e2e) a set tuned and checked end to end."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch
from commands import one_line_error, tuner_here

from tuner.backends import make_backend
from tuner.data.socs import get_soc
from tuner.errors import UsageError
from tuner.ops import get_operator
from tuner.search.cann_op import write_cann_project
from tuner.search.dispatch import (
    Bucket,
    Dispatcher,
    DispatchTable,
    NoKernelForShape,
    ShapeOutOfRange,
    measure_at,
    parse_shapes,
    probe_shapes,
    read_shapes_file,
    tune_shapes,
    view_ranges,
)
from tuner.search.loop import RunConfig
from tuner.space.spaces import load_space, run_context

SOC = "Ascend910B2"
OP = get_operator("softmax")
SPACE = load_space("softmax")


def baseline_bucket(shape: tuple[int, ...], **override) -> Bucket:
    """A bucket holding the space's own baseline at `shape` (as a run with no better point would)."""
    entry, params = SPACE.baseline(run_context(OP, shape, "float16", get_soc(SOC)))
    return Bucket(shape, OP.view(shape), entry.variant, {**params, **override}, None, None, run="r")


def dispatcher(*buckets: Bucket) -> Dispatcher:
    table = DispatchTable("set", "softmax", "float16", SOC, "sim", "simulated, Ascend910B2 model", {}, buckets,
                          view_ranges([b.view for b in buckets]))
    return Dispatcher(table, OP, {"r": SPACE})


def test_a_tuned_shape_gets_its_own_bucket_unchanged():
    small, large = baseline_bucket((1, 1024)), baseline_bucket((256, 1024))
    d = dispatcher(small, large)
    for bucket in (small, large):
        choice = d.choose(bucket.shape)
        assert choice.bucket == bucket and choice.params == bucket.params and not choice.adjusted


def test_the_nearest_bucket_in_log_distance_serves_and_a_knob_at_its_ranges_end_follows_the_shape():
    small, large = baseline_bucket((1, 1024)), baseline_bucket((256, 1024))
    d = dispatcher(small, large)
    assert small.params["block_dim"] == 1  # its whole range at one row
    choice = d.choose((5, 1024))  # log2 distance 2.3 against 5.7
    assert choice.bucket == small
    assert choice.params["block_dim"] == 5 and choice.point.block_dim == 5
    assert dict(choice.point.tiling)["rows"] == 5
    assert d.choose((100, 1024)).bucket == large


def test_knobs_infeasible_at_the_shape_move_to_the_nearest_point_of_the_same_build():
    # data_copy needs rows of whole 32-byte blocks; 1000 float16 columns are not: no point of that build serves it,
    # so the next bucket (DataCopyPad) does.
    aligned = baseline_bucket((4, 1024))
    padded = baseline_bucket((64, 1000))
    assert aligned.params["copy"] == "data_copy" and padded.params["copy"] == "data_copy_pad"
    d = dispatcher(aligned, padded)
    choice = d.choose((4, 1000))
    assert choice.bucket == padded and choice.params["copy"] == "data_copy_pad"
    # more rows per tile than UB holds at a longer row: same structural knobs, fewer rows per tile
    wide = baseline_bucket((64, 512), rows_per_tile=48)
    choice = dispatcher(wide).choose((64, 1024))
    assert choice.adjusted and choice.params["rows_per_tile"] < 48
    assert SPACE.variant(choice.variant.name).structural(choice.params) == \
        SPACE.variant(wide.variant).structural(wide.params)


@pytest.mark.parametrize(("shape", "dtype", "error", "fragments"), [
    ((1, 8192), None, ShapeOutOfRange, ["1x8192", "cols = 8192 is outside 512..2048", "--shapes"]),
    ((4096, 1024), None, ShapeOutOfRange, ["rows = 4096 is outside 1..512"]),
    ((4, 1024), "float32", NoKernelForShape, ["tuned for float16, not float32"]),
])
def test_outside_the_tuned_range_or_dtype_is_one_clear_error(shape, dtype, error, fragments):
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((256, 1024)))
    with pytest.raises(error) as caught:
        d.choose(shape, dtype)
    assert "\n" not in str(caught.value) and all(f in str(caught.value) for f in fragments)


def test_the_table_round_trips_through_its_file(tmp_path):
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((256, 1024)))
    path = d.table.write(tmp_path / "set")
    assert DispatchTable.read(tmp_path / "set") == d.table
    assert "nearest first" in json.loads(path.read_text())["rule"]
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "dispatch.json").write_text("{}")
    with pytest.raises(UsageError, match="not a dispatch table"):
        DispatchTable.read(tmp_path / "bad")


def test_probes_lie_between_neighbouring_buckets_and_toward_the_ranges_ends():
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((64, 1024)), baseline_bucket((256, 1024)))
    assert probe_shapes(d.table) == [(8, 1024), (128, 1024), (1, 512), (2, 1024), (1, 2048), (32, 1024),
                                     (64, 512), (64, 2048), (256, 512), (512, 1024), (256, 2048)]


def test_shape_lists_and_files_name_the_bad_line(tmp_path):
    assert parse_shapes("1x4096, 7x4096") == [((1, 4096), 1.0), ((7, 4096), 1.0)]
    good = tmp_path / "shapes.txt"
    good.write_text("# tokens x hidden\n1x4096 10\n\n128x4096  # prefill\n")
    assert read_shapes_file(good) == [((1, 4096), 10.0), ((128, 4096), 1.0)]
    for text, fragment in (("1x4096 many\n", "weight 'many' is not a number"), ("1x40x\n", "malformed shape"),
                           ("1x4096 -1\n", "must be a positive number"), ("# none\n", "no shapes")):
        good.write_text(text)
        with pytest.raises(UsageError, match=fragment):
            read_shapes_file(good)


@pytest.mark.parametrize(("args", "fragments"), [
    (["--shapes", "1x40x"], ["malformed shape '1x40x'"]),
    (["--shapes", "1x1024", "--shapes-from", "f.txt"], ["not both"]),
    (["--shapes-from", "missing.txt"], ["--shapes-from missing.txt"]),
    (["--shapes", "4x1024,4x1024"], ["a shape appears twice"]),
])
def test_bad_shape_sets_are_one_line_and_exit_2(tmp_path, args, fragments):
    one_line_error(tuner_here("optimize", "softmax", *args, cwd=tmp_path), 2, *fragments)


def test_the_kernels_the_rule_picks_are_right_at_shapes_nobody_tuned():
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((64, 1024)))
    backend = make_backend("sim", SOC)
    for shape in ((3, 1000), (40, 1030), (100, 2048)):
        choice = d.choose(shape)
        measured = measure_at(d, backend, shape, choice.variant, choice.params, SPACE)
        assert measured.ok, (shape, measured.detail)
        assert measured.verified_sets == 3


def assert_winners_and_right_at(result, d: Dispatcher, shapes) -> None:
    """At each tuned shape the rule returns that bucket's winner; at each of `shapes` (untuned) the kernel it picks
    is right on every input set (simulated)."""
    for bucket in (b for b in result.table.buckets if b.origin == "tuned"):
        summary = next(s for s in result.summaries if s.run == bucket.run)
        assert bucket.params == summary.best.params and bucket.time_us == summary.best.value
        choice = d.choose(bucket.shape)
        assert choice.bucket == bucket and choice.params == bucket.params
    backend = make_backend("sim", SOC)
    for shape in shapes:
        choice = d.choose(shape)
        measured = measure_at(d, backend, shape, choice.variant, choice.params, d.space(choice.bucket))
        assert measured.ok and measured.verified_sets == 3, (shape, measured.detail)


@pytest.mark.e2e
def test_a_softmax_tuned_for_four_shapes_serves_ten_it_was_not_tuned_for(tmp_path):
    config = RunConfig(op="softmax", dtype="float16", soc=SOC, budget=6, runs_dir=tmp_path / "runs", rewrites=False,
                       jobs=2)
    tuned = [(1, 2048), (7, 2048), (128, 2048), (512, 2048)]
    result = tune_shapes(config, [(s, 1.0) for s in tuned[:3]] + [(tuned[3], 4.0)])
    table = result.table
    assert result.path == tmp_path / "runs" / table.name / "dispatch.json" and result.path.is_file()
    d = Dispatcher.load(table, config.runs_dir)
    # every probe is served by a kernel no slower than the baseline there, or the baseline took it
    for probe in table.probes:
        assert probe.verdict == "ok" or any(b.shape == probe.shape and b.origin == "baseline" for b in table.buckets)
    # one row; rows of a length that is no multiple of 32 bytes; fewer rows than cores; rows between buckets
    assert_winners_and_right_at(result, d, ((1, 1025), (1, 4000), (2, 2047), (5, 1024), (13, 3000), (30, 2048),
                                            (47, 2050), (200, 1500), (300, 2048), (1000, 1111)))
    with pytest.raises(ShapeOutOfRange):
        d.choose((2048, 2048))
    # the set's CANN export picks what the rule picks, and its kernels are right
    from .test_cann_export import agrees

    project = write_cann_project(d, tmp_path / "cann")
    for shape in ((1, 4000), (13, 3000), (300, 2048)):
        x = np.random.default_rng(7).standard_normal(shape).astype(np.float16)
        result = agrees(project, d, {"x": x}, shape)
        expected = torch.softmax(torch.from_numpy(x).double(), -1).numpy()
        np.testing.assert_allclose(result.outputs["y"].astype(np.float64), expected, rtol=2e-3, atol=1e-5)
    # a resumed set does not tune again
    again = tune_shapes(replace(config, budget=6), [(s, 1.0) for s in tuned[:3]] + [(tuned[3], 4.0)])
    assert all(s.already_finished for s in again.summaries)


def test_a_bucket_with_a_general_kernel_keeps_its_winner_for_its_own_shape_only():
    winner = baseline_bucket((4, 1024), rows_per_tile=1, compute="native")
    general = dict(winner.params, rows_per_tile=2, compute="fp32")
    bucket = replace(winner, general_variant=winner.variant, general_params=general)
    d = dispatcher(bucket, baseline_bucket((256, 1024)))
    assert d.choose((4, 1024)).params == winner.params
    assert d.choose((2, 2, 1024)).params == winner.params  # the same view: rows 4, cols 1024
    elsewhere = d.choose((5, 1024)).params
    assert elsewhere["compute"] == "fp32" and elsewhere["rows_per_tile"] == 2 and elsewhere["block_dim"] == 5


def test_show_prints_a_shape_sets_table(tmp_path):
    d = dispatcher(baseline_bucket((1, 1024)), baseline_bucket((64, 1024)))
    d.table.write(tmp_path / "runs" / "set")
    result = tuner_here("show", "set", "--json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert [b["shape"] for b in json.loads(result.stdout)["buckets"]] == [[1, 1024], [64, 1024]]


@pytest.mark.e2e
def test_the_cli_tunes_a_weighted_shape_file_and_exports_the_set(tmp_path):
    (tmp_path / "shapes.txt").write_text("# tokens x hidden\n1x512 10\n32x512 1\n")
    result = tuner_here("optimize", "softmax", "--shapes-from", "shapes.txt", "--budget", "3", "--no-rewrites",
                        "--json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert [(b["shape"], b["weight"]) for b in out["buckets"] if b["origin"] == "tuned"] == [([1, 512], 10.0),
                                                                                           ([32, 512], 1.0)]
    assert out["weighted_speedup"] >= 1.0 and (tmp_path / out["path"]).is_file()
    for fmt, marker in (("torch", "pyproject.toml"), ("cann-op", "op_host"), ("kernel-launch", "1x512/kernel.json")):
        result = tuner_here("export", out["name"], f"out-{fmt}", "--format", fmt, cwd=tmp_path)
        assert result.exit_code == 0, result.stderr
        assert (tmp_path / f"out-{fmt}" / marker).exists(), fmt


ROWNORM = "import torch\n\n\ndef rownorm(x):\n    return x / (x.abs().amax(-1, keepdim=True) + 1.0)\n"


def test_a_functions_first_tensor_takes_each_shape_and_a_task_file_is_refused(tmp_path):
    from tuner.graph.load import inputs_at

    assert inputs_at("x=float16[4,1024], w=float16[1024], eps=1e-06", (7, 1024)) == \
        "x=float16[7,1024], w=float16[1024], eps=1e-06"
    (tmp_path / "ops.py").write_text(ROWNORM)
    (tmp_path / "task.py").write_text(ROWNORM + "class Model(torch.nn.Module):\n    def forward(self, x):\n"
                                      "        return rownorm(x)\n\n\ndef get_inputs():\n"
                                      "    return [torch.randn(4, 64)]\n\n\ndef get_init_inputs():\n    return []\n")
    one_line_error(tuner_here("optimize", "task.py", "--shapes", "4x64,8x64", cwd=tmp_path), 2,
                   "a task file's shapes are its get_inputs()", "PATH.py:FUNCTION")


@pytest.mark.e2e
def test_a_function_generated_from_pytorch_tuned_for_four_shapes_serves_ten_it_was_not_tuned_for(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "ops.py").write_text(ROWNORM)
    config = RunConfig(op="ops.py:rownorm", task=tmp_path / "ops.py", function="rownorm", inputs="x=float16[1,1024]",
                       soc=SOC, budget=3, runs_dir=tmp_path / "runs", rewrites=False, jobs=2)
    tuned = [(1, 1024), (8, 1024), (64, 1024), (256, 1024)]
    result = tune_shapes(config, [(s, 1.0) for s in tuned])
    d = Dispatcher.load(result.table, config.runs_dir)
    assert_winners_and_right_at(result, d, ((1, 1000), (2, 1024), (3, 2000), (5, 1023), (13, 1500), (30, 1024),
                                            (47, 600), (100, 2048), (200, 1000), (500, 1100)))
    # its torch package, installed, under torch.compile at a shape captured inside the compiled call
    from tuner.search.binding import write_torch_package

    write_torch_package(d, config.runs_dir, tmp_path / "pkg")
    npu = json.loads((tmp_path / "pkg" / "tuner_op_ops_rownorm" / "npu.json").read_text())
    assert "generated from PyTorch" in npu["refused"]
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target",
                    str(tmp_path / "site"), str(tmp_path / "pkg")], check=True, capture_output=True)
    check = ("import torch, tuner_op_ops_rownorm\nf = torch.compile(lambda x: torch.ops.tuner.ops_rownorm(x) + 1)\n"
             "x = torch.randn(6, 1024, dtype=torch.float16)\n"
             "ref = x.double() / (x.double().abs().amax(-1, keepdim=True) + 1) + 1\n"
             "print(float((f(x).double() - ref).abs().max()))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert float(proc.stdout.split()[-1]) < 2e-3
