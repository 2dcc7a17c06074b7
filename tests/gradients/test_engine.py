"""The reverse-mode engine: straight-line code, a while loop with a data-dependent trip
count, checked against central differences on both backends."""

import numpy as np

from gradcheck import check_grad


def tanh_dot(x, w):
    return np.tanh(x * w).sum()


def grow_until(x):
    s = x
    while s.sum() < 50.0:
        s = s * x + x
    return s.sum()


def test_straight_line_both_arguments():
    check_grad(tanh_dot, np.linspace(-1, 1, 5), np.full(5, 0.3), argnums=(0, 1))


def test_while_with_data_dependent_trip_count():
    check_grad(grow_until, np.array([1.5, 2.0]))
