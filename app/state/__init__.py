"""The application state (app.state.app_state.AppState) and the values it holds (app.state.values).

Widgets never import this package (import contract "GUI layers"): the feature controllers in
app.features bind widgets to the state's fields.
"""
from app.state.app_state import MAX_RECENT, AppState
from app.state.evented import Evented, Field
from app.state.values import SIDES, CompareB, Look, RunStatus, Search, Selection

__all__ = ["AppState", "CompareB", "Evented", "Field", "Look", "MAX_RECENT", "RunStatus", "SIDES", "Search",
           "Selection"]
