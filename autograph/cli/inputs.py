"""The function's inputs from `--arg` specs: sample arrays (DTYPE[dims]), NumPy scalars
(DTYPE[]) or Python literals, one per positional parameter."""

import ast
import inspect
import re

from autograph.cli.errors import UsageError

_ARRAY_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\]]*)\]\s*$")


def make_inputs(specs, seed):
    """The inputs for the --arg `specs`; the same `seed` gives the same sample values."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [parse_arg(spec, rng) for spec in specs]


def parse_arg(text, rng):
    """A sample input from a --arg spec (see --help); raises UsageError when malformed."""
    import numpy as np

    match = _ARRAY_SPEC.match(text)
    if match:
        dtype_name, dims_text = match.groups()
        try:
            dtype = np.dtype(dtype_name)
        except TypeError:
            raise UsageError("--arg %s: unknown dtype %r (use e.g. float64, float32, int64, "
                             "int32, bool)" % (text, dtype_name)) from None
        dims = [d.strip() for d in dims_text.split(",")] if dims_text.strip() else []
        if any(not d.isdigit() for d in dims):
            raise UsageError("--arg %s: dimensions must be non-negative integers separated "
                             "by commas, e.g. float64[3,4]" % text)
        shape = tuple(int(d) for d in dims)
        return _sample(dtype, shape, rng)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise UsageError("--arg %s: not DTYPE[dims] (e.g. float64[3,4], int64[]) nor a Python "
                         "literal (e.g. 3, 2.5, True, 'text')" % text) from None


def _sample(dtype, shape, rng):
    import numpy as np

    kind = dtype.kind
    if kind == "b":
        values = rng.random(shape) < 0.5
    elif kind in "iu":
        values = rng.integers(0, 10, size=shape)
    elif kind == "f":
        values = rng.standard_normal(shape)
    elif kind == "c":
        values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        raise UsageError("dtype %s is not supported for sample inputs (use a bool, integer, "
                         "float or complex dtype)" % dtype)
    values = np.asarray(values).astype(dtype)
    if shape == ():
        return values[()]  # a NumPy scalar
    return values


def check_arity(fn, inputs):
    """Raises UsageError unless `inputs` fill `fn`'s positional parameters."""
    signature = inspect.signature(fn)
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    takes_more = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    if len(inputs) < len(required) or (len(inputs) > len(positional) and not takes_more):
        raise UsageError("%s%s needs %d --arg (got %d): one per parameter, in order"
                         % (fn.__qualname__, signature, len(required), len(inputs)))
