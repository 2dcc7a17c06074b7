"""Conversion policy: which modules' functions converted_call leaves unconverted.

Rules are module-name prefixes, checked in order; the first match decides. User code
(anything not matched) is converted when conversion is recursive.
"""

import sys


class Rule:
    """A module-name prefix rule; `prefix` matches the module and its submodules."""

    def __init__(self, prefix):
        self.prefix = prefix

    def matches(self, module_name):
        return module_name == self.prefix or module_name.startswith(self.prefix + ".")

    def __repr__(self):
        return f"{type(self).__name__}({self.prefix!r})"


class DoNotConvert(Rule):
    """Functions of matching modules are called as they are."""


class Convert(Rule):
    """Functions of matching modules are converted (overrides later DoNotConvert rules)."""


CONVERSION_RULES = (
    DoNotConvert("autograph"),
    DoNotConvert("runtime"),
    DoNotConvert("builtins"),
    DoNotConvert("numpy"),
    DoNotConvert("numba"),
    DoNotConvert("llvmlite"),
    DoNotConvert("scipy"),
    DoNotConvert("gast"),
    DoNotConvert("astor"),
    DoNotConvert("pytest"),
    DoNotConvert("_pytest"),
    DoNotConvert("pluggy"),
    DoNotConvert("typing_extensions"),
    DoNotConvert("six"),
)

# Standard-library top-level modules (private ones like _collections_abc included).
STDLIB_MODULES = frozenset(sys.stdlib_module_names)


def is_stdlib_module(module_name):
    top_level = module_name.partition(".")[0]
    return top_level in STDLIB_MODULES


def is_denied_module(module_name):
    """True when functions of `module_name` must never be converted implicitly."""
    if not module_name:
        return False
    for rule in CONVERSION_RULES:
        if rule.matches(module_name):
            return isinstance(rule, DoNotConvert)
    return is_stdlib_module(module_name)
