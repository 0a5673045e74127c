#!/usr/bin/env python3
"""The type stubs (python/ttd/_ttd.pyi) against the built extension: every
public function, class, method and property of the module has a stub,
every stub names something the module has, parameter names and order
match the signatures pybind11 records, and the package ships py.typed.
A binding added in C++ without its stub fails here, naming it.

usage: test_stubs.py PACKAGE_DIR   (the folder holding ttd/)"""

import ast
import inspect
import os
import sys

sys.path.insert(0, sys.argv[1])
import ttd  # noqa: E402
import ttd._ttd as ext  # noqa: E402

DUNDERS = {"__len__", "__iter__", "__next__"}


def stub_tree():
    path = os.path.join(os.path.dirname(ttd.__file__), "_ttd.pyi")
    return ast.parse(open(path).read(), path)


def is_typed_dict(node):
    return any(isinstance(b, ast.Name) and b.id == "TypedDict" for b in node.bases)


def split_params(sig):
    """Parameter names from a pybind11 signature line `name(a: T, *, b: U = 1) -> R`."""
    inner, depth, start = sig[sig.index("(") + 1:], 0, 0
    parts = []
    for i, ch in enumerate(inner):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                parts.append(inner[start:i])
                break
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    names = [p.split(":")[0].split("=")[0].strip() for p in parts]
    return [n for n in names if n]


def stub_params(fn):
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args]
    if a.kwonlyargs:
        names += ["*"] + [x.arg for x in a.kwonlyargs]
    return names


def runtime_params(obj, name):
    doc = (getattr(obj, "__doc__", None) or "").lstrip()
    first = doc.splitlines()[0] if doc else ""
    if not first.startswith(name + "("):
        return None  # no recorded signature (overloads, properties)
    return split_params(first)


def main():
    problems = []
    tree = stub_tree()
    stub_names = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stub_names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stub_names[node.target.id] = node

    public = {n for n in dir(ext) if not n.startswith("_")} | {"__version__"}
    stub_only = {n for n, node in stub_names.items() if isinstance(node, ast.ClassDef) and is_typed_dict(node)}
    for n in sorted(public - set(stub_names)):
        problems.append(f"ttd.{n} is in the module but not in _ttd.pyi")
    for n in sorted(set(stub_names) - public - stub_only):
        problems.append(f"_ttd.pyi declares {n}, which the module does not have")

    for name, node in stub_names.items():
        if name not in public:
            continue
        obj = getattr(ext, name)
        if isinstance(node, ast.FunctionDef):
            want = runtime_params(obj, name)
            if want is not None and stub_params(node) != want:
                problems.append(f"ttd.{name}: stub parameters {stub_params(node)}, module {want}")
            continue
        if not isinstance(node, ast.ClassDef) or not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        members = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        real = {a for a in vars(obj) if not a.startswith("_") or a in DUNDERS}
        for a in sorted(real - set(members)):
            problems.append(f"ttd.{name}.{a} is in the module but not in _ttd.pyi")
        for a in sorted(set(members) - real - {"__init__"}):
            problems.append(f"_ttd.pyi declares {name}.{a}, which the module does not have")
        for a, m in members.items():
            if a not in real:
                continue
            is_prop = any(isinstance(d, ast.Name) and d.id == "property" for d in m.decorator_list)
            if is_prop != isinstance(vars(obj)[a], property):
                problems.append(f"ttd.{name}.{a}: property in one, method in the other")
            elif not is_prop:
                want = runtime_params(vars(obj)[a], a)
                if want is not None and stub_params(m) != want:
                    problems.append(f"ttd.{name}.{a}: stub parameters {stub_params(m)}, module {want}")

    pkg = os.path.dirname(ttd.__file__)
    if not os.path.exists(os.path.join(pkg, "py.typed")):
        problems.append(f"no py.typed in {pkg}: type checkers ignore the stubs")
    for p in problems:
        print("stub mismatch:", p)
    print(f"checked {len(stub_names)} stub names against ttd._ttd {ttd.__version__}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
