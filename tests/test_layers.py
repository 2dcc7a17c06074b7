"""The house rules of docs/architecture.md, checked on the import statements of every module
(also those inside functions: a late import hides a cycle, it does not remove it)."""

import ast
import os
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("agcache", "autograph", "runtime")


def project_modules(root, packages=PACKAGES):
    """{dotted module name: file path} of every module in the packages under `root` (a C
    file is the extension module setup.py builds from it)."""
    modules = {}
    for package in packages:
        for directory, _, files in os.walk(os.path.join(root, package)):
            for name in files:
                if not name.endswith((".py", ".c")):
                    continue
                path = os.path.join(directory, name)
                parts = os.path.splitext(os.path.relpath(path, root))[0].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                modules[".".join(parts)] = path
    return modules


def imported_names(module, path, known):
    """What `module` imports: project modules by their dotted name (`from a import b` is
    a.b when that is a module, else a), other top-level packages by their first part; a C
    extension's: nothing (it imports no project module)."""
    if path.endswith(".c"):
        return set()
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = os.path.basename(path) == "__init__.py"
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.name if alias.name in known else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[:len(base) - node.level + is_package]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    names.add(submodule)
                elif source in known:
                    names.add(source)
                else:
                    names.add(source.split(".")[0])
    names.discard(module)
    return names


def import_graph(root, packages=PACKAGES):
    known = project_modules(root, packages)
    return {module: imported_names(module, path, known) for module, path in known.items()}


def cycles(graph):
    """The import cycles of `graph`: its strongly connected components of two or more
    modules (Tarjan's algorithm), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph[module]:
            if imported not in graph:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return found


def _under(module, prefix):
    return module == prefix or module.startswith(prefix + ".")


def violations(graph, importer, forbidden, allowed=()):
    """(importer, imported) pairs where a module under `importer` imports one under a
    prefix of `forbidden`, unless it is under a prefix of `allowed`."""
    return sorted(
        (module, imported)
        for module, names in graph.items() if _under(module, importer)
        for imported in names
        if any(_under(imported, f) for f in forbidden)
        and not any(_under(imported, a) for a in allowed))


# The Numba backend's modules an op module may import: the leaf of lowering helpers.
OP_MODULES_MAY_IMPORT = ("runtime.executors.numba.lowering",)


@pytest.fixture(scope="module")
def graph():
    return import_graph(ROOT)


def test_runtime_never_imports_autograph(graph):
    assert violations(graph, "runtime", ["autograph"]) == []


def test_the_cache_uses_only_the_standard_library(graph):
    """agcache sits below both autograph/pyct and runtime: it imports neither."""
    import sys
    imported = {name for module, names in graph.items() if _under(module, "agcache")
                for name in names if not _under(name, "agcache")}
    assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_pyct_knows_nothing_of_conversion_tensors_or_graphs(graph):
    forbidden = ["autograph.converters", "autograph.operators", "autograph.impl",
                 "autograph.core", "autograph.cli", "runtime", "numpy", "numba"]
    assert violations(graph, "autograph.pyct", forbidden) == []


def test_converters_know_the_overloads_only_by_name(graph):
    forbidden = ["autograph.operators", "autograph.impl", "autograph.cli", "runtime", "numpy"]
    assert violations(graph, "autograph.converters", forbidden) == []
    assert violations(graph, "autograph.core", forbidden) == []


def test_operators_hold_no_ast_code(graph):
    forbidden = ["ast", "gast", "astor", "autograph.pyct", "autograph.converters"]
    assert violations(graph, "autograph.operators", forbidden) == []


def test_op_modules_never_import_the_numba_code_generator(graph):
    assert violations(graph, "runtime.ops", ["runtime.executors.numba", "numba"],
                      allowed=OP_MODULES_MAY_IMPORT) == []


def test_no_import_cycles(graph):
    assert cycles(graph) == []


def test_the_checks_see_late_imports_cycles_and_forbidden_imports(tmp_path):
    """The checker itself: a late import closing a cycle, and a forbidden one, are found."""
    files = {
        "runtime/__init__.py": "",
        "runtime/a.py": "from runtime import b\n",
        "runtime/b.py": "def f():\n    from runtime.a import x\n    import autograph.core\n",
        "autograph/__init__.py": "",
        "autograph/core.py": "import runtime.a as a\n",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    fake = import_graph(str(tmp_path))
    assert cycles(fake) == [["autograph.core", "runtime.a", "runtime.b"]]
    assert violations(fake, "runtime", ["autograph"]) == [("runtime.b", "autograph.core")]
