"""The window is composed over one state: every feature controller holds the state and
the widgets it owns — never the window, never another controller — and the widgets it is given
satisfy the Protocol its constructor declares. The import contracts (pyproject, lint-imports) say
the same of the modules; this checks the objects of a real window."""
from __future__ import annotations

import inspect
import sys

from app.state import AppState


def _controllers(window) -> dict[str, object]:
    return {name: obj for name, obj in vars(window).items()
            if type(obj).__module__.startswith("app.features.")}


def _held(obj) -> list[object]:
    """What a controller refers to: its attributes and the items of its tuples, lists and dicts."""
    out = []
    for value in vars(obj).values():
        out.append(value)
        if isinstance(value, (tuple, list)):
            out += list(value)
        elif isinstance(value, dict):
            out += list(value.keys()) + list(value.values())
    return out


def _protocol_of(function, param: str):
    """The class a parameter is annotated with, when it is defined at run time (not a
    TYPE_CHECKING import) — else None."""
    annotation = function.__annotations__.get(param)
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, vars(sys.modules[function.__module__]))    # noqa: S307 (our own source)
    except (NameError, TypeError, AttributeError):
        return None


def test_controllers_hold_the_state_and_their_widgets_never_the_window_or_each_other(window):
    controllers = _controllers(window)
    assert {"runs", "display", "status", "navigation", "presenter", "overlay", "compare", "files",
            "exports", "view_options", "whatif", "settings"} <= set(controllers)
    for name, controller in controllers.items():
        held = _held(controller)
        assert not any(value is window for value in held), f"{name} holds the window"
        others = [c for c in controllers.values() if c is not controller]
        assert not any(value is other for value in held for other in others), f"{name} holds another controller"
        assert controller.state is window.state and isinstance(controller.state, AppState)
        assert controller.parent() is window.state          # they live and die with the state


def test_each_widget_given_to_a_controller_has_what_its_protocol_declares(window):
    """Structural check of the Protocol-typed constructor parameters against the real widgets."""
    checked = 0
    for name, controller in _controllers(window).items():
        init = type(controller).__init__
        for param in inspect.signature(init).parameters:
            proto = _protocol_of(init, param)
            if not (isinstance(proto, type) and getattr(proto, "_is_protocol", False)):
                continue
            given = getattr(controller, param, None)
            if given is None:
                continue
            members = [m for m in vars(proto) if not m.startswith("_")] + list(getattr(proto, "__annotations__", {}))
            missing = [m for m in members if not hasattr(given, m)]
            assert not missing, f"{name}.{param} ({type(given).__name__}) lacks {missing} of {proto.__name__}"
            checked += 1
    assert checked >= 10
