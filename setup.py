"""Builds runtime/_fastcall.c (the per-call path of staged functions, in C: a call with the
last signature seen).

The extension is optional: without a C compiler the install goes on, and runtime/trace.py
takes every call on its Python path (same results, about 0.4 us more per call of one array,
1-1.5 us more with several arguments).
Everything else about the package is in pyproject.toml.
"""
import numpy
from setuptools import Extension, setup

setup(ext_modules=[Extension("runtime._fastcall", ["runtime/_fastcall.c"],
                             include_dirs=[numpy.get_include()], optional=True)])
