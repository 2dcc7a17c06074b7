"""Products (dot, matmul, also batched, outer) and np.linalg's decompositions and solvers
(solve, inv, det, slogdet, cholesky, eigh, eigvalsh, svd, qr, lstsq)."""

import numpy as np

from runtime.executors.numba import lowering as nl
from runtime.ops.calls import defcall
from runtime.ops.inference import broadcast_shapes, dummy, prod_or_none
from runtime.ops.registry import defop, get
from runtime.ops.shapes import unify_dims


def _check_inner(a, b):
    unify_dims(a, b, "shapes not aligned: inner dimensions")


def _matmul_infer(a, b):
    if len(a.shape) == 0 or len(b.shape) == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    dtype = np.matmul(dummy(a), dummy(b)).dtype
    sa, sb = a.shape, b.shape
    if len(sa) == 1 and len(sb) == 1:
        _check_inner(sa[0], sb[0])
        return [(dtype, ())]
    if len(sa) == 1:
        _check_inner(sa[0], sb[-2])
        return [(dtype, sb[:-2] + sb[-1:])]
    if len(sb) == 1:
        _check_inner(sa[-1], sb[0])
        return [(dtype, sa[:-1])]
    _check_inner(sa[-1], sb[-2])
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    return [(dtype, batch + (sa[-2], sb[-1]))]


matmul = defop("matmul", infer=_matmul_infer, kernel=np.matmul, doc="a @ b")
# (An ndarray's `@` is np.matmul; the inference refused rank 0, which a NumPy scalar is.)
matmul.expression = lambda node: "{0} @ {1}"


def _dot_infer(a, b):
    dtype = np.dot(dummy(a), dummy(b)).dtype
    sa, sb = a.shape, b.shape
    if len(sa) == 0 or len(sb) == 0:
        return [(dtype, broadcast_shapes(sa, sb))]
    if len(sb) == 1:
        _check_inner(sa[-1], sb[0])
        return [(dtype, sa[:-1])]
    _check_inner(sa[-1], sb[-2])
    return [(dtype, sa[:-1] + sb[:-2] + sb[-1:])]


dot = defop("dot", infer=_dot_infer, kernel=np.dot, doc="np.dot(a, b)")

outer = defop(
    "outer",
    infer=lambda a, b: [(np.outer(dummy(a), dummy(b)).dtype,
                         (prod_or_none(a.shape), prod_or_none(b.shape)))],
    kernel=np.outer, doc="np.outer(a, b)")


# --- Numba lowerings (runtime/executors/numba/codegen.py generates the code; a lowering
# returns the expression(s) for its outputs, see runtime/executors/numba/lowering.py) ---

def _check_product_shapes(g, node, name):
    """Before a product of arrays in generated code: NumPy's error (the compiled graph's
    "product" site, runtime/executors/numba/compiled.py) when the inner dims differ or,
    for a matmul of stacks, the batch dims do not broadcast; Numba's own checks would name
    neither the node nor NumPy's message. Dims inference proved equal need no check. The
    check is a call (support.check_product), not inline: an `if` and a raise would add
    blocks, which Numba's compile time grows with (tools/bench_compile.py)."""
    a, b = node.inputs
    inner_a, inner_b = len(a.shape) - 1, 0 if len(b.shape) == 1 else len(b.shape) - 2
    inner = a.shape[inner_a] is None or b.shape[inner_b] is None
    stacks = name == "matmul" and len(a.shape) == 3 and len(b.shape) == 3 and (
        a.shape[0] is None or b.shape[0] is None or a.shape[0] != b.shape[0])
    if not (inner or stacks):
        return
    site = g.site(node, "product", name=name, axes=(inner_a, inner_b))
    g.uses_err = True
    g.emit("_rt.check_product(%s, %s, %d, %d, %s, err, %d)" % (
        g.arg(node, 0), g.arg(node, 1), inner_a, inner_b, stacks, site))


