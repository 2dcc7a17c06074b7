"""Statistics: quantiles, averages, variances, cumulative sums, nan-reductions, closeness,
the reductions' where= and initial=."""

import numpy as np

from tools.numpy_table import FLOATS, INTS, case, each, rand


def nans(*shape, dtype=np.float64, seed=0, all_nan_row=False):
    """Standard normal values with a NaN in every third place (a whole first row of NaNs
    with `all_nan_row`)."""
    x = rand(*shape, dtype=dtype, seed=seed)
    x.flat[::3] = np.nan
    if all_nan_row:
        x[0] = np.nan
    return x


def each_nans(shapes, dtypes=FLOATS):
    return [(nans(*shape, dtype=dtype),) for shape in shapes for dtype in dtypes]


_MASK = rand(3, 4, dtype=np.bool_, seed=5)
_SHAPES = [(7,), (3, 4), (2, 3, 4)]
_SUMMED = (np.float64, np.float32, np.int64, np.int32, np.bool_)

CASES = [
    # --- quantiles (NumPy's own function when the graph runs)
    case(np.median, lambda x: np.median(x), *each(_SHAPES + [(8,)], FLOATS + INTS),
         (nans(6),)),
    case(np.median, lambda x: np.median(x, axis=0), *each([(3, 4), (2, 3, 4)], FLOATS + INTS),
         name="np.median axis=0"),
    case(np.median, lambda x: np.median(x, axis=(0, 2), keepdims=True), *each([(2, 3, 4)]),
         name="np.median axis=(0, 2) keepdims"),
    case(np.median, lambda x: np.median(x, axis=2), rand(3, 4), name="np.median bad axis"),
    case(np.percentile, lambda x: np.percentile(x, 30), *each(_SHAPES, FLOATS + INTS)),
    case(np.percentile, lambda x: np.percentile(x, [10, 50, 95.5], axis=1, keepdims=True),
         *each([(3, 4), (2, 3, 4)]), name="np.percentile list axis=1 keepdims"),
    case(np.percentile, lambda x: np.percentile(x, [25, 75], method="nearest"),
         *each([(7,), (3, 4)], FLOATS + INTS), name="np.percentile nearest"),
    case(np.percentile, lambda x: np.percentile(x, 101), rand(5), name="np.percentile q>100"),
    case(np.quantile, lambda x: np.quantile(x, 0.3), *each(_SHAPES, FLOATS + INTS)),
    case(np.quantile, lambda x, q: np.quantile(x, q, axis=0), (rand(5, 3), np.array([0.1, 0.9])),
         (rand(5, 3, dtype=np.float32), np.array([0.5], dtype=np.float32)),
         name="np.quantile array q"),
    case(np.quantile, lambda x: np.quantile(x, [0.2, 0.5], axis=-1, method="midpoint"),
         *each([(3, 4)], FLOATS + INTS), name="np.quantile midpoint"),
    case(np.quantile, lambda x: np.quantile(x, (0.25, 0.5), method="lower"),
         *each([(9,)], FLOATS), name="np.quantile lower"),
    case(np.quantile, lambda x: np.quantile(x, 0.5, method="bogus"), rand(4),
         name="np.quantile bad method"),
    case(np.nanmedian, lambda x: np.nanmedian(x), *each_nans([(7,), (3, 4)]), *each([(5,)], INTS)),
    case(np.nanmedian, lambda x: np.nanmedian(x, axis=1), nans(3, 4, all_nan_row=True),
         name="np.nanmedian all-NaN row"),
    case(np.nanpercentile, lambda x: np.nanpercentile(x, [5, 50], axis=0), *each_nans([(4, 3)])),
    case(np.nanquantile, lambda x: np.nanquantile(x, 0.75), *each_nans([(7,), (3, 4)])),
    # --- average
    case(np.average, lambda x: np.average(x), *each(_SHAPES, FLOATS + INTS)),
    case(np.average, lambda x: np.average(x, axis=1, keepdims=True), *each([(3, 4)]),
         name="np.average axis keepdims"),
    case(np.average, lambda x, w: np.average(x, weights=w), *each([(6,), (3, 4)], count=2),
         (rand(5, dtype=np.int64), rand(5, dtype=np.float32)),
         name="np.average weights"),
    case(np.average, lambda x, w: np.average(x, axis=1, weights=w, returned=True),
         (rand(3, 4), np.arange(1.0, 5.0)), (rand(3, 4, dtype=np.int32), np.arange(1, 5)),
         name="np.average weights along axis returned"),
    case(np.average, lambda x, w: np.average(x, axis=(0, 2), weights=w, keepdims=True),
         (rand(2, 3, 4), rand(2, 4) ** 2), name="np.average weights along axes", rtol=1e-12),
    case(np.average, lambda x: np.average(x, axis=0, returned=True), rand(3, 4),
         name="np.average returned"),
    case(np.average, lambda x, w: np.average(x, weights=w), (rand(3, 4), np.ones(4)),
         name="np.average weights without axis"),
    case(np.average, lambda x, w: np.average(x, axis=0, weights=w), (rand(3, 4), np.ones(4)),
         name="np.average weights of the wrong axis"),
    case(np.average, lambda x, w: np.average(x, weights=w), (rand(4), np.array([1.0, -1.0, 2.0, -2.0])),
         name="np.average weights summing to zero"),
    # --- variances and cumulative sums
    case(np.var, lambda x: np.var(x, ddof=1), *each(_SHAPES, FLOATS + INTS)),
    case(np.var, lambda x: np.var(x, axis=0, ddof=2, keepdims=True), *each([(5, 3)], FLOATS + INTS),
         name="np.var axis ddof keepdims", rtol=1e-6),
    case(np.var, lambda x: np.var(x, dtype=np.float32, axis=-1), *each([(3, 4)]),
         name="np.var dtype", rtol=1e-6),
    case(np.var, lambda x, m: np.var(x, where=m, axis=1, ddof=1), *[(rand(3, 4, dtype=d), _MASK)
                                                               for d in FLOATS + INTS],
         name="np.var where"),
    case(np.std, lambda x: np.std(x, ddof=1), *each(_SHAPES, FLOATS + INTS)),
    case(np.std, lambda x: np.std(x, axis=(0, 1), keepdims=True), *each([(2, 3, 4)]),
         name="np.std axes keepdims", rtol=1e-6),
    case(np.std, lambda x, m: np.std(x, where=m), (rand(3, 4), _MASK), name="np.std where"),
    case(np.std, lambda x: np.std(x, axis=3), rand(3, 4), name="np.std bad axis"),
    case(np.cumsum, lambda x: np.cumsum(x), *each(_SHAPES, _SUMMED)),
    case(np.cumsum, lambda x: np.cumsum(x, axis=1), *each([(3, 4), (2, 3, 4)], _SUMMED),
         name="np.cumsum axis=1"),
    case(np.cumsum, lambda x: np.cumsum(x, axis=0, dtype=np.float32), *each([(3, 4)], FLOATS + INTS),
         name="np.cumsum dtype"),
    case(np.cumprod, lambda x: np.cumprod(x), *each(_SHAPES, _SUMMED)),
    case(np.cumprod, lambda x: np.cumprod(x, axis=0), *each([(3, 4)], _SUMMED),
         name="np.cumprod axis=0"),
    case(np.cumprod, lambda x: x.cumprod(axis=-1, dtype=np.int64), *each([(3, 4)], INTS),
         name="x.cumprod dtype"),
    # --- nan-reductions
    case(np.nansum, lambda x: np.nansum(x), *each_nans(_SHAPES), *each([(3, 4)], INTS)),
    case(np.nansum, lambda x: np.nansum(x, axis=0, keepdims=True), *each_nans([(3, 4)]),
         nans(3, 4, all_nan_row=True), name="np.nansum axis keepdims"),
    case(np.nanprod, lambda x: np.nanprod(x, axis=-1), *each_nans([(7,), (3, 4)])),
    case(np.nanmean, lambda x: np.nanmean(x), *each_nans(_SHAPES), *each([(5,)], INTS)),
    case(np.nanmean, lambda x: np.nanmean(x, axis=1), nans(3, 4, all_nan_row=True),
         nans(3, 4, dtype=np.float32), name="np.nanmean all-NaN row"),
    case(np.nanmean, lambda x: np.nanmean(x, dtype=np.int64), nans(4), name="np.nanmean int dtype"),
    case(np.nanvar, lambda x: np.nanvar(x), *each_nans(_SHAPES), *each([(5,)], INTS)),
    case(np.nanvar, lambda x: np.nanvar(x, axis=1, ddof=1, keepdims=True),
         nans(3, 4, all_nan_row=True), nans(3, 4, dtype=np.float32), name="np.nanvar axis ddof"),
    case(np.nanstd, lambda x: np.nanstd(x, axis=0), *each_nans([(4, 3)])),
    case(np.nanstd, lambda x: np.nanstd(x, ddof=5), nans(6), name="np.nanstd dof <= 0"),
    case(np.nanmax, lambda x: np.nanmax(x), *each_nans(_SHAPES), *each([(5,)], INTS)),
    case(np.nanmax, lambda x: np.nanmax(x, axis=1), nans(3, 4, all_nan_row=True),
         name="np.nanmax all-NaN row"),
    case(np.nanmin, lambda x: np.nanmin(x, axis=0, keepdims=True), *each_nans([(3, 4)]),
         *each([(3, 4)], INTS)),
    case(np.nanargmax, lambda x: np.nanargmax(x), *each_nans([(7,), (3, 4)]), *each([(5,)], INTS)),
    case(np.nanargmax, lambda x: np.nanargmax(x, axis=1), nans(3, 4, all_nan_row=True),
         name="np.nanargmax all-NaN row"),
    case(np.nanargmin, lambda x: np.nanargmin(x, axis=0), *each_nans([(3, 4)])),
    case(np.nanargmin, lambda x: np.nanargmin(x), np.full(3, np.nan), name="np.nanargmin all NaN"),
    case(np.nancumsum, lambda x: np.nancumsum(x), *each_nans([(7,), (3, 4)]), *each([(5,)], INTS)),
    case(np.nancumsum, lambda x: np.nancumsum(x, axis=1), *each_nans([(3, 4)]),
         name="np.nancumsum axis=1"),
    case(np.nancumprod, lambda x: np.nancumprod(x, axis=0), *each_nans([(3, 4)])),
    case(np.ptp, lambda x: np.ptp(x), *each(_SHAPES, FLOATS + INTS)),
    case(np.ptp, lambda x: np.ptp(x, axis=0, keepdims=True), *each([(3, 4)], FLOATS + INTS),
         name="np.ptp axis keepdims"),
    case(np.ptp, lambda x: np.ptp(x), rand(4, dtype=np.bool_), name="np.ptp bool"),
    # --- closeness
    case(np.isclose, lambda x, y: np.isclose(x, y), *each([(5,), (3, 4)], FLOATS, count=2),
         (rand(4), rand(4) + 1e-9)),
    case(np.isclose, lambda x, y: np.isclose(x, y, rtol=0.5, atol=0.1, equal_nan=True),
         (nans(6), nans(6) * 1.2), (rand(3, 4, dtype=np.int64), rand(4, dtype=np.int32)),
         name="np.isclose tolerances equal_nan"),
    case(np.isclose, lambda x: np.isclose(x, 1), rand(5, dtype=np.float32),
         name="np.isclose Python int"),
    case(np.allclose, lambda x, y: np.allclose(x, y), (rand(5), rand(5) + 1e-9), (rand(5), rand(5)),
         *each([(3, 4)], FLOATS, count=2)),
    case(np.allclose, lambda x, y: np.allclose(x, y, equal_nan=True), (nans(4), nans(4)),
         name="np.allclose equal_nan"),
    case(np.array_equal, lambda x, y: np.array_equal(x, y), (rand(5), rand(5)),
         (rand(3, 4), rand(3, 4)), (rand(4), rand(5)), (rand(4), rand(2, 2)),
         (rand(3, dtype=np.int64), rand(3, dtype=np.int64))),
    case(np.array_equal, lambda x: np.array_equal(x, x.copy(), equal_nan=True), nans(5),
         rand(4, dtype=np.int32), name="np.array_equal equal_nan"),
    # --- where= and initial=
    case(np.sum, lambda x, m: np.sum(x, where=m), *[(rand(3, 4, dtype=d), _MASK) for d in _SUMMED],
         (rand(3, 40), rand(3, 40, dtype=np.bool_)), name="np.sum where"),
    case(np.sum, lambda x, m: np.sum(x, axis=0, where=m, keepdims=True, initial=1.5),
         (rand(3, 4), _MASK), (rand(3, 4, dtype=np.float32), _MASK[0]),
         name="np.sum where initial axis"),
    case(np.sum, lambda x: np.sum(x, initial=10), *each([(7,), (3, 4)], _SUMMED),
         name="np.sum initial"),
    case(np.sum, lambda x: x.sum(axis=1, dtype=np.float32), *each([(3, 4)], FLOATS + INTS),
         name="x.sum dtype", rtol=1e-6),
    case(np.prod, lambda x, m: np.prod(x, axis=1, where=m), (rand(3, 4), _MASK),
         (rand(3, 4, dtype=np.int32), _MASK), name="np.prod where"),
    case(np.mean, lambda x, m: np.mean(x, axis=1, where=m), *[(rand(3, 4, dtype=d), _MASK)
                                                              for d in FLOATS + INTS],
         (rand(2, 4), np.zeros((2, 4), bool)), name="np.mean where"),
    case(np.mean, lambda x: np.mean(x, axis=(0, 1), keepdims=True), *each([(2, 3, 4)]),
         rtol=1e-6),
    case(np.max, lambda x, m: np.max(x, where=m, initial=-1.0), *[(rand(3, 4, dtype=d), _MASK)
                                                                  for d in FLOATS + INTS],
         name="np.max where initial"),
    case(np.max, lambda x, m: np.max(x, where=m), (rand(3, 4), _MASK),
         name="np.max where without initial"),
    case(np.max, lambda x: np.max(x, axis=0, initial=0), *each([(3, 4)], FLOATS + INTS),
         name="np.max initial"),
    case(np.min, lambda x, m: np.min(x, axis=1, where=m, initial=5), (rand(3, 4), _MASK),
         (rand(3, 4, dtype=np.int64), _MASK), name="np.min where initial"),
    case(np.min, lambda x: np.min(x, axis=-1, keepdims=True), *each([(3, 4)], FLOATS + INTS)),
    case(np.any, lambda x, m: np.any(x > 0.5, axis=0, where=m), (rand(3, 4), _MASK),
         name="np.any where"),
    case(np.all, lambda x, m: np.all(x > -1.5, where=m), (rand(3, 4), _MASK),
         name="np.all where"),
    case(np.amax, lambda x, m: np.amax(x, axis=0, where=m, initial=-9), (rand(3, 4), _MASK)),
    case(np.amin, lambda x: np.amin(x, axis=1, keepdims=True), *each([(3, 4)], FLOATS + INTS)),
    case(np.prod, lambda x: np.prod(x, axis=0), *each([(3, 4)], FLOATS + INTS)),
    case(np.any, lambda x: np.any(x, axis=1), *each([(3, 4)], FLOATS + INTS)),
    case(np.all, lambda x: np.all(x), *each([(3, 4)], FLOATS + INTS)),
    case(np.argmax, lambda x: np.argmax(x, axis=0), *each([(3, 4)], FLOATS + INTS)),
    case(np.argmin, lambda x: np.argmin(x), *each([(3, 4)], FLOATS + INTS)),
]

CASES += [
    case(np.trapezoid, lambda y: np.trapezoid(y), *each([(5,), (3, 4)], FLOATS + INTS)),
    case(np.trapezoid, lambda y, x: np.trapezoid(y, x), *each([(6,)], FLOATS, count=2),
         (rand(3, 6), rand(6)), (rand(3, 6), rand(3, 6)), name="np.trapezoid x"),
    case(np.trapezoid, lambda y: np.trapezoid(y, dx=0.5, axis=0), rand(4, 3),
         name="np.trapezoid dx axis"),
    case(np.trapezoid, lambda y: np.trapezoid(y, axis=2), rand(4, 3),
         name="np.trapezoid bad axis"),
]
