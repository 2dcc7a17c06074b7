"""Linear algebra on symbolic arrays.

Products (np.einsum, np.tensordot, np.inner, np.vdot, np.kron, np.cross, np.outer) are
compositions of matmul, dot, multiply, sums, indexing and shape ops, so both executors and
derivatives come with the parts; np.tensordot, np.inner, np.vdot, np.kron and np.cross are
NumPy's own compositions, step for step. np.einsum contracts its operands pairwise with
matmul, as np.einsum(..., optimize=True) does: its values are NumPy's up to rounding.

np.linalg's decompositions and solvers are one op each (runtime/ops/linalg.py); pinv,
matrix_rank, matrix_power and the matrix norms of singular values are NumPy's compositions
of them.
"""

import builtins
import operator

import numpy as np

from numpy._core.einsumfunc import _parse_einsum_input

from runtime import api, errors, ops, path_kinds
from runtime.numpy_api import (_NOVALUE, _axis, _stand_in, dot, implements, max, min,
                               not_supported, reshape, sum, swapaxes, transpose)
from runtime.tensor import Tensor, cast, mark_ndarray

LinAlgError = np.linalg.LinAlgError


def _tensor(x):
    """`x` as a Tensor (a NumPy array or Python number as a constant of the graph)."""
    return x if isinstance(x, Tensor) else Tensor(ops.to_value(x))


def _bind(name, inputs, **attrs):
    return [Tensor(v) for v in ops.get(name).bind(list(inputs), **attrs)]


def _size(x, axis):
    """The size of `x` along `axis`: an int where known, else a symbolic int."""
    static = x.static_shape[axis]
    return static if static is not None else x.shape[axis]


def _product(sizes):
    """The product of sizes (ints or symbolic ints), an int where all are known. (Sizes
    of arrays: their product fits an int64, so it needs none of the overflow checks that
    Python's `*` on the Python ints they are gets in a graph.)"""
    known, symbolic = 1, None
    for size in sizes:
        if not isinstance(size, Tensor):
            known *= size
        elif symbolic is None:
            symbolic = size
        else:
            symbolic = Tensor(ops.get("multiply").bind1([symbolic, size]))
    if symbolic is None:
        return known
    return symbolic if known == 1 else Tensor(ops.get("multiply").bind1([symbolic, known]))


def _require_equal(sizes, error):
    """NumPy's `error` unless each pair of `sizes` (ints or symbolic ints) is equal: now
    where both are known, when the graph runs where one is not. `error(a, b)` makes the
    exception from the two sizes (its text is filled in when the graph runs where they
    are symbolic)."""
    for a, b in sizes:
        if isinstance(a, Tensor) or isinstance(b, Tensor):
            template = error("{0}", "{1}")
            text = str(template)
            if "{0}" in text or "{1}" in text:
                text = api.format_text("format", text, (a, b))
            api.Raise(type(template)(text), unless=np.equal(a, b))
        elif a != b:
            raise error(a, b)


def _moveaxis(x, source, destination):
    """np.moveaxis(x, source, destination) for one axis: a transpose."""
    order = [axis for axis in range(x.ndim) if axis != source]
    order.insert(destination % x.ndim, source)
    return transpose(x, tuple(order))


def _normalize_axis(axis, ndim, prefix=None):
    try:
        return ops.normalize_axis(operator.index(axis), ndim)
    except np.exceptions.AxisError:
        raise np.exceptions.AxisError(axis, ndim, prefix) from None


# --- products -------------------------------------------------------------------------------

@implements(np.inner)
def inner(a, b, /):
    """NumPy's inner product: a dot over the last axes (numpy's PyArray_InnerProduct is
    np.dot with b's last two axes swapped)."""
    a, b = _tensor(a), _tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        # (NumPy's kron makes its operands arrays first: a Python number is a 0-d array
        # there, not weak: np.kron(x_float32, 1.5) is float64.)
        return np.multiply(*(Tensor(ops.get("copy").bind1([x]))
                             if path_kinds.is_python(x._value) else x for x in (a, b)))
    return dot(a, b if b.ndim == 1 else swapaxes(b, -1, -2))


