import re

import pytest

from tuner.space.expr import ExpressionError, evaluate, parse


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


@pytest.mark.parametrize(("text", "bound"), [
    ("9**9**9 > k", "exponent 387420489 exceeds the limit of 4096"),
    ("'a' * 10**9 > k", "over the limit of 10000"),
    ("(1,) * 10**6", "over the limit of 10000"),
    ("2 ** 4096 > k", "2 ** 4096 exceeds the limit of 4096 bits"),
    ("k > " + "9" * 1300, "an integer of 4319 bits"),
    ("1+" * 30000 + "1", "longer than the limit of 2000 characters"),
    ("-" * 1999 + "k", "nested more than 100 levels"),
    ("not " * 400 + "k", "nested more than 100 levels"),
    ("min(" * 120 + "k" + ")" * 120, "nested more than 100 levels"),
    (f"min({', '.join(['k'] * 300)})", "more than 500 syntax nodes"),
    ("'%09999999d' % 1 == k", "formatting"),
])
def test_bounds_are_checked_when_the_expression_is_parsed(text, bound):
    with pytest.raises(ExpressionError, match=re.escape(bound)) as caught:
        parse(text)  # nothing is evaluated with names: the constant parts alone break the bound, or the shape
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300


@pytest.mark.parametrize(("text", "names", "bound"), [
    ("k ** k", {"k": 10**6}, "exponent 1000000 exceeds the limit of 4096"),
    ("k ** 500", {"k": 1024}, "1024 ** 500 exceeds the limit of 4096 bits"),
    ("k ** 3000", {"k": 3}, "an integer of 4755 bits exceeds the limit of 4096 bits"),
    ("k * k * k", {"k": 2**2000}, "a product of"),
    ("s * k", {"s": "ab", "k": 10**8}, "over the limit of 10000"),
    ("s % k", {"s": "%0999999999d", "k": 1}, "formatting"),
    ("align_up(k, 3) * k", {"k": 2**3000}, "a product of"),
    ("t + t", {"t": (0,) * 6000}, "a value of 12000 items"),
])
def test_bounds_are_checked_on_every_result(text, names, bound):
    parse(text)
    with pytest.raises(ExpressionError, match=re.escape(bound)):
        evaluate(text, names)


def test_values_up_to_the_bounds_evaluate():
    assert evaluate("2 ** 4095", {}) == 2**4095
    assert evaluate("k ** 1000", {"k": 7}) == 7**1000
    assert evaluate("1 ** k + 0 ** k + (-1) ** k", {"k": 10**9}) == 2
    assert evaluate("'ab' * 5000", {}) == "ab" * 5000
    assert evaluate("+".join(["k"] * 90), {"k": 1}) == 90
    assert evaluate("-" * 90 + "k", {"k": 3}) == 3


def test_a_parse_that_python_cannot_finish_deep_in_a_stack_is_an_expression_error():
    def called_at(depth: int) -> None:
        if depth:
            called_at(depth - 1)
        else:
            parse("-" * 1990 + "deep")

    with pytest.raises(ExpressionError, match="too deeply nested to parse"):
        called_at(850)
