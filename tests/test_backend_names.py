"""A backend's name appears as a string literal only in its own package (vpu_core/targets/<name>/):
everything else asks the registry (docs/spec.md, section 9.0). The allow-list below is what is left
to move; it may only shrink — a file that needs fewer literals than allowed fails too, so the list
is lowered with the code that removed them."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Every backend's name but the VPU's (the default primary, the seeds' story) and each of the
# Ethos-U accelerator configurations of the Arm package.
NAMES = ("xnnpack", "ethos-u", "ethos-u-a16w8", "tosa-int", "openvino")
PREFIXES = ("ethos-u5", "ethos-u6", "ethos-u8")

ALLOWED = {   # 2026-12-07: 76 literals in 27 files before the registries took over; 40 in 18 now
    "app/cli.py": 1,
    "app/features/shown.py": 1,
    "app/state/values.py": 2,
    "app/widgets/compare_bar.py": 1,
    "app/widgets/delegation_legend.py": 3,
    "app/widgets/node_html.py": 1,
    "app/widgets/quantizer_buttons.py": 7,
    "app/widgets/tables.py": 2,
    "app/widgets/target_html.py": 1,
    "vpu_core/agree.py": 2,
    "vpu_core/arguments.py": 1,
    "vpu_core/cli.py": 1,
    "vpu_core/graph/build.py": 2,
    "vpu_core/graph/legend.py": 2,
    "vpu_core/graph/placement.py": 1,
    "vpu_core/inspection.py": 1,
    "vpu_core/session/__init__.py": 6,
    "vpu_core/stagediff/check.py": 5,
}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def backend_literals() -> dict[str, int]:
    """file -> how many string literals (docstrings aside) name a backend, outside its package."""
    counts: dict[str, int] = {}
    for path in sorted([*ROOT.glob("vpu_core/**/*.py"), *ROOT.glob("app/**/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("vpu_core/targets/") and rel.count("/") >= 3:     # a backend's own package
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        n = sum(1 for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docs and (node.value in NAMES or node.value.startswith(PREFIXES)))
        if n:
            counts[rel] = n
    return counts


def test_backend_names_stay_in_their_packages():
    assert backend_literals() == ALLOWED, (
        "a backend's name as a string literal outside vpu_core/targets/<name>/: ask the registry "
        "(vpu_core.targets, vpu_core.quantizers) instead; when you removed some, lower ALLOWED")
