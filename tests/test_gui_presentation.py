"""Presentation mode's first view on a real model at 1280×720: 1:1 (its larger labels larger on
screen, never fit-zoomed back down), group titles in the labels' font, and the larger legend
folded to its chip where, unfolded, it covered the first nodes (GPT-2's mask arithmetic)."""
from __future__ import annotations

import pytest

from conftest import CORPUS_DIR

CANVAS = (938, 562)          # the graph canvas of a 1280×720 window


def _view(qtbot, analysis, presentation: bool):
    from app.graph_view import GraphView
    from app.graph_view.style import Theme
    from vpu_core.config import ViewOptions
    from vpu_core.inspection import display_graph

    theme = Theme.make(presentation=presentation)
    shown = display_graph(analysis, ViewOptions(label_scale=theme.label_scale()))
    v = GraphView()
    qtbot.addWidget(v)
    v.set_presentation(presentation)
    v.resize(*CANVAS)
    v.show()
    qtbot.waitExposed(v)
    v.set_graph(shown.model, shown.layout, shown.grouped)
    return v


@pytest.mark.slow
def test_presentation_opens_gpt2_at_1_to_1_with_large_titles_and_its_legend_folded(qtbot):
    from app.graph_view.groups import GroupItem
    from app.graph_view.style import Theme
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    analysis = default_session().analysis(RunConfig(model=f"{CORPUS_DIR}/gpt2_text.py"))
    default = _view(qtbot, analysis, presentation=False)
    assert not default.legend_collapsed()
    v = _view(qtbot, analysis, presentation=True)
    assert v.zoom() == 1.0
    # the larger legend never covers a node of the first view: folded to its chip when, unfolded,
    # it would (it covered the mask arithmetic above the first GPT2Block while it listed a row per
    # partition shade; one green and its numbered tags make it short enough to sit beside them)
    from app.graph_view.fit import legend_covers_nodes

    assert (v.legend_collapsed() and v.legend_geometry() is None) or not legend_covers_nodes(v)
    label_px = Theme.make(presentation=True).label_font.pixelSize()
    assert label_px >= 1.4 * Theme.make().label_font.pixelSize()
    groups = [it for it in v.graph_scene().items.values() if isinstance(it, GroupItem)]
    assert groups, "GPT-2 opens on closed GPT2Blocks"
    for it in groups:                         # each title whole, in the labels' larger font
        (title, font), _ = it.drawn_texts()
        assert title == "▸ " + it.node.label and font.pixelSize() == label_px, (title, font.pixelSize())
    on_screen = [g for g in groups if v.mapFromScene(g.box).boundingRect().intersects(v.viewport().rect())]
    assert on_screen, "the first view shows a transformer block"
