"""A builtin the user replaced at run time reaches the user's code only, never the converter's
own machinery (found by fileinput's tests, which count calls of a replaced `open`)."""

import builtins

from autograph.impl import api


class _CountingOpener:
    """Stands in for `open`: counts its calls and returns a marker."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append(args)
        return "opened"


def _open_it(name):
    return open(name, "rb")


def test_replaced_open_is_called_once_per_user_call(monkeypatch):
    converted = api.to_graph(_open_it)
    opener = _CountingOpener()
    monkeypatch.setattr(builtins, "open", opener)
    # The first call converts the opener's __call__ (the converter writes and reads
    # module files then): only the user's call may reach the replaced open.
    assert converted("data.gz") == "opened"
    assert opener.calls == [("data.gz", "rb")]
