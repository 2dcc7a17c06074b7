"""Indexing and item assignment on symbolic tensors, checked against NumPy."""

import numpy as np
import pytest

import runtime as rt
from equivalence import run_both

A = np.arange(60.0).reshape(3, 4, 5)
IDX = np.array([2, 0, 1], dtype=np.int64)

# (description, index builder taking the array of integer indices)
INDEXES = [
    ("int", lambda i: 1),
    ("negative int", lambda i: -1),
    ("two ints", lambda i: (1, 2)),
    ("three ints", lambda i: (2, 3, 4)),
    ("slice", lambda i: slice(1, None)),
    ("slices with steps", lambda i: (slice(None, None, -1), slice(1, 4, 2))),
    ("out of range slice", lambda i: slice(2, 100)),
    ("None", lambda i: (None, 1)),
    ("ellipsis", lambda i: (Ellipsis, 2)),
    ("ellipsis middle", lambda i: (0, Ellipsis, None, 1)),
    ("int array", lambda i: i),
    ("int array second axis", lambda i: (slice(None), i)),
    ("int and array adjacent", lambda i: (slice(None), 1, i)),
    ("arrays separated", lambda i: (i, slice(None), i)),
    ("int array list", lambda i: [0, 2]),
    ("2-d int array", lambda i: (i.reshape(1, 3),)),
    ("mask first axis", lambda i: np.array([True, False, True])),
    ("mask two axes", lambda i: np.arange(12).reshape(3, 4) % 3 == 0),
]


@pytest.mark.parametrize("name,make", INDEXES, ids=[n for n, _ in INDEXES])
def test_get_item_matches_numpy_and_infers_the_shape(both, name, make):
    index = make(IDX)
    shapes = []

    def f(a, i):
        result = a[make(i)]
        if rt.is_tensor(result):
            shapes.append(result.static_shape)
        return result

    both(f, A, IDX)
    expected = A[index].shape
    spec = [rt.TensorSpec(A.shape, A.dtype), rt.TensorSpec(IDX.shape, IDX.dtype)]
    shapes.clear()
    got = rt.function(f, input_signature=spec)(A, IDX)
    np.testing.assert_array_equal(got, A[index])
    static = shapes[0]
    assert len(static) == len(expected)
    for s, e in zip(static, expected):
        assert s is None or s == e, (static, expected)


def test_tensor_indices_and_slice_bounds(both):
    def f(a, i, j):
        return a[i], a[i, j], a[i:, j], a[:i, ::j], a[i:j + 2], a[..., j], a[i][j]
    both(f, A, np.int64(1), np.int64(2))


def test_boolean_mask_from_a_comparison(both):
    both(lambda x: x[x > 30.0], A)
    both(lambda x: x[0][x[0] % 2 == 0], A)


def test_out_of_range_read_is_an_index_error_and_invalid_argument():
    f = rt.function(lambda a, i: a[i])
    with pytest.raises(IndexError) as info:
        f(A, np.int64(7))
    assert isinstance(info.value, rt.errors.InvalidArgumentError)
    assert "out of bounds" in str(info.value)
    assert "get_item" in str(info.value) and "test_rt_indexing.py" in str(info.value)


def test_static_out_of_range_index_raises_while_tracing():
    spec = [rt.TensorSpec((3,), np.float64)]
    with pytest.raises(IndexError):
        rt.function(lambda a: a[5], input_signature=spec)(np.zeros(3))


def test_too_many_indices(both):
    both(lambda a: a[0, 0, 0, 0], A)


# --- item assignment ------------------------------------------------------------------------

def test_set_item_forms(both):
    def f(a, i, j):
        out = np.zeros_like(a)
        out[i, j] = 7.0
        out[0] = a[1]
        out[..., 0] = -1
        out[a > 50] = 0
        out[:, i] += 1
        out[2, 1:3, j] = a[0, 0, :2]
        out[[0, 2], 0, 0] = 5
        return out
    both(f, A, np.int64(1), np.int64(2))


def test_set_item_on_an_argument_mutates_the_callers_array(both):
    def f(a, i):
        a[i] = 0.0
        a[0, 0] += 100
    both(f, A, np.int64(2))
    a = A.copy()
    rt.function(f)(a, np.int64(2))
    assert (a[2] == 0).all() and a[0, 0, 0] == 100


def test_set_item_is_seen_through_python_aliases(both):
    def f(a):
        b = a
        b[0] = -1.0
        holder = {"array": a}
        holder["array"][1] = -2.0
        return a.sum()
    both(f, np.arange(4.0))


def test_old_version_read_after_the_write_keeps_its_value(both):
    def f(a):
        before = a + 0
        row = a[0]
        a[0] = 100.0
        return before, row, a
    both(f, np.arange(6.0).reshape(2, 3)[:, :1].copy())


def test_set_item_casts_like_numpy(both):
    def f(a, v):
        a[0] = v
        a[1] = 2.7
        return a
    both(f, np.arange(3), np.float64(-3.9))
    both(f, np.arange(3, dtype=np.uint8), np.float64(5.5))


