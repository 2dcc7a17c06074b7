"""Numeric kernels written as users write them (vectorised NumPy inside Python loops, in the
style of npbench, the Numba and Pythran benchmark sets and the scipy-lecture notes), run as
plain Python and through ag.function on each backend: which run unchanged, which are refused
(and why), and whether any gives another result than Python (that must never happen).

    python tools/numpy_kernels.py                       # every kernel on numpy, numba, auto
    python tools/numpy_kernels.py --backends numpy      # only these backends
    python tools/numpy_kernels.py jacobi_2d softmax     # only these kernels
    python tools/numpy_kernels.py --json                # the results as JSON

A kernel's status on a backend: `ok` (the same result as plain Python: values, dtypes,
Python types, raised exception types, arguments after the call; rtol 1e-12 where Numba
computes natively), `refused: <first line>` (the graph refuses the code clearly: TypeError,
NotImplementedError, the numba backend naming an op it cannot compile), `MISMATCH: <why>`,
`error: <type: first line>` (anything else: a crash in runtime code), or `timeout` (the
numba compile took more than --timeout seconds).
"""

import argparse
import copy
import json
import os
import signal
import sys
import time
import warnings

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import autograph as ag  # noqa: E402
from tools import workloads  # noqa: E402
from tools.numpy_table import mismatch  # noqa: E402

KERNELS = {}   # name -> Kernel
BACKENDS = ("numpy", "numba", "auto")
NUMBA_RTOL = 1e-12       # (Numba computes natively: its libm, its order of summation)
NUMBA_RTOL_F32 = 1e-5    # (the same, in float32: a few units in the last place)


class Kernel:
    def __init__(self, function, inputs, name, float32=False, reordered=False):
        self.function = function
        self.inputs = inputs
        self.name = name
        self.float32 = float32
        self.reordered = reordered   # (every backend sums in another order than NumPy)


def kernel(inputs, float32=False, reordered=False):
    """Registers the decorated function as a kernel; `inputs()` gives its arguments (with
    `float32`, also as the kernel <name>_f32 on its float64 arrays made float32: Python
    floats next to them must keep them float32, NEP 50)."""
    def register(function):
        KERNELS[function.__name__] = Kernel(function, inputs, function.__name__,
                                            reordered=reordered)
        if float32:
            name = function.__name__ + "_f32"
            KERNELS[name] = Kernel(function, lambda: tuple(_as_float32(a) for a in inputs()),
                                   name, float32=True)
        return function
    return register


def _as_float32(a):
    return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- stencils -------------------------------------------------------------------------------

@kernel(lambda: (50, _rng().random(64), _rng(1).random(64)), float32=True)
def jacobi_1d(tsteps, A, B):
    """npbench jacobi_1d: two arrays updated in turn from three-point averages."""
    for t in range(1, tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    return A


@kernel(lambda: (20, _rng().random((32, 32)), _rng(1).random((32, 32))), float32=True)
def jacobi_2d(tsteps, A, B):
    """npbench jacobi_2d: five-point averages, in place, alternating between A and B."""
    for t in range(1, tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1]
                               + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1]
                               + B[:-2, 1:-1])


@kernel(lambda: (np.sin(np.linspace(0.0, np.pi, 101)), 0.4, 200), float32=True)
def heat_1d(u, alpha, steps):
    """The explicit heat equation, fixed ends: a new array each step."""
    for _ in range(steps):
        u = u.copy()
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


@kernel(lambda: (_rng().random((40, 50)), 0.1))
def laplacian_5pt(z, h):
    """The five-point Laplacian of the interior, by slices."""
    lap = np.zeros_like(z)
    lap[1:-1, 1:-1] = (z[:-2, 1:-1] + z[2:, 1:-1] + z[1:-1, :-2] + z[1:-1, 2:]
                       - 4.0 * z[1:-1, 1:-1]) / h ** 2
    return lap


@kernel(lambda: (_rng().random((24, 24)), 10))
def diffusion_roll(u, steps):
    """Periodic diffusion with np.roll."""
    for _ in range(steps):
        u = u + 0.1 * (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
                       + np.roll(u, -1, axis=1) - 4 * u)
    return u


# --- distances ------------------------------------------------------------------------------