@implements(np.vdot)
def vdot(a, b, /):
    """The dot product of the flattened arrays, the first conjugated."""
    a, b = _tensor(a), _tensor(b)
    if a.dtype.kind == "c":
        a = np.conjugate(a)
    return dot(reshape(a, (-1,)), reshape(b, (-1,)))


@implements(np.outer)
def outer(a, b, out=None):
    if out is not None:
        raise not_supported("np.outer(..., out=) (write `out[...] = np.outer(a, b)`)")
    return Tensor(ops.get("outer").bind1([a, b]))


@implements(np.linalg.outer)
def linalg_outer(x1, x2, /):
    x1, x2 = _tensor(x1), _tensor(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are x1.ndim=%d "
                         "and x2.ndim=%d." % (x1.ndim, x2.ndim))
    return outer(x1, x2)


@implements(np.tensordot, np.linalg.tensordot)
def tensordot(a, b, axes=2):
    """NumPy's tensordot: the summed axes moved to the end of a and the front of b, each
    reshaped to a matrix, one dot, reshaped back."""
    try:
        iter(axes)
    except Exception:
        axes = operator.index(axes)
        axes_a, axes_b = list(range(-axes, 0)), list(range(axes))
    else:
        axes_a, axes_b = axes
    axes_a = list(axes_a) if isinstance(axes_a, (list, tuple)) else [axes_a]
    axes_b = list(axes_b) if isinstance(axes_b, (list, tuple)) else [axes_b]
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ValueError("duplicate axes are not allowed in tensordot")
    a, b = _tensor(a), _tensor(b)
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    for axis, ndim in [(axis, a.ndim) for axis in axes_a] + [(axis, b.ndim) for axis in axes_b]:
        if not -ndim <= axis < ndim:
            raise IndexError("tuple index out of range")
    axes_a = [axis % a.ndim for axis in axes_a]
    axes_b = [axis % b.ndim for axis in axes_b]
    _require_equal([(_size(a, i), _size(b, j)) for i, j in zip(axes_a, axes_b)],
                   lambda m, n: ValueError("shape-mismatch for sum"))
    kept_a = [axis for axis in range(a.ndim) if axis not in axes_a]
    kept_b = [axis for axis in range(b.ndim) if axis not in axes_b]
    a = _permuted(a, list(range(a.ndim)), kept_a + axes_a)
    b = _permuted(b, list(range(b.ndim)), axes_b + kept_b)
    if not kept_a and not kept_b:
        # (NumPy's 1x1 product, reshaped to a 0-d array.)
        return mark_ndarray(dot(reshape(a, (-1,)), reshape(b, (-1,))))
    summed = _product(_size(a, axis) for axis in range(len(kept_a), a.ndim))
    at = reshape(a, (_product(_size(a, axis) for axis in range(len(kept_a))), summed))
    bt = reshape(b, (summed, _product(_size(b, axis) for axis in range(len(axes_b), b.ndim))))
    shape = [_size(a, axis) for axis in range(len(kept_a))] + \
        [_size(b, axis) for axis in range(len(axes_b), b.ndim)]
    return reshape(dot(at, bt), tuple(shape))


@implements(np.kron)
def kron(a, b):
    """NumPy's kron: both operands given one more axis per axis, interleaved, multiplied,
    reshaped to the product of the shapes."""
    a, b = _tensor(a), _tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        # (NumPy's kron makes its operands arrays first: a Python number is a 0-d array
        # there, not weak: np.kron(x_float32, 1.5) is float64.)
        return np.multiply(*(Tensor(ops.get("copy").bind1([x]))
                             if path_kinds.is_python(x._value) else x for x in (a, b)))
    ndim = builtins.max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (ndim - a.ndim) + a.shape) if a.ndim < ndim else a
    b = reshape(b, (1,) * (ndim - b.ndim) + b.shape) if b.ndim < ndim else b
    shape = tuple(_product(sizes) for sizes in zip(a.shape, b.shape))
    a = Tensor(ops.get("expand_dims").bind1([a], axis=tuple(range(1, ndim * 2, 2))))
    b = Tensor(ops.get("expand_dims").bind1([b], axis=tuple(range(0, ndim * 2, 2))))
    return reshape(np.multiply(a, b), shape)


