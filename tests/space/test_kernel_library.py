"""The kernel library (templates/ascendc/_lib/): every template finds it wherever it renders, it is part of what a
rendered kernel depends on, and a new row-wise operator is its math plus a YAML (the example in
docs/kernel_library.md, which must render and compile)."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from tuner.backends.sim import SimBackend
from tuner.mutate.rules import PARENT_NAME, tokens
from tuner.search.compile_cache import CompileCache
from tuner.space import render
from tuner.space.render import LIBRARY, library_digest, render_kernel
from tuner.space.spaces import load_space, parse_space

EXAMPLE = Path(__file__).parent / "data"
EXAMPLE_YAML = EXAMPLE / "l2norm.yaml"
EXAMPLE_TEMPLATE = EXAMPLE / "l2norm" / "rows" / "kernel.cpp.j2"
DOC = Path(__file__).resolve().parents[2] / "docs" / "kernel_library.md"


def _render(template: Path, structural: dict, dtype: str = "float16", *, trusted: bool | None = None) -> str:
    space = load_space("rmsnorm")
    variant = space.variants["rows"]
    return render_kernel(template, kernel=space.kernel, dtype=dtype, struct=space.tiling_struct,
                         tiling_fields=[name for name, _ in variant.tiling], structural=structural,
                         options={"eps": 1e-6}, trusted=trusted)


RMSNORM_ROWS = {"buffer_num": 2, "copy": "data_copy_pad", "sync": "queue", "compute": "fp32"}


def test_a_packaged_template_renders_the_same_in_process_and_in_the_bounded_child():
    template = load_space("rmsnorm").variants["rows"].template
    here, child = _render(template, RMSNORM_ROWS, trusted=True), _render(template, RMSNORM_ROWS, trusted=False)
    assert "class KernelRmsNormRows" in here and "NormRow(row, row);" in here
    assert here == child


def test_a_rule_child_beside_a_copy_of_its_parent_finds_the_library(tmp_path: Path):
    template = load_space("rmsnorm").variants["rows"].template
    shutil.copy(template, tmp_path / PARENT_NAME)
    child = tmp_path / "kernel.cpp.j2"
    child.write_text('{% extends "parent.cpp.j2" %}\n{% block before_rows %}\n        // gamma later\n'
                     '        LoadGamma();\n{% endblock %}\n')
    for trusted in (True, False):
        source = _render(child, RMSNORM_ROWS, trusted=trusted)
        assert "// gamma later" in source
        assert tokens(source) == tokens(_render(template, RMSNORM_ROWS))


def test_the_library_digest_follows_every_library_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    copy = tmp_path / "_lib"
    shutil.copytree(LIBRARY, copy)
    monkeypatch.setattr(render, "LIBRARY", copy)
    before = library_digest()
    assert before == library_digest()
    for path in sorted(copy.glob("*.j2")):
        path.write_text(path.read_text() + "\n")
        assert library_digest() != before, path.name
        before = library_digest()


def test_a_templates_digest_follows_the_library_files_it_reaches_and_no_other(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    copy = tmp_path / "_lib"
    shutil.copytree(LIBRARY, copy)
    monkeypatch.setattr(render, "LIBRARY", copy)
    template = tmp_path / "kernel.cpp.j2"
    template.write_text('{% extends "parent.cpp.j2" %}\n')  # a rule's child: the library through its parent
    (tmp_path / "parent.cpp.j2").write_text('{% extends "_lib/flat.j2" %}\n')
    alone = tmp_path / "alone.cpp.j2"
    alone.write_text("// no library\n")
    before, nothing = library_digest(template), library_digest(alone)
    (copy / "pipeline.j2").write_text((copy / "pipeline.j2").read_text() + "\n")  # flat.j2 imports it
    assert library_digest(template) != before and library_digest(alone) == nothing
    before = library_digest(template)
    (copy / "graph.j2").write_text((copy / "graph.j2").read_text() + "\n")  # not reached from flat.j2
    assert library_digest(template) == before


def test_the_example_operator_is_its_math_plus_a_yaml_of_60_to_100_lines_shown_in_the_docs():
    lines = len(EXAMPLE_YAML.read_text().splitlines()) + len(EXAMPLE_TEMPLATE.read_text().splitlines())
    assert 60 <= lines <= 100
    doc = DOC.read_text()
    assert EXAMPLE_YAML.read_text() in doc and EXAMPLE_TEMPLATE.read_text() in doc


def test_the_example_operator_renders_for_every_structural_combination_and_compiles():
    space = parse_space(EXAMPLE_YAML.read_text(), EXAMPLE_YAML, EXAMPLE)
    variant = space.variants["rows"]
    structural = [k for k in variant.knobs if k.structural]
    backend = SimBackend("Ascend910B2")
    cache = CompileCache(backend)
    sources = set()
    for combo in itertools.product(*(k.choices for k in structural)):
        knobs = dict(zip((k.name for k in structural), combo, strict=True))
        for dtype in ("float16", "float32"):
            source = render_kernel(variant.template, kernel=space.kernel, dtype=dtype, struct=space.tiling_struct,
                                   tiling_fields=[n for n, _ in variant.tiling], structural=knobs,
                                   options={"eps": 1e-12}, trusted=True)
            sources.add(source)
    assert len(sources) == 2 * 2 * 2 * 2 * 2
    # one build per pipeline style and precision: the library's C++ compiles against the simulator's headers
    for source in sorted(sources)[::4]:
        build = cache.build(source, space.kernel)
        assert build.artifact is not None, build.error and build.error.summary
