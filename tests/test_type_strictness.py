"""mypy's strictness only grows. Reads pyproject.toml (no mypy run, milliseconds).

[tool.mypy] checks every function body (check_untyped_defs) with None as a type of its own
(strict_optional). A module of vpu_core or app may be checked less only through an override that
EXCEPTIONS below already lists: the list only shrinks (fix the module, remove both entries), so a
new module starts strict and an old one never goes back."""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (module pattern, relaxed option) pairs allowed today. Remove an entry once its module passes;
# never add one.
EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()

STRICT = {"check_untyped_defs": True, "strict_optional": True}
# options that check a module less than [tool.mypy] does, with the value that relaxes them
RELAXING = {"check_untyped_defs": False, "strict_optional": False, "ignore_errors": True,
            "disallow_untyped_globals": False, "warn_unused_ignores": False, "strict_equality": False,
            "follow_imports": ("skip", "silent"), "disable_error_code": None, "allow_redefinition": True}
OURS = ("vpu_core", "app", "tools")


def _mypy() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _ours(pattern: str) -> bool:
    """Does a module pattern of an override ("app.widgets.*", "torch.*") name any of our modules?"""
    return any(pattern == top or pattern.startswith(top + ".") or fnmatch.fnmatch(top, pattern)
               for top in OURS)


def _relaxes(option: str, value: object) -> bool:
    wanted = RELAXING[option]
    if wanted is None:                   # any value relaxes (a list of disabled codes)
        return bool(value)
    return value in wanted if isinstance(wanted, tuple) else value == wanted


def relaxations(config: dict) -> set[tuple[str, str]]:
    """(module pattern, option) for every override that checks one of our modules less."""
    out = set()
    for override in config.get("overrides", []):
        modules = override["module"]
        for pattern in [modules] if isinstance(modules, str) else modules:
            if _ours(pattern):
                out |= {(pattern, k) for k, v in override.items() if k in RELAXING and _relaxes(k, v)}
    return out


def test_the_whole_tree_is_checked_strictly():
    config = _mypy()
    assert {k: config.get(k) for k in STRICT} == STRICT
    assert sorted(config["files"]) == sorted(OURS)


def test_no_module_is_added_to_the_exceptions():
    added = relaxations(_mypy()) - EXCEPTIONS
    assert not added, (f"{sorted(added)}: fix the module's mypy errors instead; the list of "
                       "exceptions in pyproject.toml only shrinks")


def test_the_check_finds_a_relaxed_module_and_ignores_third_party_ones():
    config = {"overrides": [
        {"module": ["app.widgets.*", "torch.*"], "strict_optional": False},
        {"module": "vpu_core.layout.placement", "ignore_errors": True, "strict_optional": True},
        {"module": ["networkx.*", "pyqtgraph.*"], "ignore_missing_imports": True, "follow_imports": "skip"},
        {"module": "app", "disable_error_code": ["union-attr"]},
    ]}
    assert relaxations(config) == {("app.widgets.*", "strict_optional"),
                                   ("vpu_core.layout.placement", "ignore_errors"),
                                   ("app", "disable_error_code")}