@kernel(lambda: (_rng().random((30, 3)), _rng(1).random((20, 3))), float32=True)
def pairwise_euclidean(X, Y):
    """Every distance by broadcasting."""
    diff = X[:, None, :] - Y[None, :, :]
    return np.sqrt(np.sum(diff ** 2, axis=-1))


@kernel(lambda: (_rng().random((30, 8)), _rng(1).random((20, 8))))
def cosine_similarity(X, Y):
    nx = np.linalg.norm(X, axis=1)
    ny = np.linalg.norm(Y, axis=1)
    return (X @ Y.T) / np.outer(nx, ny)


@kernel(lambda: (_rng().random((30, 8)), _rng(1).random((20, 8))))
def squared_euclidean_dot(X, Y):
    """|x|^2 - 2 x.y + |y|^2, clipped at zero."""
    d = (X * X).sum(axis=1)[:, None] - 2.0 * np.dot(X, Y.T) + (Y * Y).sum(axis=1)[None, :]
    return np.maximum(d, 0.0)


@kernel(lambda: (_rng().uniform(-1.5, 1.5, 50), _rng(1).uniform(-3, 3, 50),
                 _rng(2).uniform(-1.5, 1.5, 50), _rng(3).uniform(-3, 3, 50)))
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    """npbench arc_distance: great-circle distances."""
    temp = (np.sin((theta_2 - theta_1) / 2) ** 2
            + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2)
    return 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))


# --- small simulations ----------------------------------------------------------------------

@kernel(lambda: (_rng().standard_normal((16, 3)), _rng(1).standard_normal((16, 3)),
                 _rng(2).random(16) + 0.5, 0.01, 10), float32=True)
def nbody(pos, vel, mass, dt, steps):
    """npbench nbody: accelerations by broadcasting, leapfrog steps."""
    softening = 0.1
    for _ in range(steps):
        x = pos[:, 0:1]
        y = pos[:, 1:2]
        z = pos[:, 2:3]
        dx = x.T - x
        dy = y.T - y
        dz = z.T - z
        inv_r3 = (dx ** 2 + dy ** 2 + dz ** 2 + softening ** 2) ** (-1.5)
        ax = (dx * inv_r3) @ mass
        ay = (dy * inv_r3) @ mass
        az = (dz * inv_r3) @ mass
        vel += dt * np.stack((ax, ay, az), axis=1)
        pos += dt * vel
    return pos, vel


@kernel(lambda: (10.0, 5.0, 0.01, 500))
def lotka_volterra(prey, predators, dt, steps):
    """Euler steps of the Lotka-Volterra equations, the trajectory in an array."""
    a, b, c, d = 1.1, 0.4, 0.4, 0.1
    out = np.empty((steps, 2))
    for i in range(steps):
        dprey = a * prey - b * prey * predators
        dpred = d * prey * predators - c * predators
        prey = prey + dt * dprey
        predators = predators + dt * dpred
        out[i, 0] = prey
        out[i, 1] = predators
    return out


@kernel(lambda: (np.random.default_rng(7), 1000))
def random_walk(rng, n):
    """A random walk from a Generator's draws, and where it first leaves [-10, 10]."""
    steps = rng.choice(np.array([-1, 1]), size=n)
    walk = np.cumsum(steps)
    far = np.abs(walk) > 10
    return walk, np.argmax(far) if far.any() else -1


@kernel(lambda: (np.random.default_rng(3), 10000))
def monte_carlo_pi(rng, n):
    x = rng.random(n)
    y = rng.random(n)
    return 4.0 * np.sum(x * x + y * y < 1.0) / n


@kernel(lambda: ((_rng().random((32, 32)) < 0.3).astype(np.int64), 10))
def game_of_life_roll(Z, steps):
    """Conway's life on a torus: neighbours by np.roll."""
    for _ in range(steps):
        n = sum(np.roll(np.roll(Z, i, 0), j, 1)
                for i in (-1, 0, 1) for j in (-1, 0, 1) if (i != 0 or j != 0))
        Z = ((n == 3) | ((Z == 1) & (n == 2))).astype(np.int64)
    return Z


@kernel(lambda: ((_rng().random((32, 32)) < 0.3).astype(np.int64), 10))
def game_of_life_slices(Z, steps):
    """scipy-lectures: neighbours by slices of the interior."""
    for _ in range(steps):
        N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] + Z[1:-1, 0:-2] + Z[1:-1, 2:]
             + Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
        birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
        survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
        Z[...] = 0
        Z[1:-1, 1:-1][birth | survive] = 1
    return Z