def _cross(a, b, axisa, axisb, axisc, name):
    """The cross products of the 3-vectors along axisa of a and axisb of b, as NumPy
    computes them (a1*b2 - a2*b1, ...), along axisc of the result."""
    a, b = _tensor(a), _tensor(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    a = _moveaxis(a, _normalize_axis(axisa, a.ndim, "axisa"), -1)
    b = _moveaxis(b, _normalize_axis(axisb, b.ndim, "axisb"), -1)
    for x in (a, b):
        size = x.static_shape[-1]
        if size == 2:
            raise not_supported("%s of 2-vectors (deprecated in NumPy 2.0: use 3-vectors)"
                                % name)
        if size is not None and size != 3:
            raise ValueError("incompatible dimensions for cross product\n"
                             "(dimension must be 2 or 3)")
    _require_equal([(_size(x, -1), 3) for x in (a, b)], lambda size, _: ValueError(
        "%s in a graph: vectors of size %s (graphs compute cross products of 3-vectors)"
        % (name, size)))
    dtype = np.promote_types(a.dtype, b.dtype)
    a, b = cast(a, dtype), cast(b, dtype)
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    product = Tensor(ops.get("stack").bind1(
        [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1))
    return _moveaxis(product, product.ndim - 1, _normalize_axis(axisc, product.ndim, "axisc"))


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    return _cross(a, b, axisa, axisb, axisc, "np.cross")


@implements(np.linalg.cross)
def linalg_cross(x1, x2, /, *, axis=-1):
    x1, x2 = _tensor(x1), _tensor(x2)
    sizes = [x.static_shape[axis] if -x.ndim <= axis < x.ndim else 3 for x in (x1, x2)]
    if any(size is not None and size != 3 for size in sizes):
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         "they are %s and %s dimensional instead." % tuple(sizes))
    return _cross(x1, x2, axis, axis, axis, "np.linalg.cross")


# --- einsum ---------------------------------------------------------------------------------

@implements(np.einsum)
def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """np.einsum: NumPy parses the subscripts and checks them, and the dtypes, on
    stand-ins of the operands (giving the result's dtype); the operands, cast to it, then
    lose their repeated subscripts (diagonals) and, where a size of 1 is known while
    tracing, the subscripts they broadcast; subscripts of one operand that the result
    does not keep are summed, and the operands are contracted left to right, each pair by
    one matmul (transposed and reshaped to (batch, rows, summed) @ (batch, summed,
    columns)) or, where nothing is summed, a broadcast product. `order` and `optimize` do
    not change the values."""
    if out is not None:
        raise not_supported("np.einsum(..., out=) (write `out[...] = np.einsum(...)`)")
    if not operands:
        raise ValueError("must specify the einstein sum subscripts string and at least one "
                         "operand")
    positions = (range(1, len(operands)) if isinstance(operands[0], str)
                 else range(0, len(operands) - 1, 2))
    stand_ins = list(operands)
    for i in positions:
        stand_ins[i] = _stand_in(operands[i])
    with np.errstate(all="ignore"):
        try:
            result = np.einsum(*stand_ins, dtype=dtype, order=order, casting=casting,
                               optimize=optimize)
            subscripts, output, _ = _parse_einsum_input(stand_ins)
        except (TypeError, ValueError) as error:
            raise errors.mark_python_error(error) from None
    dtype = np.asarray(result).dtype
    arrays = [_tensor(operands[i]) for i in positions]
    arrays = [x if x.dtype == dtype else cast(x, dtype) for x in arrays]
    terms = [list(term) for term in subscripts.split(",")]
    # (NumPy's message names "single operand" where its result is a view of it.)
    view = len(arrays) == 1 and set(terms[0]) <= set(output)
    for i, (x, labels) in enumerate(zip(arrays, terms)):
        arrays[i], terms[i] = _diagonals(x, labels, None if view else i)
    _broadcast_labels(arrays, terms)
    x, labels = arrays[0], terms[0]
    for i in range(1, len(arrays)):
        later = set(output).union(*terms[i + 1:])
        x, labels = _sum_labels(x, labels, later | set(terms[i]), dtype)
        y, y_labels = _sum_labels(arrays[i], terms[i], later | set(labels), dtype)
        names = ("operand 0" if i == 1 else "operands 0 to %d" % (i - 1), "operand %d" % i)
        x, labels = _contract(x, labels, y, y_labels, later, names)
    x, labels = _sum_labels(x, labels, set(output), dtype)
    return _permuted(x, labels, list(output))


def _diagonals(x, labels, operand):
    """x and its subscripts without repeated ones: the diagonal of each repeated pair
    (advanced indexing, last), with NumPy's error where their sizes differ."""
    while True:
        repeated = next((label for label in labels if labels.count(label) > 1), None)
        if repeated is None:
            return x, labels
        first = labels.index(repeated)
        second = labels.index(repeated, first + 1)
        where = "single operand" if operand is None else "operand %d" % operand
        _require_equal([(_size(x, first), _size(x, second))], lambda m, n: ValueError(
            "dimensions in %s for collapsing index '%s' don't match (%s != %s)"
            % (where, repeated, m, n)))
        rest = [axis for axis in range(len(labels)) if axis not in (first, second)]
        x = _permuted(x, list(range(len(labels))), rest + [first, second])
        index = api.arange(_size(x, -1))
        x = x[..., index, index]
        labels = [labels[axis] for axis in rest] + [repeated]


def _broadcast_labels(arrays, terms):
    """NumPy broadcasts a subscript's size of 1 against the other operands' sizes: the
    operands where it is known to be 1 (while tracing) lose it (squeezed: their values
    are the same along it), unless every operand has it of size 1. Sizes known to differ
    are NumPy's error; those known only when the graph runs are checked by the products
    (_contract)."""
    for label in sorted(set().union(*terms)):
        holders = [i for i, labels in enumerate(terms) if label in labels]
        ones = [i for i in holders
                if arrays[i].static_shape[terms[i].index(label)] == 1]
        if ones and len(ones) < len(holders):
            for i in ones:
                axis = terms[i].index(label)
                arrays[i] = Tensor(ops.get("squeeze").bind1([arrays[i]], axis=(axis,)))
                terms[i] = terms[i][:axis] + terms[i][axis + 1:]
            holders = [i for i in holders if i not in ones]
        known = [(i, arrays[i].static_shape[terms[i].index(label)]) for i in holders]
        known = [(i, size) for i, size in known if size is not None]
        for i, size in known[1:]:
            if size != known[0][1]:
                raise _mismatch("operand %d" % known[0][0], known[0][1], "operand %d" % i, size)


def _mismatch(first, m, second, n):
    return ValueError(
        "operands could not be broadcast together: a dimension has size %s in %s and %s in "
        "%s (in a graph, np.einsum broadcasts a size of 1 of a summed subscript only where "
        "it is known when tracing)" % (m, first, n, second))


def _sum_labels(x, labels, kept, dtype):
    """x summed over the subscripts not in `kept` (in `dtype`: einsum adds in the
    result's dtype, booleans by `or`)."""
    axes = tuple(axis for axis, label in enumerate(labels) if label not in kept)
    if not axes:
        return x, labels
    return sum(x, axis=axes, dtype=dtype), [label for label in labels if label in kept]


def _contract(x, x_labels, y, y_labels, kept, operands):
    """The product of x and y summed over their shared subscripts not in `kept`; its
    subscripts: the shared kept ones (the batch, broadcast as matmul broadcasts stacks),
    x's own, y's own. `operands` name x and y in messages."""
    batch = [label for label in x_labels if label in y_labels and label in kept]
    summed = [label for label in x_labels if label in y_labels and label not in kept]
    rows = [label for label in x_labels if label not in y_labels]
    columns = [label for label in y_labels if label not in x_labels]
    x_sizes = {label: _size(x, axis) for axis, label in enumerate(x_labels)}
    y_sizes = {label: _size(y, axis) for axis, label in enumerate(y_labels)}
    # (Summed sizes that differ would give matmul sums of the wrong products, or its error:
    # NumPy's error instead, also where it would broadcast a size of 1 not known now.)
    _require_equal([(x_sizes[label], y_sizes[label]) for label in summed],
                   lambda m, n: _mismatch(operands[0], m, operands[1], n))
    x = _permuted(x, x_labels, batch + rows + summed)
    y = _permuted(y, y_labels, batch + summed + columns)
    labels = batch + rows + columns
    if not summed:
        x = _expand(x, range(x.ndim, x.ndim + len(columns)))
        y = _expand(y, range(len(batch), len(batch) + len(rows)))
        return np.multiply(x, y), labels
    if len(batch) == 1:
        # (Stacks of matrices, of one matrix where x or y has no own subscript.)
        groups_x, groups_y = [batch, rows, summed], [batch, summed, columns]
    elif batch:
        groups_x = [[label] for label in batch] + [rows, summed]
        groups_y = [[label] for label in batch] + [summed, columns]
    else:
        # (Matrices, or vectors where x or y has no own subscript: as matmul takes them.)
        groups_x = [group for group in (rows, summed) if group]
        groups_y = [group for group in (summed, columns) if group]
    product = _grouped(x, groups_x, x_sizes) @ _grouped(y, groups_y, y_sizes)
    # (Its axes: the batch's (broadcast), then rows and columns, where each has one
    # subscript, or none without a batch.)
    if len(rows) > 1 or len(columns) > 1 or batch and not (rows and columns):
        sizes = [_size(product, axis) for axis in range(len(batch))]
        sizes += [x_sizes[label] for label in rows] + [y_sizes[label] for label in columns]
        product = reshape(product, tuple(sizes))
    return product, labels


def _grouped(x, groups, sizes):
    """x (whose axes are the groups' subscripts in order) with one axis per group."""
    if all(len(group) == 1 for group in groups):
        return x
    return reshape(x, tuple(_product(sizes[label] for label in group) for group in groups))


def _permuted(x, labels, order):
    axes = tuple(labels.index(label) for label in order)
    return x if axes == tuple(range(len(axes))) else transpose(x, axes)


def _expand(x, axes):
    axes = tuple(axes)
    return Tensor(ops.get("expand_dims").bind1([x], axis=axes)) if axes else x


# --- np.linalg ------------------------------------------------------------------------------

def _stacked_square(a, name):
    """`a` as a Tensor, with NumPy's LinAlgError unless it is a (stack of) square
    matrices (now where its sizes are known, when the graph runs where not)."""
    a = _tensor(a)
    if a.ndim < 2:
        raise LinAlgError("%d-dimensional array given. Array must be at least "
                          "two-dimensional" % a.ndim)
    _require_equal([(_size(a, -2), _size(a, -1))],
                   lambda m, n: LinAlgError("Last 2 dimensions of the array must be square"))
    return a


@implements(np.linalg.solve)
def solve(a, b):
    return Tensor(ops.get("solve").bind1([a, b]))


@implements(np.linalg.inv)
def inv(a):
    return Tensor(ops.get("inv").bind1([a]))


@implements(np.linalg.det)
def det(a):
    return Tensor(ops.get("det").bind1([a]))


@implements(np.linalg.slogdet)
def slogdet(a):
    return np.linalg._linalg.SlogdetResult(*_bind("slogdet", [a]))


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    return Tensor(ops.get("cholesky").bind1([a], upper=bool(upper)))


def _uplo(UPLO):
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    return Tensor(ops.get("eigvalsh").bind1([a], UPLO=_uplo(UPLO)))


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    return np.linalg._linalg.EighResult(*_bind("eigh", [a], UPLO=_uplo(UPLO)))


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    if not compute_uv:
        return Tensor(ops.get("svd_values").bind1([a], compute_uv=False,
                                                  hermitian=bool(hermitian)))
    return np.linalg._linalg.SVDResult(*_bind("svd", [a], full_matrices=bool(full_matrices),
                                              hermitian=bool(hermitian)))


@implements(np.linalg.svdvals)
def svdvals(x, /):
    return svd(x, compute_uv=False)


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    if mode in ("f", "full", "e", "economic", "raw"):
        raise not_supported("np.linalg.qr(..., mode=%r) (modes 'reduced', 'complete' and "
                            "'r' are)" % (mode,))
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    q, r = _bind("qr", [a], mode="reduced" if mode == "r" else mode)
    return r if mode == "r" else np.linalg._linalg.QRResult(q, r)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    return tuple(_bind("lstsq", [a, b], rcond=None if rcond is None else float(rcond)))


@implements(np.linalg.matrix_power)
def matrix_power(a, n):
    """NumPy's matrix_power: the identity for 0, the inverse's powers for n < 0, else
    products by binary decomposition (the same products, in the same order)."""
    a = _stacked_square(a, "matrix_power")
    try:
        n = operator.index(n)
    except TypeError as error:
        raise TypeError("exponent must be an integer") from error
    if n == 0:
        index = api.arange(_size(a, -1))
        identity = np.equal(index[:, None], index[None, :])
        return np.zeros_like(a) + identity.astype(a.dtype)
    if n < 0:
        a = inv(a)
        n = abs(n)
    if n == 1:
        return a
    if n == 2:
        return a @ a
    if n == 3:
        return (a @ a) @ a
    z = result = None
    while n > 0:
        z = a if z is None else z @ z
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else result @ z
    return result


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=_NOVALUE):
    """NumPy's pinv: from the singular values above rcond times the largest (the first:
    they descend), by a matmul."""
    a = _tensor(a)
    if rcond is None:
        if rtol is _NOVALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = _largest(a.shape[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NOVALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if a.dtype.kind == "c":
        a = np.conjugate(a)
    u, s, vt = svd(a, full_matrices=False, hermitian=hermitian)
    cutoff = _per_matrix(rcond) * s[..., :1]
    large = s > cutoff
    # (NumPy divides where large and writes 0 elsewhere: no division by the others.)
    inverted = np.where(large, 1 / np.where(large, s, 1), 0).astype(s.dtype)
    return swapaxes(vt, -1, -2) @ (inverted[..., None] * swapaxes(u, -1, -2))


def _per_matrix(value):
    """NumPy's asarray(value)[..., newaxis]: a value per matrix of a stack, along the last
    axis (a NumPy value: not weak next to float32 values; one for all left as it is)."""
    if not isinstance(value, Tensor):
        value = np.asarray(value)
    return value[..., None] if value.ndim else value


def _largest(sizes):
    """The largest of sizes (ints or symbolic ints)."""
    if any(isinstance(size, Tensor) for size in sizes):
        return np.maximum(*sizes)
    return builtins.max(sizes)


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """NumPy's matrix_rank: the number of singular values above tol (by default, the
    largest times max(M, N) times the dtype's eps)."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = _tensor(A)
    if A.ndim < 2:
        # (NumPy: int(not all(A == 0)), a Python int.)
        rank = np.any(A != 0).astype(np.int64)
        path_kinds.mark_python(rank._value)
        return rank
    S = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = _largest(A.shape[-2:]) * np.finfo(S.dtype).eps
        else:
            rtol = _per_matrix(rtol)
        # (S.max(initial=0): the first of the descending values, or 0.)
        tol = sum(S[..., :1], axis=-1, keepdims=True) * rtol
    else:
        tol = _per_matrix(tol)
    return sum(S > tol, axis=-1)


@implements(np.linalg.matmul)
def linalg_matmul(x1, x2, /):
    return np.matmul(x1, x2)
@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm of a real array, computed as NumPy computes it (numpy/linalg: the
    2-norm of a whole vector as sqrt(x.dot(x)), others by reductions, the matrix norms 2,
    -2 and 'nuc' from the singular values): vector norms of any order, matrix norms of
    every order."""
    if isinstance(x, Tensor) and x.dtype.kind == "c":
        raise not_supported("np.linalg.norm of a complex array")
    if not isinstance(x, Tensor):
        x = Tensor(ops.to_value(np.asarray(x)))
    if x.dtype.kind not in "f":
        x = x.astype(np.float64)
    keepdims = bool(keepdims)
    ndim = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and ndim == 2)
                         or (ord == 2 and ndim == 1)):
        flat = reshape(x, (-1,))
        result = np.sqrt(dot(flat, flat))
        return _kept_dims(result, (1,) * ndim) if keepdims else result
    if axis is None:
        axis = tuple(range(ndim))
    elif not isinstance(axis, tuple):
        axis = (_axis(axis),)
    axis = tuple(a + ndim if a < 0 else a for a in axis)
    if len(axis) == 1:
        if ord == np.inf:
            return max(np.abs(x), axis=axis, keepdims=keepdims)
        if ord == -np.inf:
            return min(np.abs(x), axis=axis, keepdims=keepdims)
        if ord == 0:
            return sum((x != 0).astype(x.dtype), axis=axis, keepdims=keepdims)
        if ord == 1:
            return sum(np.abs(x), axis=axis, keepdims=keepdims)
        if ord is None or ord == 2:
            return np.sqrt(sum(x * x, axis=axis, keepdims=keepdims))
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        total = sum(np.abs(x) ** ord, axis=axis, keepdims=keepdims)
        return total ** np.reciprocal(np.float64(ord)).astype(total.dtype)
    if len(axis) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = axis
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        # (NumPy: the matrices moved to the last two axes, a reduction of their singular
        # values: the largest for 2 (with initial=0: the first of the descending values,
        # 0 for empty matrices), the smallest for -2, the sum for 'nuc'.)
        moved = transpose(x, tuple([a for a in range(ndim) if a not in axis]) + axis)
        values = svd(moved, compute_uv=False)
        if ord == 2:
            result = sum(values[..., :1], axis=-1)
        elif ord == -2:
            result = min(values, axis=-1)
        else:
            result = sum(values, axis=-1)
    elif ord in (1, -1, np.inf, -np.inf):
        # (Summed over rows for 1 and -1, over columns for the infinities; the other axis,
        # one lower when it came after the summed one, then reduced by max or min.)
        summed, outer_axis = (row, col) if ord in (1, -1) else (col, row)
        if outer_axis > summed:
            outer_axis -= 1
        pick = max if ord in (1, np.inf) else min
        result = pick(sum(np.abs(x), axis=summed), axis=outer_axis)
    elif ord in (None, "fro", "f"):
        result = np.sqrt(sum(x * x, axis=axis))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        result = _kept_dims(result, tuple(shape))
    return result


def _kept_dims(result, shape):
    """`result` reshaped to `shape` (its dims and ones); a scalar by broadcasting, which every
    executor does (x + 0.0 is x for the non-negative norms)."""
    if result.ndim == 0:
        return result + np.zeros(shape, dtype=result.dtype)
    return reshape(result, shape)
