"""Scalable graph canvas: GraphView (QGraphicsView) painting a GraphModel + Layout.

    view = GraphView(); view.set_graph(model, layout_graph(model))
    view.node_selected.connect(...); view.center_on(id); view.search("conv"); view.fit()
    render_to_image(model, layout, "graph.svg")      # headless, whole graph + legend

Views never analyse: they only paint what the model and the layout say.
"""
from .export import render_to_image, render_view_to_image
from .scene import GraphScene
from .style import Theme
from .view import GraphView

__all__ = ["GraphView", "GraphScene", "Theme", "render_to_image", "render_view_to_image"]