@kernel(lambda: (-2.0, 0.5, -1.25, 1.25, 40, 30, 30))
def mandelbrot(xmin, xmax, ymin, ymax, xn, yn, maxiter):
    """npbench mandelbrot1: complex arrays and a mask of the points not escaped yet."""
    X = np.linspace(xmin, xmax, xn, dtype=np.float64)
    Y = np.linspace(ymin, ymax, yn, dtype=np.float64)
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, dtype=np.complex128)
    for n in range(maxiter):
        I = np.less(abs(Z), 2.0)
        N[I] = n
        Z[I] = Z[I] ** 2 + C[I]
    N[N == maxiter - 1] = 0
    return Z, N


# --- image filters --------------------------------------------------------------------------

@kernel(lambda: (_rng().random((40, 30)),), float32=True)
def box_blur(img):
    """The 3x3 mean of the interior pixels."""
    out = img.copy()
    acc = np.zeros_like(img[1:-1, 1:-1])
    for di in range(3):
        for dj in range(3):
            acc += img[di:img.shape[0] - 2 + di, dj:img.shape[1] - 2 + dj]
    out[1:-1, 1:-1] = acc / 9.0
    return out


@kernel(lambda: (_rng().random((40, 30)),), float32=True)
def sobel(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]
          - img[:-2, :-2] - 2 * img[1:-1, :-2] - img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]
          - img[:-2, :-2] - 2 * img[:-2, 1:-1] - img[:-2, 2:])
    return np.hypot(gx, gy)


@kernel(lambda: (_rng().random((24, 20)), 1.5))
def gaussian_blur(img, sigma):
    """A separable Gaussian: a normalised kernel, np.convolve along rows then columns."""
    radius = int(3 * sigma)
    x = np.arange(-radius, radius + 1)
    k = np.exp(-0.5 * (x / sigma) ** 2)
    k = k / k.sum()
    rows = np.empty_like(img)
    for i in range(img.shape[0]):
        rows[i] = np.convolve(img[i], k, mode="same")
    out = np.empty_like(img)
    for j in range(img.shape[1]):
        out[:, j] = np.convolve(rows[:, j], k, mode="same")
    return out


@kernel(lambda: (_rng().random((24, 20)),))
def gaussian_blur_slices(img):
    """The 1-2-1 binomial blur as two passes of slices (edges replicated by np.pad)."""
    p = np.pad(img, 1, mode="edge")
    rows = 0.25 * p[:, :-2] + 0.5 * p[:, 1:-1] + 0.25 * p[:, 2:]
    return 0.25 * rows[:-2, :] + 0.5 * rows[1:-1, :] + 0.25 * rows[2:, :]


@kernel(lambda: (_rng().random((24, 20)),))
def median_filter(img):
    """The 3x3 median of interior pixels: nine shifted views stacked, np.median."""
    h, w = img.shape
    views = [img[i:h - 2 + i, j:w - 2 + j] for i in range(3) for j in range(3)]
    return np.median(np.stack(views), axis=0)


# --- ML blocks ------------------------------------------------------------------------------

@kernel(lambda: (_rng().standard_normal((16, 10)) * 5,), float32=True)
def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


@kernel(lambda: (_rng().standard_normal((16, 10)) * 50,), float32=True)
def log_sum_exp(x):
    m = np.max(x, axis=1)
    return m + np.log(np.sum(np.exp(x - m[:, None]), axis=1))


@kernel(lambda: (_rng().standard_normal((60, 2)), _rng(1).standard_normal((3, 2)), 5), float32=True)
def kmeans(X, centroids, iterations):
    """Lloyd's steps: labels by argmin of distances, means of each cluster's points."""
    for _ in range(iterations):
        d = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
        labels = np.argmin(d, axis=1)
        for j in range(centroids.shape[0]):
            members = X[labels == j]
            if members.shape[0] > 0:
                centroids[j] = members.mean(axis=0)
    return centroids, labels


@kernel(lambda: (_rng().standard_normal((50, 4)), (_rng(1).random(50) < 0.5) * 1.0, 0.1, 50), float32=True)
def logistic_regression(X, y, lr, iterations):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        w = w - lr * (X.T @ (p - y)) / X.shape[0]
        b = b - lr * np.mean(p - y)
    return w, b


