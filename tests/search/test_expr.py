import pytest

from tuner.search.expr import ExpressionError, evaluate


@pytest.mark.parametrize(("text", "expected"), [
    ("1 + 2 * 3", 7),
    ("ceil_div(10, 4)", 3),
    ("align_up(33, 32)", 64),
    ("align_down(63, 32)", 32),
    ("min(vector_cores, rows)", 3),
    ("'a' if rows > 2 else 'b'", "a"),
    ("copy == 'pad' or cols % 8 == 0", True),
    ("not (rows < 5)", False),
    ("1 < rows <= 3", True),
    ("buffer in (1, 2)", True),
    ("cols // 8 % 5", 0),
])
def test_evaluates_the_language(text, expected):
    names = {"vector_cores": 48, "rows": 3, "cols": 40, "copy": "plain", "buffer": 2}
    assert evaluate(text, names) == expected


def test_non_strings_are_literals():
    assert evaluate(64, {}) == 64


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",
    "rows.__class__",
    "[x for x in (1, 2)]",
    "lambda: 1",
    "open('f')",
    "min(rows, key=abs)",
])
def test_rejects_anything_outside_the_language(text):
    with pytest.raises(ExpressionError):
        evaluate(text, {"rows": 1})


def test_unknown_name_and_bad_arithmetic_are_expression_errors():
    with pytest.raises(ExpressionError, match="unknown name 'nope'"):
        evaluate("nope + 1", {})
    with pytest.raises(ExpressionError, match="division"):
        evaluate("1 // 0", {})
    with pytest.raises(ExpressionError):
        evaluate("1 +", {})
