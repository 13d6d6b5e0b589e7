"""No test measures speed: a clock in a test makes it pass alone and fail under load (a full run
once failed on "18 ticks in 4.0 s"). Speed targets are `python -m tools.bench` figures."""
import ast
import re
from pathlib import Path

CLOCKS = re.compile(r"perf_counter|time\.time\(|monotonic\(|process_time\(|time\.time_ns\(")   # a tick rate needs one too
# A measured duration: "first_frame_s", out["pan_frame_s"], r.seconds, elapsed, a "_ms" column.
TIMED = re.compile(r"(?<=[a-z])_(?:s|ms)\b|seconds|elapsed|duration", re.IGNORECASE)
HERE = Path(__file__).resolve()


def _tests() -> list[Path]:
    return [path for path in sorted(HERE.parent.glob("**/*.py")) if path != HERE]


def test_no_test_reads_a_clock():
    offenders = [f"{path.name}:{i}: {line.strip()}"
                 for path in _tests()
                 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if CLOCKS.search(line)]
    assert offenders == []


def _number(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool)


def _bounded_above(compare: ast.Compare) -> list[ast.expr]:
    """The operands a comparison bounds from above by a number: x < 5.0, 0 < x <= 5, 5.0 > x."""
    operands = [compare.left, *compare.comparators]
    out = []
    for i, op in enumerate(compare.ops):
        left, right = operands[i], operands[i + 1]
        if isinstance(op, (ast.Lt, ast.LtE)) and _number(right):
            out.append(left)
        elif isinstance(op, (ast.Gt, ast.GtE)) and _number(left):
            out.append(right)
    return out


def timed_asserts(source: str) -> list[int]:
    """Lines of asserts that bound a duration from above: the duration named in the bounded
    expression, or in the loop that feeds it (`for key in ("first_frame_s", …): assert out[key] < 5`)."""
    tree = ast.parse(source)
    loops: dict[ast.AST, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)):
            text = ast.get_source_segment(source, node.iter) or ""
            names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            for child in ast.walk(node) if isinstance(node, ast.For) else ():
                loops.setdefault(child, []).extend(f"{name}:{text}" for name in names)
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        for compare in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            for bounded in _bounded_above(compare):
                text = ast.get_source_segment(source, bounded) or ""
                used = {n.id for n in ast.walk(bounded) if isinstance(n, ast.Name)}
                fed = [src for entry in loops.get(node, []) for name, _, src in [entry.partition(":")]
                       if name in used]
                if TIMED.search(text) or any(TIMED.search(src) for src in fed):
                    lines.append(node.lineno)
    return sorted(set(lines))


def test_the_timed_assert_pattern_is_recognised():
    caught = '''
for key in ("scene_build_s", "first_frame_s"):
    assert 0.0 < out[key] < 5.0
assert out["pan_frame_s"] < 0.05
assert report.seconds <= 60
assert 2.0 > r.elapsed
'''
    assert timed_asserts(caught) == [3, 4, 5, 6]
    fine = '''
for key in ("scene_build_s", "first_frame_s"):
    assert out[key] > 0.0
assert row["rss_mib"] > 50 and len(rows) < 5
for name in ("a", "b"):
    assert count[name] < 3
assert r.sqnr_db < 60
'''
    assert timed_asserts(fine) == []


def test_no_test_bounds_a_duration():
    offenders = [f"{path.name}:{line}" for path in _tests()
                 for line in timed_asserts(path.read_text(encoding="utf-8"))]
    assert offenders == []
