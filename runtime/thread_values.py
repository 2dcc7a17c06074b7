"""A value per thread that a `with` block sets for the code it runs (what a trace being built
tells the overloads and tensors it calls: runtime/specialise.py, runtime/state_guards.py)."""

import contextlib
import threading


class ThreadValue:
    """`get()` is the value the innermost active `set(value)` block of this thread gave, or
    None outside any."""

    def __init__(self):
        self._local = threading.local()

    def get(self):
        return getattr(self._local, "value", None)

    @contextlib.contextmanager
    def set(self, value):
        outer = self.get()
        self._local.value = value
        try:
            yield value
        finally:
            self._local.value = outer
