"""PYTEST_DONT_REWRITE (the functions under test assert). f-strings, `'...' % x`, str.format, str/repr/format: Python's own text on Python values;
on symbolic values a text formatted when the graph runs, as Python formats the NumPy
values (print, raise and assert take it)."""

import numpy as np

from converter_testing import ALL_BACKENDS, assert_same_behaviour, assert_same_in_graphs, code


def texts(x, i, w, d):
    return [
        f"step {i}: {x:.3f} {{literal}} {x!r:>{w}} {i=} {x!s:{w}.{w}}",
        f"{'nested ' + f'{i:03d}'} {d['k']!a} {w:{'>'}{w}}",
        "bad value %d (%s)" % (i, x),
        "%(k)s and %%" % d,
        "single %r" % x,
        "{} and {:.2f} {k}".format(i, x, k=d["k"]),
        str(x) + repr(i) + format(x, ".1f") + format(i) + str(),
        f"plain", "no % formatting", 7 % 3,
    ]


def test_python_values_keep_pythons_text():
    assert_same_behaviour(texts, (3.14159, 4, 12, {"k": "é"}), (2.5, -1, 3, {"k": 1}))


def test_generated_code():
    source = code(texts)
    assert ("'step ' + ag__.format_('{}', i) + ': ' + ag__.format_('{:.3f}', x) + "
            "' {literal} ' + ag__.format_('{!r:>{}}', x, w) + ' i=' + ag__.format_('{!r}', i)"
            in source)
    assert "ag__.percent_format('bad value %d (%s)', (i, x))" in source
    assert "f'plain'" in source and "7 % 3" in source


def test_each_value_is_formatted_right_after_it_is_computed():
    class Loud:
        def __init__(self, log):
            self.log = log

        def __format__(self, spec):
            self.log.append("format " + spec)
            return "loud"

    def f(log, items):
        def later():
            log.append("later")
            items.append(1)
            return len(items)
        return f"{Loud(log):x} {items} {later()} {Loud(log):{later()}}", log

    assert_same_behaviour(f, lambda: ([], []))


def test_formatting_errors_are_pythons():
    def f(x):
        return "%d %d" % (x,)

    def g(x):
        return f"{x:q}"

    assert_same_behaviour(f, 1)
    assert_same_behaviour(g, 1)


def test_a_nested_field_with_its_own_spec_stays_an_f_string():
    def f(x, w):
        return f"{x:{w!r}}"

    assert "f'{x:{w!r}}'" in code(f)
    assert_same_behaviour(f, (3, 5))


def formatted_prints(x):
    n = x.shape[0]
    print(f"{n} values")
    for i in range(n):
        print(f"step {i}: {x[i]:.3f}", "{:>6}|".format(x[i]), "%d/%s" % (i, x[i]))
        if x[i] > 1.0:
            print("big:", str(x[i]), repr(x[i] * 2), format(x[i], "e"))
    message = f"last={x[n - 1]:+.2f}"
    print(message + "!", end="\n\n")
    return n


def test_formatted_texts_of_tensors_print_when_the_graph_runs():
    staged = assert_same_in_graphs(formatted_prints, np.array([0.5, 2.25, -3.0]),
                                   np.array([4.0]), backends=ALL_BACKENDS)
    # The graph formats each time it runs.
    assert staged["numpy"].trace_count == 1


def formatted_raise(x, limit):
    for i in range(x.shape[0]):
        if x[i] > limit:
            raise ValueError(f"x[{i}] = {x[i]:.2f} exceeds {limit}")
        if x[i] < 0:
            raise ValueError("bad value %d: %s" % (i, x[i]))
    assert x[0] != 7.0, "first is {!r}".format(x[0])
    return x.sum()


def test_raise_messages_are_formatted_when_the_error_is_raised():
    import runtime as rt
    assert_same_in_graphs(formatted_raise, (np.array([1.0, 2.0]), 5.0),
                          (np.array([1.0, 8.5]), 5.0), (np.array([1.0, -2.0]), 5.0),
                          (np.array([7.0]), 9.0), backends=ALL_BACKENDS,
                          graph_errors={AssertionError: rt.errors.AssertionFailedError})


def text_used_otherwise(x):
    label = f"{x[0]}"
    return label.upper()


def text_compared(x):
    return f"{x[0]}" == "1.0"


def test_a_symbolic_text_used_as_a_str_is_a_clear_error():
    from autograph.impl.function import function
    import pytest
    with pytest.raises(AttributeError, match="holds symbolic values.*no str methods"):
        function(text_used_otherwise, backend="numpy")(np.array([1.0]))
    with pytest.raises(TypeError, match="holds symbolic values"):
        function(text_compared, backend="numpy")(np.array([1.0]))
