"""Functional forms (rt.function + rt.while_loop / rt.cond) of the benchmark workloads, for
measuring the runtime and its executors without autograph. The forms themselves live in
tests/runtime/test_rt_workloads.py (one copy); this module pairs each with its original."""

from tests.runtime import test_rt_workloads as forms
from tools import workloads

FUNCTIONAL = {
    "collatz": (forms.collatz_total, workloads.collatz_total, workloads.collatz_inputs),
    "primes": (forms.count_primes, workloads.count_primes, workloads.primes_inputs),
    "mandelbrot": (forms.mandelbrot, workloads.mandelbrot, workloads.mandelbrot_inputs),
    "rnn": (forms.rnn, workloads.rnn, workloads.rnn_inputs),
    "power_iter": (forms.power_iteration, workloads.power_iteration, workloads.power_inputs),
    "edit_distance": (forms.edit_distance, workloads.edit_distance, workloads.edit_inputs),
    "ema": (forms.ema_clipped, workloads.ema_clipped, workloads.ema_inputs),
    "piecewise16": (forms.piecewise, workloads.piecewise, workloads.piecewise_inputs),
}