def _numba_product_lowering(name):
    def lower(g, node, ins):
        out = node.outputs[0]
        a, b = node.inputs
        if out.dtype.kind not in "fciub":
            raise nl.Unlowerable("%s of %s values" % (name, out.dtype))
        if name == "dot" and (nl.is_scalar(g, a) or nl.is_scalar(g, b)):
            text = "(%s * %s)" % (nl.as_dtype(g, a, out.dtype), nl.as_dtype(g, b, out.dtype))
            return g.scalar_cast(text, out.dtype) if nl.is_scalar(g, out) else text
        ranks = len(a.shape), len(b.shape)
        if name == "dot" and max(ranks) > 2:
            raise nl.Unlowerable("dot of rank-%d and rank-%d operands (Numba: 1-D and 2-D)"
                                 % ranks)
        _check_product_shapes(g, node, name)
        if not g.is_used(out):   # (a gradient nobody reads: only NumPy's errors remain)
            return None
        if out.dtype.kind in "iub":
            # (NumPy's exact loops, not BLAS.)
            return _product_of_stacks(g, node, "_rt.integer_matmul")
        if max(ranks) > 2:
            return _product_of_stacks(g, node, "_rt.batched_matmul")
        text = "_rt.dot(%s, %s)" % (nl.as_dtype(g, a, out.dtype), nl.as_dtype(g, b, out.dtype))
        if nl.is_scalar(g, out):
            return g.scalar_cast(text, out.dtype)
        return text
    return lower


def _product_of_stacks(g, node, helper):
    """a @ b by `helper` (support.batched_matmul or integer_matmul) on rank-3 stacks: a
    vector is a matrix of one row (a) or column (b), the operands' stacks are broadcast
    together (support.as_stack), and the result gets the common batch shape back and
    loses the axes the vectors gained, as matmul does."""
    a, b = node.inputs
    dtype = node.outputs[0].dtype
    x, y, batch, product = g.tmp("x"), g.tmp("y"), g.tmp("batch"), g.tmp("p")
    g.emit("%s = %s" % (x, nl.as_dtype(g, a, dtype)))
    g.emit("%s = %s" % (y, nl.as_dtype(g, b, dtype)))
    if len(a.shape) == 1:
        g.emit("%s = np.ascontiguousarray(%s).reshape((1, %s.shape[0]))" % (x, x, x))
    if len(b.shape) == 1:
        g.emit("%s = np.ascontiguousarray(%s).reshape((%s.shape[0], 1))" % (y, y, y))
    if max(len(a.shape), len(b.shape)) <= 2:
        g.emit("%s = ()" % batch)
        stacks = ["np.ascontiguousarray(%s).reshape((1,) + %s.shape)" % (v, v) for v in (x, y)]
    else:
        g.emit("%s = np.broadcast_shapes(%s.shape[:-2], %s.shape[:-2])" % (batch, x, y))
        stacks = ["_rt.as_stack(%s, %s)" % (v, batch) for v in (x, y)]
    g.emit("%s = %s(%s, %s)" % (product, helper, stacks[0], stacks[1]))
    text = "%s.reshape(%s + (%s.shape[1], %s.shape[2]))" % (product, batch, product, product)
    drop = ["0" if len(a.shape) == 1 else ":", "0" if len(b.shape) == 1 else ":"]
    if "0" in drop:
        text = "%s[..., %s]" % (text, ", ".join(drop))
    return text


get("matmul").def_numba(_numba_product_lowering("matmul"))
get("dot").def_numba(_numba_product_lowering("dot"))


@get("outer").def_numba
def _numba_outer(g, node, ins):
    out = node.outputs[0]
    a, b = node.inputs
    if nl.is_scalar(g, a) or nl.is_scalar(g, b):
        raise nl.Unlowerable("np.outer of scalars")
    return "np.outer(np.ravel(%s), np.ravel(%s))" % (nl.as_dtype(g, a, out.dtype),
                                                     nl.as_dtype(g, b, out.dtype))


