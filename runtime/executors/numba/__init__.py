"""The Numba backend: each graph becomes one generated Python function compiled by
`numba.njit`, for graphs whose loops earn the compile.

  lowering.py      helpers op modules import to declare their lowerings (a leaf)
  codegen.py       the code generator: a graph's source, `cond` and `while` included
  bounds.py        the index bounds the generator proves, to leave checks out
  support.py       the jitted helpers generated code calls (`_rt`)
  module_cache.py  generated modules on disk, named by their hash, for Numba's cache
  disk_cache.py    `jit`: Numba's on-disk cache of all that, checked and self-healing
  compiled.py      the compiled graph: call wrappers, fallback, timing both executors
  failures.py      failures of compiled code as the NumPy interpreter's errors
  pending.py       on `auto`: a graph's calls before its code exists (no import of the rest)
  background.py    on `auto`: compiles in a worker process, loads the code in a thread
  policy.py        which graphs to compile: the `numba` and `auto` executors
"""
