"""What a class guarantees: the attributes every instance gets from the class's own code.

A method reading ``self.s`` is summarised with ``self`` symbolic: a caller that allocated
the instance substitutes what that allocation holds (allocation-site precision), and with no
caller visible (a thread's target, an executor, a registry, a callback) the read answers the
class's own join of the assignments to ``s`` in its methods, one abstract location per class
and attribute, as pyright infers an attribute's type from every assignment in the class and
CodeQL's type tracking keeps one location per class and attribute. ``self.x = v`` in a
method already feeds that join (:meth:`.core.Core.bind_target`); this module adds the
other ways a class's own code gives its instances an external stream:

* a classmethod (or any method of the class) constructing ``cls(make())`` /
  ``Cls(make())``: what the constructed instance holds;
* ``__new__`` (bound to the class, as Python binds it) allocating with
  ``super().__new__(cls)`` / ``object.__new__(cls)`` and setting attributes on the new
  object, directly or through a class cache (``cls._cache.s = make()``);
* a class attribute set through ``cls.`` in a classmethod (``cls.s = make()``).

Only external streams the class makes itself are joined in (not a parameter, which is the
caller's, and not a managed stream, which would hide a caller's external one): the join
answers "external" only where the class's own code makes it so.
"""

from __future__ import annotations

from ..abstract.atoms import ExtStream
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Value
from .datamodel import is_metaclass_of


class Guarantees:
    """The class-level join of what a class's own code stores on its instances."""

    def note_method_class(self, info: FunctionInfo, cls: ClassInfo | None) -> None:
        """``info``'s body runs as a method of ``cls`` (its own code)."""
        if cls is not None:
            self.__dict__.setdefault("_method_classes", {})[id(info)] = cls

    def own_class(self) -> ClassInfo | None:
        """The class whose method is being analysed, if any."""
        info = self._function  # type: ignore[attr-defined]
        if info is None:
            return None
        found: ClassInfo | None = self.__dict__.get("_method_classes", {}).get(id(info))
        return found

    def in_own_code(self, cls: ClassInfo) -> bool:
        """Whether the body being analysed is a method of ``cls``, of a base of it or of a
        class derived from it (``cls(...)`` in a base's classmethod makes a subclass)."""
        own = self.own_class()
        if own is None:
            return False
        # a metaclass's ``__call__`` runs at every ``Cls(...)``: its code is the class's too
        return own is cls or own in cls.mro() or cls in own.mro() or is_metaclass_of(own, cls)

    def guarantee(self, cls: ClassInfo, name: str, value: Value) -> None:
        """``obj.name = value`` (or a constructor's field) in the class's own code, on an
        object of the class that is not the method's ``self``: the class-level join."""
        if not self.learning or not _made_here(value):  # type: ignore[attr-defined]
            return
        if self.in_own_code(cls):
            self.learn_attr(cls, name, value)  # type: ignore[attr-defined]

    def guarantee_fields(self, made: Value) -> None:
        """An instance constructed in its class's own code: each external stream it holds."""
        if isinstance(made, Instance) and made.param is None:
            for name, value in made.fields:
                self.guarantee(made.cls, name, value)

    def learn_class_attr(self, cls: ClassInfo, name: str, value: Value) -> None:
        """``cls.name = value`` / ``Cls.name = value``: the class's attribute from now on;
        a parameter is the caller's, not the class's."""
        if self.learning and not (isinstance(value, ExtStream) and value.param is not None):  # type: ignore[attr-defined]
            self.learn_attr(cls, name, value)  # type: ignore[attr-defined]


def _made_here(value: Value) -> bool:
    return isinstance(value, ExtStream) and value.param is None and value.current_of is None


__all__ = ["Guarantees"]
