"""The public functions of vpu_core, app and tools are annotated. Parses the sources (no imports).

A function is public when its name does not start with "_" (dunders such as __init__ count), it is
not nested in another function, and no class around it is private. Each of its parameters (but
self / cls) and its return need an annotation. mypy (`.ci/run`) then checks that they hold."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def unannotated(source: str, filename: str = "<source>") -> list[str]:
    """"line: name (what is missing)" for every public function of `source` lacking an annotation."""
    out: list[str] = []

    def visit(node: ast.AST, private: bool, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, private or _private(child.name), in_function)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not (private or in_function or _private(child.name)):
                    a = child.args
                    params = a.posonlyargs + a.args + a.kwonlyargs
                    missing = [p.arg for i, p in enumerate(params)
                               if p.annotation is None and not (i == 0 and p.arg in ("self", "cls"))]
                    missing += [f"*{v.arg}" for v in (a.vararg, a.kwarg) if v is not None and v.annotation is None]
                    if child.returns is None:
                        missing.append("return")
                    if missing:
                        out.append(f"{filename}:{child.lineno}: {child.name} ({', '.join(missing)})")
                visit(child, private, True)
            else:
                visit(child, private, in_function)
    visit(ast.parse(source, filename=filename), False, False)
    return out


def test_the_public_functions_of_the_core_the_gui_and_the_tools_are_annotated():
    files = sorted(p for package in ("vpu_core", "app", "tools") for p in (ROOT / package).rglob("*.py"))
    assert len(files) > 150
    missing = [m for p in files for m in unannotated(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))]
    assert missing == []


def test_the_check_sees_public_functions_only():
    source = ("def a(x, y: int): pass\n"
              "def _b(x): pass\n"
              "class C:\n    def __init__(self, v): pass\n    def m(self) -> None:\n        def inner(q): pass\n"
              "class _D:\n    def m(self, v): pass\n"
              "def e(*args, **kw) -> None: pass\n")
    assert unannotated(source) == ["<source>:1: a (x, return)", "<source>:4: __init__ (v, return)",
                                   "<source>:9: e (*args, *kw)"]
