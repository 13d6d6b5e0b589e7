"""The GUI is composed, not mixed in. Parses app/'s sources (no imports, no Qt).

A mixin-style helper is one of our classes that a class inherits for behaviour while its real base
is something else. Three shapes are refused:
  - a class named *Mixin;
  - a class of ours inherited beside a second base (`class GraphView(GroupingMixin, QGraphicsView)`);
  - a base-less class of ours inherited at all: it only works through attributes of the class it
    is mixed into (`class Grouping: ...` then `class Canvas(Grouping)` with Canvas a Qt class
    further down).
Single inheritance from a real base class of ours (`SyncedGraphView(GraphView)`) is fine. Features
and canvas helpers are composed instead (`view.groups = GroupNavigator(view)`), talking to their
owner through a typing.Protocol they declare, which nobody needs to subclass.
"""
from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app"


def _classes(sources: dict[str, str]) -> list[tuple[str, ast.ClassDef]]:
    return [(name, node) for name, text in sources.items()
            for node in ast.walk(ast.parse(text, filename=name)) if isinstance(node, ast.ClassDef)]


def _base_names(cls: ast.ClassDef) -> list[str]:
    return [ast.unparse(b).split(".")[-1] for b in cls.bases]     # grouping.GroupingMixin -> GroupingMixin


def mixin_offences(sources: dict[str, str]) -> list[str]:
    """Every class in `sources` ({file name: Python text}) that is or uses a mixin-style helper."""
    classes = _classes(sources)
    ours = {c.name: c for _, c in classes}
    out = []
    for where, c in classes:
        bases = _base_names(c)
        own = [b for b in bases if b in ours]
        if "mixin" in c.name.lower():
            out.append(f"{where}: {c.name} is named a mixin")
        if own and len(bases) > 1:
            out.append(f"{where}: {c.name}({', '.join(bases)}) mixes {', '.join(own)} in beside another base")
        out += [f"{where}: {c.name} inherits {b}, a helper with no base of its own" for b in own
                if not [x for x in _base_names(ours[b]) if x != "object"]]
    return out


def _app_sources() -> dict[str, str]:
    return {str(p.relative_to(APP.parent)): p.read_text(encoding="utf-8") for p in sorted(APP.rglob("*.py"))}


def test_no_class_in_app_is_or_uses_a_mixin():
    sources = _app_sources()
    assert len(_classes(sources)) > 50                          # the scan found the GUI's classes
    assert mixin_offences(sources) == []


def test_the_canvas_composes_its_group_navigator_highlights_and_search():
    view = _app_sources()["app/graph_view/view.py"]
    graph_view = next(c for _, c in _classes({"view": view}) if c.name == "GraphView")
    assert _base_names(graph_view) == ["QGraphicsView"]
    for part in ("GroupNavigator(self)", "Highlights(self)", "SearchMatches()"):
        assert part in view


def test_the_check_catches_the_old_grouping_mixin_and_its_disguises():
    old = {"grouping.py": "class GroupingMixin:\n    _grouped = None\n",
           "view.py": "from .grouping import GroupingMixin\n"
                      "class GraphView(GroupingMixin, QGraphicsView):\n    pass\n"}
    assert len(mixin_offences(old)) == 3                 # named so; mixed beside a base; base-less
    renamed = {"a.py": "class Grouping:\n    pass\n"
                       "class Canvas(Grouping):\n    pass\n"
                       "class Panel(QWidget, grouping.Grouping):\n    pass\n"}
    found = mixin_offences(renamed)
    assert any("Canvas inherits Grouping" in f for f in found)
    assert any("Panel(QWidget, Grouping) mixes Grouping" in f for f in found)
    composed = {"a.py": "class Navigator:\n    def __init__(self, view):\n        self.view = view\n"
                        "class Canvas(QGraphicsView):\n    def __init__(self):\n"
                        "        self.groups = Navigator(self)\n"
                        "class Synced(Canvas):\n    pass\n"}
    assert mixin_offences(composed) == []
