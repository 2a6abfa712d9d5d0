"""The checklist rule language: what it computes and what it refuses."""

import pytest

from checklists.rules import RuleError, compile_rule

ENV = {"crew": 40, "max_passengers": 200, "fire_hydrants": 7, "boilers": 2, "steam_launch": False,
       "propulsion": "steam", "hot_climate": True, "gross_tonnage": 4.5, "opt": True}
NAMES = set(ENV)


@pytest.mark.parametrize("source, expected", [
    ("crew + max_passengers", 240),
    ("2 + 3 * 4", 14),
    ("(2 + 3) * 4", 20),
    ("10 - 4 - 3", 3),
    ("7 / 2", 3.5),
    ("7 // 2", 3),
    ("-crew + 50", 10),
    ("+crew", 40),
    ("ceil(fire_hydrants / 2)", 4),
    ("ceil(8 / 2)", 4),
    ("min(crew, 6)", 6),
    ("max(crew, 6, 100)", 100),
    ("max(6, min(crew, 10))", 10),
    ("boilers * (1 if steam_launch else 2)", 4),
    ('boilers * (2 if propulsion == "steam" and not steam_launch else 1)', 4),
    ("true", True),
    ("false", False),
    ("True", True),
    ("not steam_launch", True),
    ("hot_climate and opt", True),
    ("steam_launch or hot_climate", True),
    ("steam_launch or false", False),
    ("not steam_launch and hot_climate or false", True),  # not > and > or
    ('propulsion == "steam"', True),
    ('propulsion != "motor"', True),
    ("gross_tonnage < 5", True),
    ("0 < crew <= 40", True),
    ("0 < crew < 40", False),
    ("crew >= 40 > boilers", True),
    ("steam_launch == false", True),
    ('"a" if hot_climate else "b"', "a"),
])
def test_evaluates(source, expected):
    rule = compile_rule(source, NAMES)
    assert rule.evaluate(ENV) == expected
    assert type(rule.evaluate(ENV)) is type(expected)


def test_rule_is_reusable_and_reports_names():
    rule = compile_rule('crew + max_passengers if propulsion == "steam" else 0', NAMES)
    assert rule.names == {"crew", "max_passengers", "propulsion"}
    assert rule.strings == {("propulsion", "steam")}
    assert rule.evaluate(ENV) == 240
    assert rule.evaluate({**ENV, "crew": 1, "max_passengers": 2}) == 3
    assert rule.evaluate({**ENV, "propulsion": "motor"}) == 0


def test_and_or_short_circuit():
    rule = compile_rule("steam_launch and missing_name", NAMES | {"missing_name"})
    assert rule.evaluate(ENV) is False  # the right side is never looked up


@pytest.mark.parametrize("source, message", [
    ("unknown + 1", "unknown name 'unknown'"),
    ("crew.real", "attribute access is not allowed"),
    ("crew.__class__", "attribute access is not allowed"),
    ("abs(crew)", "only ceil(), min() and max() may be called"),
    ("eval('1')", "only ceil(), min() and max() may be called"),
    ("__import__('os')", "only ceil(), min() and max() may be called"),
    ("__import__", "unknown name '__import__'"),
    ("(lambda: 1)()", "only ceil(), min() and max() may be called"),
    ("lambda: 1", "lambda is not allowed"),
    ("[1, 2][0]", "subscript is not allowed"),
    ("crew[0]", "subscript is not allowed"),
    ("[x for x in crew]", "comprehension is not allowed"),
    ("sum(x for x in crew)", "only ceil(), min() and max() may be called"),
    ("{x: 1 for x in crew}", "comprehension is not allowed"),
    ("crew ** 2", "'**' is not allowed"),
    ("crew % 2", "'%' is not allowed"),
    ('propulsion in "steam"', "'in' is not allowed"),
    ("crew is 2", "'is' is not allowed"),
    ("(crew := 3)", "assignment is not allowed"),
    ("f'{crew}'", "f-string is not allowed"),
    ("None", "constant None is not allowed"),
    ("ceil", "function 'ceil' can only be called"),
    ("ceil(1, 2)", "ceil() takes exactly one argument"),
    ("min(1)", "min() takes at least two arguments"),
    ("max(*[1, 2])", "plain positional arguments only"),
    ("min(1, key=2)", "plain positional arguments only"),
    ("crew +", "syntax error"),
    ("crew = 3", "syntax error"),
    ("import os", "syntax error"),
    ("", "empty expression"),
    ("1 + " * 600 + "1", "longer than"),
])
def test_rejects(source, message):
    with pytest.raises(RuleError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        compile_rule(source, NAMES)


@pytest.mark.parametrize("source, env, message", [
    ("crew / boilers", {"crew": 1, "boilers": 0}, "division by zero"),
    ("crew // boilers", {"crew": 1, "boilers": 0}, "division by zero"),
    ("crew + steam_launch", {"crew": 1, "steam_launch": True}, "'\\+' needs a number"),
    ("crew and hot_climate", {"crew": 1, "hot_climate": True}, "'and' needs true/false"),
    ("not crew", {"crew": 1}, "'not' needs true/false"),
    ('crew == "steam"', {"crew": 1}, "cannot compare"),
    ('propulsion < "z"', {"propulsion": "steam"}, "'<' needs a number"),
    ("1 if crew else 2", {"crew": 1}, "'if' needs true/false"),
    ("crew + 1", {}, "no value for 'crew'"),
])
def test_evaluation_errors(source, env, message):
    rule = compile_rule(source, NAMES)
    with pytest.raises(RuleError, match=message):
        rule.evaluate(env)


def test_any_name_allowed_when_no_whitelist_is_given():
    assert compile_rule("a + b").names == {"a", "b"}


def test_never_uses_eval_exec_or_code_compilation(monkeypatch):
    import ast
    import builtins

    real_compile = builtins.compile

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec must not be used")

    def ast_only(source, filename, mode, flags=0, *args, **kwargs):
        assert flags & ast.PyCF_ONLY_AST, "compile() may only build an AST"
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    monkeypatch.setattr(builtins, "compile", ast_only)
    assert compile_rule("ceil(crew / 3) + 1", NAMES).evaluate(ENV) == 15
