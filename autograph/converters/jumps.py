"""Shared lowering of jumps (break, continue, return) into flag assignments and guards.

A jump statement is replaced by assignments that set a flag; every statement that follows
a statement which may have jumped is wrapped in `if not <flag>:`, so it runs exactly when
Python would have reached it.
"""

import gast

from autograph.pyct import anno, ast_util, templates

_FUNCTION_OR_CLASS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_LOOPS = (gast.For, gast.AsyncFor, gast.While)


class JumpLowering:
    """Lowers the jumps of one kind inside one block (a loop body or a function body).

    is_jump(stmt) says whether a statement is such a jump; replace(stmt) returns the
    statements that set `flag` instead. Loops are entered only when `enter_loops` (return
    leaves every loop, break/continue only their own); `on_loop(loop)` is then called for
    loops that contain a jump, so the caller can stop them.
    """

    def __init__(self, is_jump, replace, flag, enter_loops=False, on_loop=None):
        self.is_jump = is_jump
        self.replace = replace
        self.flag = flag
        self.enter_loops = enter_loops
        self.on_loop = on_loop

    def contains(self, node):
        stack = [node]
        while stack:
            child = stack.pop()
            if self.is_jump(child):
                return True
            if isinstance(child, _FUNCTION_OR_CLASS):
                continue
            if isinstance(child, _LOOPS) and child is not node and not self.enter_loops:
                continue
            _push_statements(child, stack)
        return False

    def block(self, statements):
        lowered = []
        for index, statement in enumerate(statements):
            jumps = self.contains(statement)
            rest = statements[index + 1:]
            if jumps and rest and self._absorb_rest(statement, rest):
                # `if c: ...; jump` then rest: the rest is exactly the else branch, which
                # costs no extra test (the common early-return/break pattern).
                lowered.extend(self.statement(statement))
                break
            lowered.extend(self.statement(statement))
            if jumps and rest:
                lowered.extend(self.guard(self.block(rest)))
                break
        return lowered

    def _absorb_rest(self, statement, rest):
        """Moves `rest` into the else branch of `if c: ...; jump` (following elif chains)
        when that is the only way to reach it; False if the statement is not of that form."""
        if not (isinstance(statement, gast.If) and statement.body
                and self.is_jump(statement.body[-1])):
            return False
        if not any(self.contains(s) for s in statement.orelse):
            statement.orelse = statement.orelse + rest
            return True
        if len(statement.orelse) == 1:
            return self._absorb_rest(statement.orelse[0], rest)
        return False

    def guard(self, statements):
        """`if not <flag>: statements`."""
        return templates.replace("if not flag:\n    rest", flag=self.flag, rest=statements)

    def statement(self, node):
        if self.is_jump(node):
            replacement = self.replace(node)
            for statement in replacement:  # errors in `return f(x)` point at that line
                anno.copyanno(node, statement, anno.Basic.ORIGIN)
            return replacement
        if isinstance(node, _FUNCTION_OR_CLASS):
            return [node]
        if isinstance(node, _LOOPS):
            if not self.enter_loops:
                return [node]
            if self.on_loop is not None and self.contains(node):
                self.on_loop(node)
        # A try's else block runs only when its body finished without jumping.
        guard_else = isinstance(node, (gast.Try, gast.TryStar)) and node.orelse and any(
            self.contains(s) for s in node.body)
        for owner, field in ast_util.statement_blocks(node):
            setattr(owner, field, self.block(getattr(owner, field)))
        if guard_else:
            node.orelse = self.guard(node.orelse)
        return [node]


def add_extra_loop_test(loop, test):
    """Adds `test` (an expression) to the tests a loop checks before each iteration."""
    existing = anno.getanno(loop, anno.Basic.EXTRA_LOOP_TEST, None)
    if existing is not None:
        test = gast.BoolOp(op=gast.And(), values=[existing, test])
    anno.setanno(loop, anno.Basic.EXTRA_LOOP_TEST, test)


def own_jumps(loop, jump_type):
    """True when the loop's body holds a `jump_type` statement that belongs to this loop."""
    stack = list(loop.body)
    while stack:
        child = stack.pop()
        if isinstance(child, jump_type):
            return True
        if isinstance(child, _FUNCTION_OR_CLASS + _LOOPS):
            continue
        _push_statements(child, stack)
    return False


def _push_statements(statement, stack):
    """Pushes the statements directly inside a compound statement (jumps are statements,
    so the walks for them never enter expressions, most of a tree)."""
    for owner, field in ast_util.statement_blocks(statement):
        stack.extend(getattr(owner, field))