@kernel(lambda: (_rng().standard_normal((12, 8)), _rng(1).standard_normal((12, 8)),
                 _rng(2).standard_normal((12, 8))), float32=True)
def attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v


@kernel(lambda: (_rng().standard_normal((16, 32)), _rng(1).random(32), _rng(2).random(32)), float32=True)
def layer_norm(x, gamma, beta):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


@kernel(lambda: (_rng().standard_normal((16, 8)), _rng(1).standard_normal((8, 32)),
                 np.zeros(32), _rng(2).standard_normal((32, 4)), np.zeros(4)))
def mlp_forward(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0.0)
    return np.tanh(h @ w2 + b2)


# --- dynamic programming and recursion ------------------------------------------------------

# (The benchmark workload's own: one implementation of the DP.)
edit_distance = kernel(lambda: (_rng().integers(0, 4, 30), _rng(1).integers(0, 4, 25)))(
    workloads.edit_distance)


@kernel(lambda: (_rng().standard_normal(200),))
def running_stats(x):
    """Prefix sums by a loop next to np.cumsum, a running maximum, Kadane's best sum."""
    prefix = np.empty_like(x)
    total = 0.0
    best = -np.inf
    current = 0.0
    running_max = np.empty_like(x)
    top = -np.inf
    for i in range(x.shape[0]):
        total += x[i]
        prefix[i] = total
        current = max(x[i], current + x[i])
        best = max(best, current)
        top = max(top, x[i])
        running_max[i] = top
    return prefix, np.cumsum(x), running_max, best