def test_set_item_with_python_int_out_of_range_raises_like_numpy(both):
    def f(a):
        a[0] = 300
        return a
    both(f, np.zeros(3, dtype=np.uint8))


def test_set_item_shape_mismatch_raises_like_numpy(both):
    def f(a):
        a[0] = np.ones(7)
        return a
    both(f, np.zeros((2, 3)))


def test_in_place_operators_keep_dtype_and_mutate(both):
    def f(a, b):
        c = a
        c += 1
        a *= 2
        b -= a[0]
        return a, b, c
    both(f, np.arange(4.0), np.arange(3.0))


def test_in_place_operator_casting_error_matches_numpy(both):
    def f(a):
        a += 1.5
        return a
    both(f, np.arange(3))


def test_scalar_in_place_operators_rebind_only_the_name(both):
    def f(a):
        x = a[0]
        y = x
        x += 1
        return x, y
    both(f, np.arange(3.0))


@pytest.mark.parametrize("backend", ["numpy", "numba", "auto"])
def test_a_0d_array_argument_is_mutated_through_its_aliases_a_numpy_scalar_is_not(backend):
    def f(k, x):
        m = k
        m -= 1             # a 0-d array: k too; a NumPy scalar: m only
        m *= x[0]
        view = k[...]      # an Ellipsis: a 0-d view of k (a 0-d array of a NumPy scalar)
        view += 10
        return k, m, view, k + 0   # k + 0: a NumPy scalar either way
    for k in (np.array(5.0), np.float64(5.0), np.array(5)):
        run_both(f, k, np.array([3.0]) if k.dtype.kind == "f" else np.array([3]),
                 backend=backend)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_0d_arrays_numpy_functions_make_are_written_through_their_aliases(backend):
    # (Fuzzer seed 2035: np.where(t, t, 0) is a 0-d array, so `acc += base` in a loop
    # doubles base, which acc is.)
    def f(t, x):
        base = np.where(t > 0, t, 0.5)
        acc = base
        for i in range(2):
            acc += base
        copied = np.copy(t)
        alias = copied
        alias *= 2.0
        zeros = np.zeros_like(t)
        other = zeros
        other += 3.0
        kept = t.copy()      # the method keeps a NumPy scalar a scalar
        kept += 1.0
        return base, copied, zeros, kept, t
    for t in (np.float64(-0.75), np.float64(2.0), np.array(1.5)):
        run_both(f, t, np.arange(2.0), backend=backend)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_0d_array_argument_returned_or_written_is_the_callers_array(backend):
    def written(k, v):
        k[()] = v
        return k
    k = np.array(1.0)
    result = rt.function(written, backend=backend)(k, np.float64(4.0))
    assert result is k and k[()] == 4.0
    k = np.array(1.0)
    assert rt.function(lambda k: k, backend=backend)(k) is k
    assert type(rt.function(lambda k: k, backend=backend)(np.float64(1.0))) is np.float64


def test_counter_increment_pattern(both):
    def f(values, counts):
        for k in range(values.shape[0]) if not rt.is_tensor(values) else range(4):
            counts[values[k]] += 1
        return counts
    both(f, np.array([0, 2, 2, 1]), np.zeros(3, dtype=np.int64))


def test_writes_through_views_reach_the_base(both):
    def f(a, i):
        a[i][1] = -1.0            # chained indexing writes a
        row = a[0]
        row[2] = -2.0             # a view of a row
        row += 100                # in-place operator on a view
        a[1][1:][0] += 5          # a view of a view
        block = a[:, 1:]
        block[block > 50] = 0.0   # masked write through a view
        return a, row
    both(f, np.arange(12.0).reshape(3, 4), np.int64(2))


def test_views_see_base_writes_made_before_their_own_writes(both):
    def f(a):
        row = a[0]
        a[0, 0] = 7.0
        row[1] = 8.0              # re-reads the base: the 7 stays
        return a, row
    both(f, np.zeros((2, 3)))


def test_advanced_indexing_makes_copies_like_numpy(both):
    def f(a, idx):
        picked = a[idx]
        picked[0] = -1.0          # not a view: a is unchanged, as in NumPy
        masked = a[a > 2]
        masked[0] = -5.0
        return a, picked, masked
    both(f, np.arange(6.0), np.array([1, 3]))


def test_writes_through_views_inside_a_loop(both):
    def f(m, n):
        def body(i):
            m[i][0] = i * 10.0
            return i + 1
        rt.while_loop(lambda i: i < n, body, (0,))
        return m
    both(f, np.ones((3, 2)), np.int64(3))


def test_view_reread_inside_a_branch_stays_usable_after_it(both):
    def f(a, flag):
        row = a[0]
        a[0, 1] = 5.0
        doubled = rt.cond(flag, lambda: row * 2, lambda: row * 3) if rt.is_tensor(flag) else (
            row * 2 if flag else row * 3)
        return doubled, row + 1
    both(f, np.zeros((2, 3)), np.bool_(True))