# --- np.linalg: one NumPy function each (runtime/ops/calls.py) ------------------------------
# The shape rules raise NumPy's errors for ranks and for sizes known while tracing; sizes
# known only when the graph runs are NumPy's to check (on Numba, the object-mode call's).
# On Numba, a call on one matrix (ints and float32 computed in float64, as NumPy computes
# them) runs natively where Numba calls the LAPACK routine NumPy calls, on the same
# operands: SciPy's build of it, whose values were NumPy's to the bit in every trial of
# random matrices (not Numba's inv, which inverts the LU factors, nor its complex
# Cholesky); where the native call raises, NumPy runs in object mode and decides
# (calls.native_or_numpy). Eigenvectors, singular vectors and Q factors, whose signs an
# algorithm chooses, least squares and stacks of matrices always run NumPy.

LinAlgError = np.linalg.LinAlgError


def _stacked_2d(shape):
    """NumPy's check that an operand is a (stack of) matrices."""
    if len(shape) < 2:
        raise LinAlgError("%d-dimensional array given. Array must be at least "
                          "two-dimensional" % len(shape))


def _stacked_square(shape):
    """The size of the (stack of) square matrices `shape`, None when unknown; NumPy's
    errors."""
    _stacked_2d(shape)
    rows, columns = shape[-2:]
    if rows is not None and columns is not None and rows != columns:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return rows if rows is not None else columns


def _core_dim(name, signature, size, expected):
    """A gufunc's core dimension of operand 1 (dim 0) that must equal `expected`."""
    if size is not None and expected is not None and size != expected:
        raise ValueError("%s: Input operand 1 has a mismatch in its core dimension 0, with "
                         "gufunc signature %s (size %d is different from %d)"
                         % (name, signature, size, expected))
    return expected if expected is not None else size


def _solve_shape(a, b):
    m = _stacked_square(a)
    if len(b) == 1:   # (NumPy 2: only a 1-D b is a vector)
        return a[:-2] + (_core_dim("solve1", "(m,m),(m)->(m)", b[0], m),)
    if len(b) == 0:
        raise ValueError("solve: Input operand 1 does not have enough dimensions (has 0, "
                         "gufunc core with signature (m,m),(m,n)->(m,n) requires 2)")
    m = _core_dim("solve", "(m,m),(m,n)->(m,n)", b[-2], m)
    return broadcast_shapes(a[:-2], b[:-2]) + (m, b[-1])


def _square_shape(a, **_):
    _stacked_square(a)
    return a


def _stack_shape(a):
    _stacked_square(a)
    return a[:-2]


def _eigh_shapes(a, UPLO):
    m = _stacked_square(a)
    return [a[:-2] + (m,), a[:-2] + (m, m)]


def _eigvalsh_shape(a, UPLO):
    return _eigh_shapes(a, UPLO)[0]


def _min(m, n):
    return None if m is None or n is None else min(m, n)


def _svd_shapes(a, full_matrices, hermitian):
    _stacked_2d(a)
    batch, (m, n) = a[:-2], a[-2:]
    k = _min(m, n)
    if full_matrices:
        return [batch + (m, m), batch + (k,), batch + (n, n)]
    return [batch + (m, k), batch + (k,), batch + (k, n)]


def _svd_values_shape(a, compute_uv, hermitian):
    _stacked_2d(a)
    return a[:-2] + (_min(*a[-2:]),)


def _qr_shapes(a, mode):
    _stacked_2d(a)
    batch, (m, n) = a[:-2], a[-2:]
    k = m if mode == "complete" else _min(m, n)
    return [batch + (m, k), batch + (k, n)]


def _lstsq_shapes(a, b, rcond):
    for shape in (a, b):
        if len(shape) != 2 and not (shape is b and len(b) == 1):
            raise LinAlgError("%d-dimensional array given. Array must be two-dimensional"
                              % len(shape))
    (m, n), rows = a, b[0]
    if m is not None and rows is not None and m != rows:
        raise LinAlgError("Incompatible dimensions")
    x = (n,) + b[1:]
    # (The residuals are empty unless a has full rank n < m: the data decide.)
    return [x, (None,), (), (_min(m, n),)]


