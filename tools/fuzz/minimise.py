"""Shrinks a failing fuzz program to a small one that still fails the same way.

`minimise(source, fails)` tries edits of the program's syntax tree, keeping each edit that
changes the program's text and after which `fails(candidate_source)` is still true, until no
edit helps (or the budget of checks is spent). The edits, in the order tried:
  - delete a statement; replace an if or a loop by its body (or the else branch); drop an
    else branch;
  - drop an argument tuple of ARGS (keep the call that fails), drop a parameter of `f` with
    its argument, shorten the argument arrays of a tuple by one element;
  - replace an expression by one of its operands, drop an operand of and/or or a link of a
    chained comparison, replace an expression by a constant.
Candidates stay programs one would write: every name they read is bound somewhere (no
dropped parameter left behind in a branch Python never runs), and every loop terminates (the
statements that count a `while` and the counter test of its condition are never edited).
"Fails the same way" is the caller's: tools/fuzz_graph_mode.py compares Verdict.key() (class,
kind, what Python did, the message with digits blotted out).
"""

import ast
import builtins
import copy

_KEEP_TOP = ("f", "ARGS")


def minimise(source, fails, max_checks=400, log=None):
    """The smallest program found from `source` for which `fails` stays true."""
    tree = ast.parse(source)
    checks = 0
    start = 0
    while checks < max_checks:
        current = ast.unparse(tree)
        candidates = list(_candidates(tree))
        progress = False
        for number in range(start, len(candidates)):
            candidate = candidates[number](copy.deepcopy(tree))
            if candidate is None:
                continue
            try:
                text = ast.unparse(candidate)
                compile(text, "<candidate>", "exec")
            except (SyntaxError, ValueError, RecursionError):
                continue
            # (An edit may leave the text as it was: deleting the `pass` of an empty body
            # puts one back. Keeping it would be no progress, again and again.)
            if text == current or _reads_unbound_names(candidate):
                continue
            checks += 1
            if fails(text):
                tree = ast.parse(text)
                start = number
                progress = True
                if log:
                    log("  kept edit %d (%d lines)" % (number, text.count("\n") + 1))
                break
            if checks >= max_checks:
                break
        if not progress:
            if start == 0:
                break
            start = 0  # one more full pass: an edit may enable an earlier one
    return _module_text(tree)


def _reads_unbound_names(tree):
    """Whether the program reads a name that nothing in it binds (nor builtins)."""
    bound, loaded = set(dir(builtins)), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bool(loaded - bound)


def _module_text(tree):
    """The module's source, with blank lines between its top-level statements."""
    return "\n\n".join(ast.unparse(statement) for statement in tree.body) + "\n"


def _args_node(tree):
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "ARGS":
            return node.value
    return None


def _function(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "f":
            return node
    return None


def _candidates(tree):
    """Edits: functions of a copy of `tree` returning the edited copy (or None)."""
    nodes = list(ast.walk(tree))
    in_while_tests = {id(n) for w in nodes if isinstance(w, ast.While) for n in ast.walk(w.test)}
    counting = {id(n) for w in nodes if isinstance(w, ast.While) for s in w.body if _is_counting(w, s)
                for n in ast.walk(s)}
    for index, node in enumerate(nodes):
        if id(node) in counting:
            continue
        for field in ("body", "orelse"):
            statements = getattr(node, field, None)
            if not isinstance(statements, list) or not statements or not isinstance(statements[0], ast.stmt):
                continue
            for position, statement in enumerate(statements):
                if isinstance(node, ast.Module) and _is_kept(statement):
                    continue
                if isinstance(node, ast.While) and field == "body" and _is_counting(node, statement):
                    continue  # the counter that bounds the loop stays
                yield lambda t, i=index, f=field, p=position: _edit_list(t, i, f, p, "delete")
                if isinstance(statement, (ast.If, ast.For, ast.While)):
                    yield lambda t, i=index, f=field, p=position: _edit_list(t, i, f, p, "body")
                    if statement.orelse:
                        yield lambda t, i=index, f=field, p=position: _edit_list(t, i, f, p, "orelse")
                        yield lambda t, i=index, f=field, p=position: _edit_list(t, i, f, p, "no else")
    args = _args_node(tree)
    if isinstance(args, ast.List) and len(args.elts) == 2:
        yield lambda t: _keep_variant(t, 0)
        yield lambda t: _keep_variant(t, 1)
    fn = _function(tree)
    if fn is not None:
        for position in range(len(fn.args.args)):
            yield lambda t, p=position: _drop_parameter(t, p)
    if isinstance(args, ast.List):
        for variant in range(len(args.elts)):
            yield lambda t, v=variant: _shorten_arrays(t, v, -1)
            yield lambda t, v=variant: _shorten_arrays(t, v, 0)
    for index, node in enumerate(nodes):
        if id(node) in counting:
            continue
        if id(node) in in_while_tests:
            # A loop's test only loses what follows its counter test (`c < 3 and ...`).
            if isinstance(node, ast.BoolOp) and isinstance(node.values[0], ast.Compare):
                yield lambda t, i=index: _replace_expr(t, i, 0)
            continue
        if (not isinstance(node, ast.expr) or isinstance(node, (ast.Name, ast.Constant, ast.Attribute))
                or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load) or _inside_args(tree, node)):
            continue
        children = _operands(node)
        for child in range(len(children)):
            yield lambda t, i=index, c=child: _replace_expr(t, i, c)
        if isinstance(node, ast.BoolOp) and len(node.values) > 2:
            for position in range(len(node.values)):
                yield lambda t, i=index, p=position: _drop_operand(t, i, p)
        if isinstance(node, ast.Compare) and len(node.comparators) > 1:
            for position in range(len(node.comparators)):
                yield lambda t, i=index, p=position: _drop_link(t, i, p)
        for constant in (1.0, 1, True):
            yield lambda t, i=index, c=constant: _replace_expr(t, i, None, c)


