"""A small, safe expression language for checklist conditions and quantities.

Expressions are parsed with ``ast`` (mode "eval"), checked against a whitelist of node
types and turned into a tree of closures; nothing is ever passed to eval, exec or compile.
Allowed: names (particulars, settings, terms), numbers, strings, ``true``/``false``,
``+ - * / //``, comparisons (chained too), ``and``/``or``/``not``, ``x if c else y``,
and calls to ``ceil``, ``min`` and ``max``.
"""

import ast
import math
from collections.abc import Callable, Iterable, Mapping

MAX_LENGTH = 1000
CONSTANTS = {"true": True, "false": False}

Evaluator = Callable[[Mapping], object]


class RuleError(ValueError):
    """An expression that cannot be compiled or evaluated."""


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value, what: str):
    if not _is_number(value):
        raise RuleError(f"{what} needs a number, got {value!r}")
    return value


def _boolean(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise RuleError(f"{what} needs true/false, got {value!r}")
    return value


def _ceil(*args):
    if len(args) != 1:
        raise RuleError("ceil() takes exactly one argument")
    return math.ceil(_number(args[0], "ceil()"))


def _min(*args):
    if len(args) < 2:
        raise RuleError("min() takes at least two arguments")
    return min(_number(a, "min()") for a in args)


def _max(*args):
    if len(args) < 2:
        raise RuleError("max() takes at least two arguments")
    return max(_number(a, "max()") for a in args)


FUNCTIONS = {"ceil": _ceil, "min": _min, "max": _max}


def _divide(a, b):
    if b == 0:
        raise RuleError("division by zero")
    return a / b


def _floor_divide(a, b):
    if b == 0:
        raise RuleError("division by zero")
    return a // b


ARITHMETIC = {
    ast.Add: ("+", lambda a, b: a + b),
    ast.Sub: ("-", lambda a, b: a - b),
    ast.Mult: ("*", lambda a, b: a * b),
    ast.Div: ("/", _divide),
    ast.FloorDiv: ("//", _floor_divide),
}
EQUALITY = {ast.Eq: ("==", lambda a, b: a == b), ast.NotEq: ("!=", lambda a, b: a != b)}
ORDERING = {
    ast.Lt: ("<", lambda a, b: a < b),
    ast.LtE: ("<=", lambda a, b: a <= b),
    ast.Gt: (">", lambda a, b: a > b),
    ast.GtE: (">=", lambda a, b: a >= b),
}


def _same_kind(a, b) -> bool:
    if _is_number(a) and _is_number(b):
        return True
    return type(a) is type(b) and isinstance(a, (str, bool))


class Rule:
    """A compiled expression: reusable, knows the names it reads."""

    __slots__ = ("source", "names", "affirmed", "strings", "_evaluate")

    def __init__(self, source: str, names: frozenset, strings: frozenset, evaluate: Evaluator,
                 affirmed: frozenset = frozenset()):
        self.source = source
        self.names = names  # particulars, settings and terms the expression reads
        self.affirmed = affirmed  # the names read at least once outside a `not` ("vapor", not "not vapor")
        self.strings = strings  # (name, literal) pairs compared with ==/!=, to check enums
        self._evaluate = evaluate

    def evaluate(self, env: Mapping):
        """Evaluate against a mapping of names to values; raise RuleError on bad input."""
        try:
            return self._evaluate(env)
        except RuleError as exc:
            raise RuleError(f"{exc} (in {self.source!r})") from None

    def __repr__(self):
        return f"Rule({self.source!r})"


def compile_rule(source: str, allowed: Iterable[str] | None = None) -> Rule:
    """Parse and check an expression once; unknown names and constructs are errors."""
    if not isinstance(source, str) or not source.strip():
        raise RuleError("empty expression")
    if len(source) > MAX_LENGTH:
        raise RuleError(f"expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise RuleError(f"syntax error in {source!r}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise RuleError(f"expression too complex: {source!r}") from None
    compiler = _Compiler(None if allowed is None else frozenset(allowed), source)
    try:
        evaluate = compiler.compile(tree)
    except RecursionError:
        raise RuleError(f"expression too deeply nested: {source!r}") from None
    return Rule(source, frozenset(compiler.names), frozenset(compiler.strings), evaluate, frozenset(compiler.affirmed))


class _Compiler:
    """Turns a whitelisted AST into closures, collecting the names it reads."""

    def __init__(self, allowed: frozenset | None, source: str):
        self.allowed = allowed
        self.source = source
        self.names: set[str] = set()
        self.affirmed: set[str] = set()
        self.negated = False  # inside an odd number of `not`
        self.strings: set[tuple[str, str]] = set()

    def fail(self, message: str):
        raise RuleError(f"{message} in {self.source!r}")

    def compile(self, node) -> Evaluator:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            self.fail(f"{_describe(node)} is not allowed")
        return method(node)

    def _Expression(self, node):
        return self.compile(node.body)

    def _Constant(self, node):
        value = node.value
        if not isinstance(value, (bool, int, float, str)):
            self.fail(f"constant {value!r} is not allowed")
        return lambda env: value

    def _Name(self, node):
        name = node.id
        if name in CONSTANTS:
            value = CONSTANTS[name]
            return lambda env: value
        if name in FUNCTIONS:
            self.fail(f"function {name!r} can only be called")
        if name.startswith("_") or (self.allowed is not None and name not in self.allowed):
            self.fail(f"unknown name {name!r}")
        self.names.add(name)
        if not self.negated:
            self.affirmed.add(name)

        def lookup(env):
            try:
                return env[name]
            except KeyError:
                raise RuleError(f"no value for {name!r}") from None

        return lookup

    def _BoolOp(self, node):
        parts = [self.compile(v) for v in node.values]
        if isinstance(node.op, ast.And):
            def both(env):
                return all(_boolean(p(env), "'and'") for p in parts)
            return both

        def either(env):
            return any(_boolean(p(env), "'or'") for p in parts)
        return either

    def _UnaryOp(self, node):
        self.negated ^= isinstance(node.op, ast.Not)
        operand = self.compile(node.operand)
        self.negated ^= isinstance(node.op, ast.Not)
        if isinstance(node.op, ast.Not):
            return lambda env: not _boolean(operand(env), "'not'")
        if isinstance(node.op, ast.USub):
            return lambda env: -_number(operand(env), "unary '-'")
        if isinstance(node.op, ast.UAdd):
            return lambda env: +_number(operand(env), "unary '+'")
        self.fail(f"operator {_describe(node.op)} is not allowed")

    def _BinOp(self, node):
        entry = ARITHMETIC.get(type(node.op))
        if entry is None:
            self.fail(f"operator {_describe(node.op)} is not allowed")
        symbol, apply = entry
        left, right = self.compile(node.left), self.compile(node.right)
        what = f"'{symbol}'"
        return lambda env: apply(_number(left(env), what), _number(right(env), what))

    def _Compare(self, node):
        operands = [node.left, *node.comparators]
        for op, (a, b) in zip(node.ops, zip(operands, operands[1:])):
            if type(op) in EQUALITY:
                self._note_string(a, b)
                self._note_string(b, a)
        steps = []
        for op in node.ops:
            entry = EQUALITY.get(type(op)) or ORDERING.get(type(op))
            if entry is None:
                self.fail(f"comparison {_describe(op)} is not allowed")
            steps.append((entry, type(op) in ORDERING))
        parts = [self.compile(o) for o in operands]

        def compare(env):
            left = parts[0](env)
            for ((symbol, apply), ordered), part in zip(steps, parts[1:]):
                right = part(env)
                if ordered:
                    _number(left, f"'{symbol}'")
                    _number(right, f"'{symbol}'")
                elif not _same_kind(left, right):
                    raise RuleError(f"cannot compare {left!r} {symbol} {right!r}")
                if not apply(left, right):
                    return False
                left = right
            return True

        return compare

    def _note_string(self, name_node, literal_node):
        if isinstance(name_node, ast.Name) and isinstance(literal_node, ast.Constant):
            if isinstance(literal_node.value, str):
                self.strings.add((name_node.id, literal_node.value))

    def _IfExp(self, node):
        test, body, orelse = (self.compile(n) for n in (node.test, node.body, node.orelse))
        return lambda env: body(env) if _boolean(test(env), "'if'") else orelse(env)

    def _Call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            self.fail("only ceil(), min() and max() may be called")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(f"{node.func.id}() takes plain positional arguments only")
        function = FUNCTIONS[node.func.id]
        args = [self.compile(a) for a in node.args]
        if node.func.id == "ceil" and len(args) != 1:
            self.fail("ceil() takes exactly one argument")
        if node.func.id != "ceil" and len(args) < 2:
            self.fail(f"{node.func.id}() takes at least two arguments")
        return lambda env: function(*(a(env) for a in args))


def _describe(node) -> str:
    names = {
        "Attribute": "attribute access", "Subscript": "subscript", "Lambda": "lambda",
        "ListComp": "comprehension", "SetComp": "comprehension", "DictComp": "comprehension",
        "GeneratorExp": "comprehension", "Mod": "'%'", "Pow": "'**'", "MatMult": "'@'",
        "In": "'in'", "NotIn": "'not in'", "Is": "'is'", "IsNot": "'is not'",
        "NamedExpr": "assignment", "Invert": "'~'", "JoinedStr": "f-string",
    }
    kind = type(node).__name__
    return names.get(kind, kind)
