"""The application state (app.state.app_state.AppState) and the values it holds (app.state.values).

Widgets never import this package (import contract "GUI layers"): the feature controllers in
app.features bind widgets to the state's fields.
"""
from app.state.app_state import MAX_RECENT, AppState
from app.state.evented import Evented, Field
from app.state.values import CompareB, Look, RunStatus, Search, Selection
from vpu_core.compare import SIDES, Side

__all__ = ["AppState", "CompareB", "Evented", "Field", "Look", "MAX_RECENT", "RunStatus", "SIDES", "Search",
           "Selection", "Side"]