# --- their native Numba calls ---

def _computed_in(node):
    """The dtype NumPy computes a linalg call in: complex128 or float64."""
    return np.dtype(np.complex128 if any(v.dtype.kind == "c" for v in node.inputs)
                    else np.float64)


def _lapack_operands(node, ins):
    """The inputs of a native call on one matrix (and a vector or matrix `b`), in the
    dtype NumPy computes in; None where the call is not on one matrix."""
    if len(node.inputs[0].shape) != 2 or any(len(v.shape) not in (1, 2)
                                             for v in node.inputs[1:]):
        return None
    dtype = _computed_in(node)
    return [text if v.dtype == dtype else "%s.astype(%s)" % (text, nl.np_dtype(dtype))
            for v, text in zip(node.inputs, ins)]


def _as_output(node, text, index=0):
    """`text` (of the computation dtype) as output `index` is: a C-contiguous array or a
    scalar of its dtype."""
    out = node.outputs[index]
    if not out.shape:
        return "%s(%s)" % (nl.np_dtype(out.dtype), text)
    text = "np.ascontiguousarray(%s)" % text
    # (Native calls give float64 or complex128 values: NumPy's float32 results are its
    # float64 ones rounded.)
    if out.dtype not in (np.dtype(np.float64), np.dtype(np.complex128)):
        text = "%s.astype(%s)" % (text, nl.np_dtype(out.dtype))
    return text


def _native(call, real_only=False):
    """The native lowering computing `call` (a format of the operands' texts) on one
    matrix: one output, or a tuple of them (`result` unpacked as `value`)."""
    def lower(g, node, ins):
        operands = _lapack_operands(node, ins)
        if operands is None or (real_only and _computed_in(node).kind == "c"):
            return None
        text = call % tuple(operands)
        if len(node.outputs) == 1:
            return _as_output(node, text)
        parts = ", ".join(_as_output(node, "value[%d]" % i, i)
                          for i in range(len(node.outputs)))
        return ["value = %s" % text, "result = (%s,)" % parts]
    return lower


def _native_inv(g, node, ins):
    # (NumPy's inverse is LAPACK's solve of a x = I; Numba's np.linalg.inv inverts the LU
    # factors in place, which rounds differently.)
    operands = _lapack_operands(node, ins)
    if operands is None:
        return None
    a = operands[0]
    return _as_output(node, "np.linalg.solve(%s, np.identity(%s.shape[0], %s))"
                      % (a, a, nl.np_dtype(_computed_in(node))))


def _native_if(attribute, value, lowering):
    """`lowering` where the node's attribute `attribute` is `value`, else object mode."""
    def lower(g, node, ins):
        return lowering(g, node, ins) if node.attrs[attribute] == value else None
    return lower


_LAPACK = dict(numpy_on_error=True)

solve = defcall("solve", np.linalg.solve, _solve_shape,
                native=_native("np.linalg.solve(%s, %s)"), **_LAPACK)
inv = defcall("inv", np.linalg.inv, _square_shape, native=_native_inv, **_LAPACK)
det = defcall("det", np.linalg.det, _stack_shape,
              native=_native("np.linalg.det(%s)"), **_LAPACK)
slogdet = defcall("slogdet", np.linalg.slogdet, lambda a: [_stack_shape(a)] * 2, outputs=2,
                  native=_native("np.linalg.slogdet(%s)"), **_LAPACK)
# (Numba's complex Cholesky factor differs from NumPy's in the last bits; its upper one
# would be computed as the conjugate transpose: NumPy's own.)
cholesky = defcall("cholesky", np.linalg.cholesky, _square_shape, **_LAPACK,
                   native=_native_if("upper", False, _native("np.linalg.cholesky(%s)",
                                                            real_only=True)))
