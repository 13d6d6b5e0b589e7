"""Declared, evented fields (napari's EventedModel, on Qt signals).

    class Look(Evented):
        large_font = Field(False, "bigger labels for projectors")
        large_font_changed = Signal()

    look.large_font = True          # stores it and emits large_font_changed once; the same value: nothing

A field is declared once, with its default and what it means; every field has its `NAME_changed`
signal (checked when the class is defined). Fields whose change must keep an invariant are
`readonly`: they change only through the owner's methods (which call `_assign`), so nobody can
bypass the invariant by assigning. Values are immutable (frozen dataclasses, tuples, None…), so
"changed" is a plain comparison (`same`: equality by default, identity for large results).
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Generic, TypeVar, overload

from PySide6.QtCore import QObject

T = TypeVar("T")


class Field(Generic[T]):
    def __init__(self, default: T, doc: str = "", *, readonly: bool = False, emit_value: bool = False,
                 same: Callable[[Any, Any], bool] = operator.eq) -> None:
        self.default, self.doc, self.readonly = default, doc, readonly
        self.emit_value, self.same = emit_value, same
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @property
    def signal(self) -> str:
        return f"{self.name}_changed"

    @overload
    def __get__(self, obj: None, owner: type) -> Field[T]: ...

    @overload
    def __get__(self, obj: object, owner: type) -> T: ...

    def __get__(self, obj: object | None, owner: type) -> Field[T] | T:
        if obj is None:
            return self
        return obj.__dict__.get(self.name, self.default)

    def __set__(self, obj: Evented, value: T) -> None:
        if self.readonly:
            raise AttributeError(f"{type(obj).__name__}.{self.name} keeps an invariant: change it "
                                 "through the state's methods")
        obj._assign(self.name, value)


class Evented(QObject):
    """A QObject whose declared Fields announce their changes (see the module docstring)."""

    _fields: dict[str, Field[Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields: dict[str, Field[Any]] = {}
        for klass in reversed(cls.__mro__):
            fields.update({k: v for k, v in vars(klass).items() if isinstance(v, Field)})
        for name, field in fields.items():
            if not hasattr(cls, field.signal):
                raise TypeError(f"{cls.__name__}.{name} is evented but declares no {field.signal} signal")
        cls._fields = fields

    @classmethod
    def fields(cls) -> dict[str, Field[Any]]:
        """Every declared field by name, in declaration order (base classes first)."""
        return dict(cls._fields)

    def _store(self, name: str, value: Any) -> None:
        """Store `value` in field `name` without a signal (an owner's method announces it later)."""
        self.__dict__[name] = value

    def _assign(self, name: str, value: Any, force: bool = False) -> bool:
        """Store `value` in field `name`; emit its signal when it changed (or `force`). True: emitted."""
        field = self._fields[name]
        if not force and field.same(self.__dict__.get(name, field.default), value):
            return False
        self.__dict__[name] = value
        signal = getattr(self, field.signal)
        if field.emit_value:
            signal.emit(value)
        else:
            signal.emit()
        return True