@kernel(lambda: (_rng().standard_normal(32) + 0j,))
def fft_recursive(x):
    """A radix-2 Cooley-Tukey FFT by recursion."""
    n = x.shape[0]
    if n <= 1:
        return x
    even = fft_recursive(x[0::2])
    odd = fft_recursive(x[1::2])
    t = np.exp(-2j * np.pi * np.arange(n // 2) / n) * odd
    return np.concatenate([even + t, even - t])


@kernel(lambda: (_rng().standard_normal(8), np.linspace(-2, 2, 100)))
def horner(coefficients, x):
    """A polynomial by Horner's rule over an array."""
    result = np.zeros_like(x)
    for c in coefficients:
        result = result * x + c
    return result


@kernel(lambda: (_rng().random((20, 20)) + np.eye(20) * 20,))
def go_fast(a):
    """The Numba docs' first example: a loop over the diagonal, then a broadcast."""
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


# --- sorting-based --------------------------------------------------------------------------

@kernel(lambda: (_rng().standard_normal((9, 11)),))
def median_of_rows(X):
    """The median of each row by sorting (odd and even lengths)."""
    s = np.sort(X, axis=1)
    n = s.shape[1]
    odd = s[:, n // 2]
    even = 0.5 * (s[:, n // 2 - 1] + s[:, n // 2])
    return odd if n % 2 == 1 else even, np.sort(X[:, :-1], axis=1)


@kernel(lambda: (_rng().standard_normal(50), 5))
def top_k(x, k):
    """The k largest values and where they are, by argsort."""
    idx = np.argsort(-x)[:k]
    return idx, x[idx]


# --- more of npbench and everyday NumPy -----------------------------------------------------

@kernel(lambda: (_rng().random((12, 12)) * 10,))
def floyd_warshall(path):
    """npbench floyd_warshall: np.minimum with an outer sum per intermediate node."""
    for k in range(path.shape[0]):
        path[:] = np.minimum(path, np.add.outer(path[:, k], path[k, :]))
    return path


@kernel(lambda: (_rng().random(400), _rng(1).random(400) * 2, 20))
def azimint_naive(data, radius, npt):
    """npbench azimint_naive: the mean of the values in each radial bin, by masks."""
    rmax = radius.max()
    res = np.zeros(npt, dtype=np.float64)
    for i in range(npt):
        r1 = rmax * i / npt
        r2 = rmax * (i + 1) / npt
        mask_r12 = np.logical_and((r1 <= radius), (radius < r2))
        values_r12 = data[mask_r12]
        res[i] = values_r12.mean() if values_r12.size else 0.0
    return res


@kernel(lambda: (_rng().random((16, 16)), _rng(1).random((3, 3))))
def conv2d_loops(img, w):
    """A valid 2-D correlation: loops over the output, np.sum of each window times w."""
    kh, kw = w.shape
    out = np.empty((img.shape[0] - kh + 1, img.shape[1] - kw + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * w)
    return out


@kernel(lambda: (_rng().integers(0, 10, 200),))
def histogram_bincount(labels):
    counts = np.bincount(labels, minlength=10)
    return counts, counts / counts.sum()


@kernel(lambda: (_rng().random((10, 10)) + np.eye(10),))
def power_iteration(A):
    """The dominant eigenvector, iterated until it settles (np.allclose)."""
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    for _ in range(1000):
        w = A @ v
        w = w / np.linalg.norm(w)
        if np.allclose(w, v, rtol=0.0, atol=1e-12):
            break
        v = w
    return v, v @ A @ v


@kernel(lambda: (30, 0.2))
def gaussian_grid(n, sigma):
    """A 2-D Gaussian on a grid made by np.meshgrid."""
    x = np.linspace(-1.0, 1.0, n)
    xx, yy = np.meshgrid(x, x)
    g = np.exp(-(xx ** 2 + yy ** 2) / (2 * sigma ** 2))
    return g / g.sum()


@kernel(lambda: (_rng().standard_normal((8, 4)), _rng(1).standard_normal((8, 4)),
                 _rng(2).standard_normal((8, 4))))
def causal_attention(q, k, v):
    """Attention with a causal mask from np.triu."""
    n = q.shape[0]
    scores = q @ k.T / np.sqrt(q.shape[1])
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v


@kernel(lambda: (_rng().standard_normal((40, 3)), _rng(1).standard_normal(40)))
def least_squares(X, y):
    """Linear regression by the normal equations, with an intercept column (np.hstack)."""
    A = np.hstack([np.ones((X.shape[0], 1)), X])
    return np.linalg.solve(A.T @ A, A.T @ y)


@kernel(lambda: (_rng().standard_normal((5, 30)),))
def covariance(X):
    """The covariance matrix by hand and np.cov."""
    centred = X - X.mean(axis=1, keepdims=True)
    return centred @ centred.T / (X.shape[1] - 1), np.cov(X)


@kernel(lambda: (np.linspace(0, np.pi, 101),))
def trapezoid(x):
    y = np.sin(x)
    return np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2, np.trapezoid(y, x)


@kernel(lambda: (_rng().standard_normal((2, 6, 4)), _rng(1).standard_normal((2, 6, 4))),
        reordered=True)   # (np.einsum contracts by matmuls: NumPy's values up to rounding)
def einsum_scores(q, k):
    return np.einsum("bid,bjd->bij", q, k)


@kernel(lambda: (np.array([0, 2, 3, 6]), np.array([0, 2, 1, 0, 1, 2]), _rng().random(6),
                 _rng(1).random(3)))
def spmv_csr(indptr, indices, data, x):
    """A CSR sparse matrix times a vector, row by row."""
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        for jj in range(indptr[i], indptr[i + 1]):
            y[i] += data[jj] * x[indices[jj]]
    return y


@kernel(lambda: (5, _rng().random((12, 12))))
def seidel_2d(tsteps, A):
    """npbench seidel_2d (scalar loops): in place, each point from its updated neighbours."""
    n = A.shape[0]
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1]
                           + A[i, j] + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j]
                           + A[i + 1, j + 1]) / 9.0
    return A


@kernel(lambda: (np.cov(_rng().standard_normal((8, 30))),))
def cholesky(A):
    """npbench cholesky: the lower factor in place, row by row, with dot products."""
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return np.tril(A)


@kernel(lambda: (_rng().random(30) * 4,))
def unique_counts(x):
    """Distinct rounded values and how often each occurs."""
    values, counts = np.unique(np.round(x), return_counts=True)
    return values, counts


@kernel(lambda: (np.array([2.0, 10.0, 0.5]), 1e-12))
def newton_sqrt(a, tol):
    """Newton's iteration for square roots, elementwise, until every change is small."""
    x = np.ones_like(a)
    while True:
        x_new = 0.5 * (x + a / x)
        if np.max(np.abs(x_new - x)) < tol:
            return x_new
        x = x_new


# --- running --------------------------------------------------------------------------------

class Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise Timeout()


def _outcome(fn, arguments):
    arguments = copy.deepcopy(arguments)
    try:
        return fn(*arguments), None, arguments
    except Timeout:
        raise
    except Exception as error:   # compared with the other run's
        return None, error, arguments


def _first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def is_refusal(error):
    """Does `error` refuse the code clearly rather than crash? The graphs' refusals are
    TypeErrors and NotImplementedErrors saying what graphs do not support, and the numba
    backend's NumbaLoweringError naming the op it cannot compile."""
    if type(error).__name__ == "NumbaLoweringError":
        return True
    text = str(error)
    return isinstance(error, (TypeError, NotImplementedError)) and (
        "support" in text or "graph" in text)


def run(k, backend, timeout=60.0):
    """The status of kernel `k` on `backend`: ("ok" | "refused" | "MISMATCH" | "error" |
    "timeout", detail)."""
    arguments = k.inputs()
    expected, error, after = _outcome(k.function, arguments)
    staged = ag.function(k.function, backend=backend)
    previous = signal.signal(signal.SIGALRM, _on_alarm) if timeout else None
    if timeout:
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        actual, graph_error, graph_after = _outcome(staged, arguments)
    except Timeout:
        return "timeout", "more than %d s" % timeout
    finally:
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if graph_error is not None and error is None:
        if is_refusal(graph_error):
            return "refused", _first_line(graph_error)
        return "error", "%s: %s" % (type(graph_error).__name__, _first_line(graph_error))
    if error is not None:
        if type(error) is not type(graph_error):
            return "MISMATCH", "Python raised %r, the graph %r" % (error, graph_error)
        return "ok", ""
    rtol = (0.0 if backend == "numpy" and not k.reordered
            else NUMBA_RTOL_F32 if k.float32 else NUMBA_RTOL)
    why = mismatch(expected, actual, rtol) or mismatch(_comparable(after),
                                                      _comparable(graph_after), rtol)
    if why:
        return "MISMATCH", " ".join(why.split())[:300]
    return "ok", ""


def _comparable(arguments):
    """The arguments after a call, as the table compares them (a Generator: its state)."""
    return tuple(str(a.bit_generator.state) if isinstance(a, np.random.Generator) else a
                 for a in arguments)


def survey(names=None, backends=BACKENDS, timeout=60.0, report=None):
    """{kernel: {backend: (status, detail), backend + " s": seconds}}."""
    results = {}
    for name in names or KERNELS:
        k = KERNELS[name]
        row = results[name] = {}
        for backend in backends:
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with np.errstate(all="ignore"):
                    row[backend] = run(k, backend, timeout)
            row[backend + " s"] = round(time.perf_counter() - start, 2)
            if report:
                report(name, backend, row[backend])
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds for a kernel's first run on a backend (numba compiles)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    unknown = [n for n in args.kernels if n not in KERNELS]
    if unknown:
        parser.error("unknown kernels: %s (known: %s)" % (", ".join(unknown),
                                                          ", ".join(KERNELS)))
    backends = tuple(args.backends.split(","))
    results = survey(args.kernels or None, backends, args.timeout)
    if args.json:
        print(json.dumps(results, indent=1))
        return 1 if _mismatches(results, backends) else 0
    width = max(len(n) for n in results)
    print("%-*s  %s" % (width, "kernel", "  ".join("%-9s" % b for b in backends)))
    for name, row in results.items():
        print("%-*s  %s" % (width, name, "  ".join("%-9s" % row[b][0] for b in backends)))
    print()
    for backend in backends:
        ok = sum(row[backend][0] == "ok" for row in results.values())
        print("%s: %d of %d run unchanged" % (backend, ok, len(results)))
    print()
    for (status, detail), where in _by_cause(results, backends).items():
        print("%s: %s" % (status, detail))
        print("    %s" % ", ".join(where))
    return 1 if _mismatches(results, backends) else 0


def _by_cause(results, backends):
    """{(status, detail): ["kernel (backends)", ...]} of the results other than ok."""
    causes = {}
    for name, row in results.items():
        found = {}
        for backend in backends:
            if row[backend][0] != "ok":
                found.setdefault(row[backend], []).append(backend)
        for cause, on in found.items():
            label = name if len(on) == len(backends) else "%s (%s)" % (name, ", ".join(on))
            causes.setdefault(cause, []).append(label)
    return dict(sorted(causes.items(), key=lambda item: (-len(item[1]), item[0])))


def _mismatches(results, backends):
    return [n for n, row in results.items() for b in backends if row[b][0] == "MISMATCH"]


if __name__ == "__main__":
    sys.exit(main())