# (Numba reads the lower triangle only.)
eigvalsh = defcall("eigvalsh", np.linalg.eigvalsh, _eigvalsh_shape, **_LAPACK,
                   native=_native_if("UPLO", "L", _native("np.linalg.eigvalsh(%s)")))
eigh = defcall("eigh", np.linalg.eigh, _eigh_shapes, outputs=2)
svd = defcall("svd", np.linalg.svd, _svd_shapes, outputs=3)
svd_values = defcall("svd_values", np.linalg.svd, _svd_values_shape,
                     doc="np.linalg.svd(a, compute_uv=False)")
qr = defcall("qr", np.linalg.qr, _qr_shapes, outputs=2)
lstsq = defcall("lstsq", np.linalg.lstsq, _lstsq_shapes, outputs=4)


# --- derivative rules (runtime/autodiff.py; helpers in runtime/ops/gradients.py) -------------
# JAX's convention for complex values: the transpose of the linear map, no conjugates
# (a holomorphic function's cotangent is ct times its derivative). Cotangents of broadcast
# batch dims are summed back by d.unbroadcast.

from runtime.ops import gradients as d  # noqa: E402


def _matmul_cts(a, b, ct):
    """The cotangents of a and b for ct, the cotangent of a @ b (None for an int or bool
    operand)."""
    ra, rb = len(a.shape), len(b.shape)
    ga = gb = None
    if ra == 1 and rb == 1:          # (k,) @ (k,) -> ()
        if d.differentiable(a):
            ga = d.bind("multiply", ct, b)
        if d.differentiable(b):
            gb = d.bind("multiply", ct, a)
        return ga, gb
    if ra == 1:                      # (k,) @ (..., k, n) -> (..., n)
        if d.differentiable(a):
            column = d.bind("expand_dims", ct, axis=(len(ct.shape),))      # (..., n, 1)
            ga = d.bind("squeeze", d.bind("matmul", b, column), axis=(rb - 1,))
        if d.differentiable(b):
            gb = d.bind("multiply", d.bind("expand_dims", a, axis=(1,)),
                        d.bind("expand_dims", ct, axis=(len(ct.shape) - 1,)))   # (..., k, n)
    elif rb == 1:                    # (..., m, k) @ (k,) -> (..., m)
        column = d.bind("expand_dims", ct, axis=(len(ct.shape),))          # (..., m, 1)
        if d.differentiable(a):
            ga = d.bind("multiply", column, b)                              # (..., m, k)
        if d.differentiable(b):
            gb = d.bind("squeeze", d.bind("matmul", d.matrix_transpose(a), column),
                        axis=(ra - 1,))                                     # (..., k)
    else:
        if d.differentiable(a):
            ga = d.bind("matmul", ct, d.matrix_transpose(b))
        if d.differentiable(b):
            gb = d.bind("matmul", d.matrix_transpose(a), ct)
    return (None if ga is None else d.unbroadcast(ga, a),
            None if gb is None else d.unbroadcast(gb, b))


@get("matmul").def_vjp
def _matmul_vjp(inputs, outputs, cts):
    return list(_matmul_cts(*inputs, cts[0]))


@get("dot").def_vjp
def _dot_vjp(inputs, outputs, cts):
    """np.dot is a multiply when an operand is a scalar and a matmul when b is a vector
    or both are matrices; otherwise (b of rank 3 or more) a matmul of a as (-1, k)
    rows and b's k axis moved first, as (k, -1) columns."""
    a, b = inputs
    ct = cts[0]
    if a.shape == () or b.shape == ():
        return [d.unbroadcast(d.bind("multiply", ct, b), a),
                d.unbroadcast(d.bind("multiply", ct, a), b)]
    if len(b.shape) == 1 or (len(b.shape) == 2 and len(a.shape) <= 2):
        return list(_matmul_cts(a, b, ct))
    k = d.dim(b, -2)
    rb = len(b.shape)
    rows = d.reshape(a, (-1, k))
    moved = d.bind("transpose", b, axes=(rb - 2,) + tuple(range(rb - 2)) + (rb - 1,))
    columns = d.reshape(moved, (k, -1))
    flat_ct = d.reshape(ct, (d.dim(rows, 0), -1))
    ga = d.bind("matmul", flat_ct, d.matrix_transpose(columns))
    gb = d.bind("matmul", d.matrix_transpose(rows), flat_ct)
    inverse = tuple(int(i) for i in np.argsort((rb - 2,) + tuple(range(rb - 2)) + (rb - 1,)))
    return [d.reshape_to(ga, a),
            d.bind("transpose", d.reshape_to(gb, moved), axes=inverse)]