def _is_counting(loop, statement):
    """Whether `statement` of a generated `while` body bounds the loop: `c += 1` of a counter
    its test reads, and in `while True:` the `if c > bound: break`. Edits never touch them,
    so every candidate terminates."""
    counters = {n.id for n in ast.walk(loop.test) if isinstance(n, ast.Name)}
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id in counters or isinstance(loop.test, ast.Constant)
    return (isinstance(loop.test, ast.Constant) and isinstance(statement, ast.If)
            and isinstance(statement.test, ast.Compare) and isinstance(statement.test.left, ast.Name)
            and any(isinstance(b, ast.Break) for b in statement.body))


def _operands(node):
    """The sub-expressions an expression may be replaced by (a call's arguments, not the
    function it calls)."""
    if isinstance(node, ast.Call):
        return list(node.args)
    return [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]


def _is_kept(statement):
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, ast.FunctionDef) and statement.name in _KEEP_TOP:
        return True
    return isinstance(statement, ast.Assign) and getattr(statement.targets[0], "id", None) in _KEEP_TOP


def _inside_args(tree, node):
    args = _args_node(tree)
    return args is not None and any(node is n for n in ast.walk(args))


def _keep_variant(tree, variant):
    args = _args_node(tree)
    args.elts = [args.elts[variant]]
    return tree


def _drop_parameter(tree, position):
    fn = _function(tree)
    del fn.args.args[position]
    for variant in _args_node(tree).elts:
        if not isinstance(variant, ast.Tuple) or len(variant.elts) <= position:
            return None
        del variant.elts[position]
    return tree


def _shorten_arrays(tree, variant, end):
    changed = False
    for node in ast.walk(_args_node(tree).elts[variant]):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.List) and node.args[0].elts:
            del node.args[0].elts[end]
            changed = True
    return tree if changed else None


def _edit_list(tree, index, field, position, how):
    node = list(ast.walk(tree))[index]
    statements = getattr(node, field)
    statement = statements[position]
    if how == "delete":
        replacement = []
    elif how == "body":
        replacement = statement.body
    elif how == "orelse":
        replacement = statement.orelse
    else:
        statement.orelse = []
        replacement = [statement]
    statements[position:position + 1] = replacement
    if not statements and not isinstance(node, ast.Module):
        statements.append(ast.Pass())
    return tree


def _replace_in_parent(tree, target, replacement):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, replacement)
                return tree
            if isinstance(value, list):
                for position, item in enumerate(value):
                    if item is target:
                        value[position] = replacement
                        return tree
    return None


def _replace_expr(tree, index, child, constant=None):
    node = list(ast.walk(tree))[index]
    if child is None:
        replacement = ast.Constant(constant)
    else:
        replacement = _operands(node)[child]
    return _replace_in_parent(tree, node, replacement)


def _drop_operand(tree, index, position):
    node = list(ast.walk(tree))[index]
    del node.values[position]
    return tree


def _drop_link(tree, index, position):
    node = list(ast.walk(tree))[index]
    # Dropping comparator p also drops the operator before it (the first: the left operand).
    if position == 0:
        node.left = node.comparators[0]
        del node.comparators[0], node.ops[0]
    else:
        del node.comparators[position], node.ops[position]
    return tree
