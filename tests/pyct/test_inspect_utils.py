"""Tests for inspect_utils."""

from __future__ import annotations

import collections
import functools
import typing

import numpy as np

from autograph.pyct import inspect_utils


class Point(typing.NamedTuple):
    x: int
    y: int


Pair = collections.namedtuple("Pair", ["a", "b"])


class Owner:
    def method(self):
        return self

    @staticmethod
    def static():
        return 1

    @classmethod
    def klass(cls):
        return cls


class SubOwner(Owner):
    pass


def plain(x):
    return x


def test_isbuiltin():
    assert inspect_utils.isbuiltin(len)
    assert inspect_utils.isbuiltin(range)
    assert inspect_utils.isbuiltin([].append)
    assert inspect_utils.isbuiltin(np.add.reduce)
    assert not inspect_utils.isbuiltin(plain)
    assert not inspect_utils.isbuiltin(np.sum)  # a Python function in NumPy


def test_islambda_isnamedtuple():
    assert inspect_utils.islambda(lambda: 0)
    assert not inspect_utils.islambda(plain)
    assert inspect_utils.isnamedtuple(Point)
    assert inspect_utils.isnamedtuple(Pair)
    assert not inspect_utils.isnamedtuple(tuple)
    assert not inspect_utils.isnamedtuple(Pair(1, 2))


def test_getmethodclass():
    assert inspect_utils.getmethodclass(SubOwner().method) is Owner
    assert inspect_utils.getmethodclass(SubOwner.klass) is Owner
    assert inspect_utils.getmethodclass(Owner.static) is Owner
    assert inspect_utils.getmethodclass(Owner.method) is Owner
    assert inspect_utils.getmethodclass(plain) is None

    def local():
        pass
    assert inspect_utils.getmethodclass(local) is None


def test_getqualifiedname():
    namespace = {"np": np, "plain": plain, "functools": functools}
    assert inspect_utils.getqualifiedname(namespace, plain) == "plain"
    assert inspect_utils.getqualifiedname(namespace, np.sum) == "np.sum"
    assert inspect_utils.getqualifiedname(namespace, functools.partial) == "functools.partial"
    assert inspect_utils.getqualifiedname(namespace, object()) is None


def test_getfutureimports():
    assert inspect_utils.getfutureimports(plain) == ("annotations",)
    assert inspect_utils.getfutureimports(len) == ()


def test_getnamespace_and_closure_vars():
    captured = 5
    not_yet = None
    del not_yet

    def inner():
        return captured, not_yet  # noqa: F821

    namespace = inspect_utils.getnamespace(inner)
    assert namespace["captured"] == 5
    assert "not_yet" not in namespace  # an empty cell
    assert namespace["np"] is np
    assert inspect_utils.getclosurevars(inner) == {"captured": 5}


def test_getimmediatesource_does_not_follow_wraps():
    @functools.wraps(plain)
    def wrapper(*args):
        return plain(*args)
    assert "def wrapper(*args):" in inspect_utils.getimmediatesource(wrapper)


def test_defining_and_unbound_method_class():
    assert inspect_utils.getdefiningclass(SubOwner.method, SubOwner) is Owner
    assert inspect_utils.getunboundmethodclass(SubOwner().method) is SubOwner
    assert inspect_utils.getunboundmethodclass(SubOwner.klass) is SubOwner
    assert inspect_utils.getunboundmethodclass(plain) is None
    assert inspect_utils.isconstructor(Owner) and not inspect_utils.isconstructor(plain)