@get("outer").def_vjp
def _outer_vjp(inputs, outputs, cts):
    """np.outer flattens its operands: ct @ b and a @ ct, back in their shapes."""
    a, b = inputs
    ct = cts[0]
    return [d.reshape_to(d.bind("matmul", ct, d.bind("ravel", b)), a),
            d.reshape_to(d.bind("matmul", d.bind("ravel", a), ct), b)]


# np.linalg (the standard matrix-calculus rules; each written with ops that have rules, so
# they differentiate again). A singular matrix raises NumPy's LinAlgError in the backward
# pass too: det's and slogdet's rules invert the matrix.

def _inverse_transpose(a):
    return d.matrix_transpose(d.bind("inv", a))


def _as_matrices(scale, a):
    """A scale per matrix of the stack `a` (shape a.shape[:-2]), as (..., 1, 1)."""
    rank = len(a.shape)
    return d.bind("expand_dims", scale, axis=(rank - 2, rank - 1))


@get("inv").def_vjp
def _inv_vjp(inputs, outputs, cts):
    """d(A^-1) = -A^-1 dA A^-1, so the cotangent of A is -Y^T ct Y^T (Y = A^-1)."""
    yt = d.matrix_transpose(outputs[0])
    return [d.negate(d.bind("matmul", d.bind("matmul", yt, cts[0]), yt))]


@get("solve").def_vjp
def _solve_vjp(inputs, outputs, cts):
    """x = A^-1 b: b's cotangent is A^-T ct, A's is minus that times x^T (a vector b, one
    column; summed over the batch dims b was broadcast along)."""
    a, b = inputs
    x, ct = outputs[0], cts[0]
    vector = len(b.shape) == 1
    if vector:
        x = d.bind("expand_dims", x, axis=(len(x.shape),))
        ct = d.bind("expand_dims", ct, axis=(len(ct.shape),))
    gb = d.bind("solve", d.matrix_transpose(a), ct)
    ga = d.negate(d.bind("matmul", gb, d.matrix_transpose(x)))
    if vector:
        gb = d.bind("squeeze", gb, axis=(len(gb.shape) - 1,))
    return [d.unbroadcast(ga, a), d.unbroadcast(gb, b)]


@get("det").def_vjp
def _det_vjp(inputs, outputs, cts):
    """d det(A) / dA = det(A) A^-T (Jacobi's formula)."""
    a, = inputs
    scale = d.bind("multiply", cts[0], outputs[0])
    return [d.bind("multiply", _as_matrices(scale, a), _inverse_transpose(a))]


@get("slogdet").def_vjp
def _slogdet_vjp(inputs, outputs, cts):
    """log|det A| has derivative A^-T. The sign of a real matrix is piecewise constant (no
    cotangent); a complex one's (det / |det|) turns with the phase of det: in JAX's
    convention its cotangent ct_s gives i Im(ct_s sign) A^-T."""
    a, = inputs
    ct_sign, ct_log = cts
    scale = ct_log
    if a.dtype.kind == "c" and ct_sign is not None:
        turn = d.bind("multiply", ct_sign, outputs[0])
        turn = d.bind("subtract", turn, d.bind("real", turn))
        scale = turn if scale is None else d.bind("add", scale, turn)
    if scale is None:
        return [None]
    return [d.bind("multiply", _as_matrices(scale, a), _inverse_transpose(a))]
