from pathlib import Path

import pytest

from tuner.search.templates import TemplateError, render_kernel, render_text, tiling_struct_source


def test_tiling_struct_lists_fields_in_order():
    text = tiling_struct_source("SoftmaxTiling", ["rows", "cols"])
    assert text.index("uint32_t rows;") < text.index("uint32_t cols;")
    assert "__aicore__ inline SoftmaxTiling LoadTiling(GM_ADDR tiling)" in text


def test_render_errors_name_file_and_line(tmp_path):
    with pytest.raises(TemplateError, match=r"k\.j2:3: template does not render: 'missing' is undefined"):
        render_text("a\nb\n{{ missing }}\n", "k.j2", {})
    with pytest.raises(TemplateError, match=r"k\.j2:2: template does not render"):
        render_text("a\n{% if %}\n", "k.j2", {})


def test_sandbox_refuses_unsafe_attribute_access():
    with pytest.raises(TemplateError):
        render_text("{{ ''.__class__.__mro__[1].__subclasses__() }}", "k.j2", {})


def test_render_kernel_passes_type_name_and_structural_knobs(tmp_path: Path):
    template = tmp_path / "kernel.cpp.j2"
    template.write_text("{{ tiling_struct }}\n{% if buffers == 2 %}double{% endif %} {{ T }} {{ kernel_name }}\n")
    text = render_kernel(template, kernel="k", dtype="bfloat16", struct="S", tiling_fields=["n"],
                         structural={"buffers": 2})
    assert "double bfloat16_t k" in text and "uint32_t n;" in text
    with pytest.raises(TemplateError, match="does not exist"):
        render_kernel(tmp_path / "none.j2", kernel="k", dtype="float16", struct="S", tiling_fields=[], structural={})


def test_a_child_template_extends_a_parent_in_its_own_directory_only(tmp_path):
    (tmp_path / "parent.cpp.j2").write_text("head\n{% block body %}plain {{ n }}\n{% endblock %}tail\n")
    child = '{% extends "parent.cpp.j2" %}\n{% block body %}rewritten {{ n }}\n{% endblock %}\n'
    assert render_text(child, "kernel.cpp.j2", {"n": 3}, search_dir=tmp_path) == "head\nrewritten 3\ntail\n"
    with pytest.raises(TemplateError, match="kernel.cpp.j2"):
        render_text('{% extends "../../etc/passwd" %}', "kernel.cpp.j2", {}, search_dir=tmp_path)
    with pytest.raises(TemplateError, match="kernel.cpp.j2"):
        render_text(child, "kernel.cpp.j2", {"n": 3})  # no directory: nothing to extend
