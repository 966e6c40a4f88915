import itertools
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from probes import peak_growth

from tuner.ops import get_operator
from tuner.space import render as templates
from tuner.space.render import (
    PACKAGED_TEMPLATES,
    TemplateError,
    check_template,
    render_kernel,
    render_text,
    tiling_struct_source,
)
from tuner.space.spaces import load_space

TRUST = pytest.mark.parametrize("trusted", [True, False], ids=["in-process", "bounded-child"])


def test_tiling_struct_lists_fields_in_order():
    text = tiling_struct_source("SoftmaxTiling", ["rows", "cols"])
    assert text.index("uint32_t rows;") < text.index("uint32_t cols;")
    assert "__aicore__ inline SoftmaxTiling LoadTiling(GM_ADDR tiling)" in text


@TRUST
def test_render_errors_name_file_and_line(trusted):
    with pytest.raises(TemplateError, match=r"k\.j2:3: template does not render: 'missing' is undefined"):
        render_text("a\nb\n{{ missing }}\n", "k.j2", {}, trusted=trusted)
    with pytest.raises(TemplateError, match=r"k\.j2:2: template does not render"):
        render_text("a\n{% if %}\n", "k.j2", {}, trusted=trusted)


@TRUST
def test_sandbox_refuses_unsafe_attribute_access(trusted):
    with pytest.raises(TemplateError):
        render_text("{{ ''.__class__.__mro__[1].__subclasses__() }}", "k.j2", {}, trusted=trusted)


def test_render_kernel_passes_type_name_and_structural_knobs(tmp_path: Path):
    template = tmp_path / "kernel.cpp.j2"
    template.write_text("{{ tiling_struct }}\n{% if buffers == 2 %}double{% endif %} {{ T }} {{ kernel_name }}\n")
    text = render_kernel(template, kernel="k", dtype="bfloat16", struct="S", tiling_fields=["n"],
                         structural={"buffers": 2})
    assert "double bfloat16_t k" in text and "uint32_t n;" in text
    with pytest.raises(TemplateError, match="does not exist"):
        render_kernel(tmp_path / "none.j2", kernel="k", dtype="float16", struct="S", tiling_fields=[], structural={})


@TRUST
def test_a_child_template_extends_a_parent_in_its_own_directory_only(tmp_path, trusted):
    (tmp_path / "parent.cpp.j2").write_text("head\n{% block body %}plain {{ n }}\n{% endblock %}tail\n")
    child = '{% extends "parent.cpp.j2" %}\n{% block body %}rewritten {{ n }}\n{% endblock %}\n'
    rendered = render_text(child, "kernel.cpp.j2", {"n": 3}, search_dir=tmp_path, trusted=trusted)
    assert rendered == "head\nrewritten 3\ntail\n"
    with pytest.raises(TemplateError, match="kernel.cpp.j2"):
        render_text('{% extends "../../etc/passwd" %}', "kernel.cpp.j2", {}, search_dir=tmp_path, trusted=trusted)
    with pytest.raises(TemplateError, match="kernel.cpp.j2"):
        render_text(child, "kernel.cpp.j2", {"n": 3}, trusted=trusted)  # no directory: nothing to extend


BOMBS = [
    ("{% for i in range(100000) %}{% for j in range(100000) %}{% for k in range(100000) %}{% endfor %}{% endfor %}"
     "{% endfor %}", "more than 100000 loop iterations"),
    ("{% set s = 'A' * 400000000 %}", "would make 400000000 characters"),
    ("{{ 'x' * 10**9 }}", "would make 1000000000 characters"),
    ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recursion too deep"),
    ("{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}", "recursion too deep|loop iterations"),
    ("{% for i in range(10**12) %}{% endfor %}", "Range too big"),
    ("{% for c in 'A' * 1000000 %}{% endfor %}", "more than 100000 loop iterations"),
    ("{% for i in range(50000) %}{{ 'x' * 1000 }}{% endfor %}", "the output passes the limit of 1048576"),
    ("{{ 'x'|center(10**9) }}", "the center filter"),
    ("{{ 'x'.ljust(10**9) }}", r"str\.ljust"),
    ("{{ [1]|batch(10**9, 0)|list }}", "the batch filter"),
    ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
     "a string of 2097152 characters"),
    ("{{ (['x' * 100000] * 100)|join }}", "a string of 10000000 characters"),
    ("{{ 9 ** (9 ** 9) }}", "exceeds the limit of 4096 bits"),
    ("{{ '%0999999999d' % 1 }}", "ran out of its 256 MiB of memory"),
    ("{% if 1 %}" * 3000 + "{% endif %}" * 3000, "recursion too deep"),
]


@pytest.mark.parametrize(("template", "reason"), BOMBS, ids=[reason for _, reason in BOMBS])
def test_untrusted_bombs_end_within_seconds_as_one_line_errors(template, reason):
    start = time.monotonic()
    with peak_growth() as grown, pytest.raises(TemplateError, match=reason) as caught:
        render_text(template, "kernel.cpp.j2", {})
    assert time.monotonic() - start < templates.RENDER_WALL_S + 2
    assert grown[0] < 100 << 20
    message = str(caught.value)
    assert message.startswith("kernel.cpp.j2:") and "\n" not in message and len(message) < 500


