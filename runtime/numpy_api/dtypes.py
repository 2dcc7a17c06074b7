"""Complex arrays and dtype questions on symbolic arrays: np.real / np.imag (x.real, x.imag),
np.angle, np.result_type and np.can_cast with tensors among their arguments.

np.conj, np.abs and complex arithmetic are ufuncs (runtime/ops/elementwise.py); np.angle is
NumPy's own composition (arctan2 of the parts, in degrees if asked). The dtype questions
are answered while tracing, from the tensors' dtypes: a tensor's dtype is known, and
np.finfo(x.dtype), np.iinfo(x.dtype), np.promote_types(x.dtype, ...) take it as they are.
"""

import numpy as np

from runtime import ops
from runtime.numpy_api import _stand_in, attribute, implements
from runtime.tensor import Tensor, is_ndarray, is_tensor, make_view, mark_ndarray


def _part(name, x):
    """x.real or x.imag: a NumPy scalar of a scalar, an array of an array (0-d too). In
    NumPy the part of an array is a view of it: x.real of a real x is x's own elements
    (a write into it writes x); a write into a complex array's part, which a graph cannot
    make, is refused."""
    if not is_tensor(x) or not is_ndarray(x):
        result = Tensor(ops.get(name).bind1([x]))
        return mark_ndarray(result) if not is_tensor(x) else result

    def part(base):
        return mark_ndarray(Tensor(ops.get(name).bind1([base])))
    if x.dtype.kind != "c" and name == "real":
        return make_view(x, part, lambda base, region: region)
    return make_view(x, part, None, refusal=lambda: TypeError(
        "a write into x.%s (or np.%s(x)) of a %s array: in NumPy it changes x, which a "
        "graph does not do; assign x = %s instead"
        % (name, name, x.dtype, "new_real + 1j * x.imag" if name == "real" else
           "x.real + 1j * new_imag" if x.dtype.kind == "c" else "x + 1j * new_imag")))


@implements(np.real)
def real(val):
    return _part("real", val)


@implements(np.imag)
def imag(val):
    return _part("imag", val)


attribute("real")(real)
attribute("imag")(imag)


@implements(np.angle)
def angle(z, deg=False):
    """NumPy's np.angle: arctan2 of the imaginary and the real part (of 0 and z for a real
    z), times 180/pi in degrees."""
    z = z if is_tensor(z) else np.asanyarray(z)
    if z.dtype.kind == "c":
        a = np.arctan2(imag(z), real(z))
    else:
        a = np.arctan2(0, z)
    if deg:
        a = a * (180 / np.pi)
    return a


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    """The dtype NumPy gives for these operands: a tensor counts by its dtype and rank (a
    Python number the graph holds as a Python number)."""
    return np.result_type(*_stand_in(arrays_and_dtypes))


@implements(np.can_cast)
def can_cast(from_, to, casting="safe"):
    return np.can_cast(_stand_in(from_), to, casting)


@implements(np.iscomplexobj)
def iscomplexobj(x):
    return x.dtype.kind == "c"


@implements(np.isrealobj)
def isrealobj(x):
    return x.dtype.kind != "c"


@implements(np.iscomplex)
def iscomplex(x):
    """NumPy's: a nonzero imaginary part (False everywhere for a real array)."""
    if x.dtype.kind == "c":
        return np.not_equal(imag(x), 0)
    return Tensor(ops.get("zeros_like").bind1([x], dtype=np.dtype(bool)))   # (0-d: a scalar)


@implements(np.isreal)
def isreal(x):
    return np.equal(imag(x), 0)