def test_the_child_limits_stop_what_no_cap_names(monkeypatch):
    monkeypatch.setattr(templates, "RENDER_WALL_S", 1.0)
    slow = f"{{# {uuid.uuid4()} #}}{{% for i in range(90000) %}}{{% set x = range(100000)|sum %}}{{% endfor %}}"
    start = time.monotonic()
    with pytest.raises(TemplateError, match="ran past its limit of 1 s"):
        render_text(slow, "kernel.cpp.j2", {})
    assert time.monotonic() - start < 3


def _packaged_renders() -> Iterator[tuple[str, Path, dict]]:
    for path in sorted((PACKAGED_TEMPLATES.parent / "search_spaces").glob("*.yaml")):
        space = load_space(path.stem)
        for variant in space.variants.values():
            structural = {k.name: k.choices[-1] for k in variant.knobs if k.structural}
            yield f"{path.stem}/{variant.name}", variant.template, dict(
                kernel=space.kernel, dtype="float16", struct=space.tiling_struct,
                tiling_fields=[name for name, _ in variant.tiling], structural=structural,
                options=get_operator(path.stem).opts)


def test_packaged_templates_render_byte_identically_in_the_bounded_child():
    for name, template, arguments in _packaged_renders():
        here = render_kernel(template, trusted=True, **arguments)
        assert render_kernel(template, trusted=False, **arguments) == here, name


def test_only_packaged_templates_render_in_this_process(tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(templates, "_in_child", lambda request: started.append(request["task"]) or {"source": ""})
    name, template, arguments = next(_packaged_renders())
    assert render_kernel(template, **arguments) and not started
    copy = tmp_path / "kernel.cpp.j2"
    copy.write_text(template.read_text())
    assert render_kernel(copy, **arguments) == "" and started == ["render"]
    assert render_kernel(copy, trusted=True, **arguments) == render_kernel(template, **arguments)


def test_an_untrusted_render_asks_the_server_once_per_distinct_render(monkeypatch):
    asked = []
    real = templates._SERVER.ask
    monkeypatch.setattr(templates._SERVER, "ask", lambda request: asked.append(request) or real(request))
    tag = uuid.uuid4()
    rendered = [render_text(f"// {tag}\n{{{{ n }}}}\n", "k.j2", {"n": n}) for n in (1, 1, 2, 1)]
    assert rendered == [f"// {tag}\n{n}\n" for n in (1, 1, 2, 1)] and len(asked) == 2


def test_a_render_server_that_died_is_started_again():
    assert render_text("{{ 1 + 1 }}", "k.j2", {}) == "2"
    process = templates._SERVER._process
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert render_text(f"{{# {uuid.uuid4()} #}}{{{{ 2 + 2 }}}}", "k.j2", {}) == "4"
    assert templates._SERVER._process.pid != process.pid


def test_check_template_refuses_what_this_process_could_not_parse(tmp_path):
    with pytest.raises(TemplateError, match="kernel.cpp.j2:0: template is refused: nested too deeply to parse"):
        check_template("{% if 1 %}" * 200 + "{% endif %}" * 200, "kernel.cpp.j2")
    with pytest.raises(TemplateError, match="exceeds the limit of 1048576"):
        check_template("x" * (templates.MAX_TEMPLATE + 1), "kernel.cpp.j2")
    check_template("{% if %}", "kernel.cpp.j2")  # a syntax error is the screen's to name
    rules = PACKAGED_TEMPLATES.parent / "tuner" / "mutate" / "rules"
    for path in itertools.chain(PACKAGED_TEMPLATES.rglob("*.j2"), rules.rglob("*.j2")):
        check_template(path.read_text(), str(path))
    binary = tmp_path / "kernel.cpp.j2"
    binary.write_bytes(b"\xff\xfe{{ x }}")
    with pytest.raises(TemplateError, match=r"cannot read the template \(UnicodeDecodeError\)"):
        render_kernel(binary, kernel="k", dtype="float16", struct="S", tiling_fields=[], structural={})


def test_the_render_server_runs_in_the_sandbox_without_the_environment(monkeypatch: pytest.MonkeyPatch):
    from tuner.sandbox import sandbox_problem
    from tuner.space import render as templates

    if sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    templates._SERVER.stop()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-render-secret")
    assert templates.render_text("{{ 6 * 7 }}", "probe.j2", {}, trusted=False) == "42"
    root = templates._SERVER._process.pid
    children = {root}
    for _ in range(4):  # bwrap, its PID-1 reaper, the server
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) in children:
                    children.add(int(proc.name))
            except (OSError, ValueError):
                continue
    environs = [(Path("/proc") / str(pid) / "environ").read_bytes() for pid in children]
    assert environs and all(b"sk-render-secret" not in env for env in environs)
    templates._SERVER.stop()
