"""Import statements: what each name bound by ``import`` or ``from ... import`` stands for.

A module of the project, when the :class:`~..facts.ModuleFacts` provider knows it (its
summary's exports, submodules, ``*`` by ``__all__``), else a :class:`~..values.Ref` to the
dotted name, canonicalised (``torch_npu`` imported makes ``torch.cuda`` mean ``torch.npu``).
Relative imports are resolved against this module's name.

Importing ``a.b.c`` runs ``a/__init__.py``, then ``a/b/__init__.py``, then the module
(language reference 5.2), and what they import is imported for the whole process: an
import's effects (``transfer_to_npu`` remapping ``torch.cuda``) are those of every package on
the way, whatever the statement binds (``from a.b import f`` too), and a module's own
packages have run before it (:meth:`Imports.package_effects`). Packages are asked for only
where the text graph says they may remap (:meth:`..facts.ModuleFacts.remaps`): a project
that never imports ``transfer_to_npu`` pays nothing.
"""

from __future__ import annotations

import libcst as cst

from ...project.modules import absolute_name
from ..abstract.atoms import Const, Ref
from ..abstract.state import State
from ..abstract.values import Module, Value
from ..semantics.effects import STAR_EXPORTS, canonical, enables_transfer_to_npu
from ..source.syntax import dotted_name
from .core import Scope

#: The module-level name a module's summary holds when importing it remaps ``torch.cuda``
#: (not an identifier a program can bind; ``from m import *`` skips it).
TRANSFER_MARK = "__transfer_to_npu__"


class Imports:
    """``import`` and ``from ... import`` statements: what each name they bind stands for."""

    def _remap_cuda(self) -> None:
        """``torch.cuda`` is torch_npu's from here on, for this module and, process-wide,
        for every module that imports it (contract section 3): its summary says so."""
        self.transfer_to_npu = True
        module_scope = self._scopes.get(self.module)
        if module_scope is not None and self.learning:
            module_scope.summary[TRANSFER_MARK] = Const(True)

    def _import_effects(self, *names: str | None) -> None:
        """Importing a project module runs it, after every package above it: if one of
        them (or a module they import) imports ``transfer_to_npu``, ``torch.cuda`` is
        remapped here too. Each module is asked of the text graph first: where it cannot
        remap (nothing it or its packages run spells ``transfer_to_npu``), no summary is
        (``import pkg.adapter as ad`` would otherwise summarise ``pkg/__init__.py``,
        which follows its whole package)."""
        if self.transfer_to_npu or self.facts is None:
            return
        for name in names:
            if not name or not self.facts.remaps(name):
                continue
            if self._remapped_by(name) or self._remapped_by_packages(name):
                return

    def package_effects(self) -> None:
        """This module's own packages ran before it (``pkg/__init__.py`` before
        ``pkg/user.py``): their import effects are in force from its first line."""
        if self.facts is not None and not self.transfer_to_npu and self.module_name:
            self._remapped_by_packages(self.module_name)  # a package's own: those above

    def _remapped_by_packages(self, name: str) -> bool:
        """The packages above module ``name`` (``a``, ``a.b`` for ``a.b.c``), outermost
        first, each asked for only if the text graph says it may remap ``torch.cuda``."""
        parts = name.split(".")[:-1]
        for end in range(1, len(parts) + 1):
            package = ".".join(parts[:end])
            if self.facts.remaps(package) and self._remapped_by(package):  # type: ignore[union-attr]
                return True
        return False

    def _remapped_by(self, name: str) -> bool:
        """Whether project module ``name``'s summary remaps ``torch.cuda`` (then so here)."""
        module = self._project_module(name)
        if module is None:
            return False
        self.facts.read(module.name, TRANSFER_MARK)  # type: ignore[union-attr]
        if TRANSFER_MARK in module.exports:
            self._remap_cuda()
            return True
        return False

    def _import(self, alias: cst.ImportAlias, state: State, scope: Scope) -> None:
        full = dotted_name(alias.name)
        if full is None:
            return
        if enables_transfer_to_npu(full):
            self._remap_cuda()
        else:
            self._import_effects(full.split(".", 1)[0], full if alias.asname else None)
            # ``import a.b`` runs ``a.b`` too, though it binds only ``a``
            plain = "." in full and not alias.asname and not self.transfer_to_npu
            if plain and self.facts is not None and self.facts.remaps(full):
                self._remapped_by(full)
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            found = self._project_module(full)
            value: Value = (
                found if found is not None else Ref(canonical(full, self.transfer_to_npu))
            )
            self.bind(alias.asname.name.value, value, state, scope)
        else:
            head = full.split(".", 1)[0]
            found = self._project_module(head)
            self.bind(head, found if found is not None else Ref(head), state, scope)
            if found is not None and full != head:  # ``import a.b`` ran ``a.b`` too
                self._ran(found, state, scope)
                found = self._project_module(full)
        if found is not None:
            self._ran(found, state, scope)

    def _ran(self, module: Module, state: State, scope: Scope) -> None:
        """A project module was imported, so it ran: what it did to other modules' objects
        (``singledispatch`` registrations, :mod:`.dispatch`; stores into their globals,
        :mod:`.registries`) holds here from now on."""
        self.imported_registrations(module, scope.kind == "module")
        self.imported_stores(module, state, scope)

    def _import_from(self, stmt: cst.ImportFrom, state: State, scope: Scope) -> None:
        module = dotted_name(stmt.module) if stmt.module is not None else None
        relative = bool(stmt.relative)
        source = self._project_module(
            absolute_name(module, len(stmt.relative), self.module_name, self.is_package)
        )
        if source is not None:
            self._import_effects(source.name)
            self._ran(source, state, scope)
            self._import_project(stmt, source, state, scope)
            return
        if self._import_submodules(stmt, state, scope):
            return
        if isinstance(stmt.names, cst.ImportStar):
            if module and not relative:
                base = canonical(module, self.transfer_to_npu)
                for name in STAR_EXPORTS.get(base, ()):
                    self.bind(name, Ref(f"{base}.{name}"), state, scope)
            return
        target = absolute_name(module, len(stmt.relative), self.module_name, self.is_package)
        for alias in stmt.names:
            name, local = _imported_as(alias)
            if module and not relative:
                full = f"{module}.{name}"
                if enables_transfer_to_npu(full):
                    self._remap_cuda()
                self.bind(local, Ref(canonical(full, self.transfer_to_npu)), state, scope)
            else:
                self.bind(local, None, state, scope)
            self.note_imported(local, target or "", name, scope)  # a module not followed

    def _import_submodules(self, stmt: cst.ImportFrom, state: State, scope: Scope) -> bool:
        """``from pkg import adapter`` where ``pkg`` itself is not followed (a plain package
        reached through another module) but its submodule ``pkg.adapter`` matters."""
        if type(stmt.names) is cst.ImportStar or self.facts is None:
            return False
        base = absolute_name(
            dotted_name(stmt.module) if stmt.module is not None else None,
            len(stmt.relative),
            self.module_name,
            self.is_package,
        )
        if not base:
            return False
        found = {}
        for alias in stmt.names:
            name, local = _imported_as(alias)
            module = self._project_module(f"{base}.{name}")
            if module is not None:
                found[local] = module
        if not found:
            return False
        self._import_effects(*(module.name for module in found.values()))
        for module in found.values():
            self._ran(module, state, scope)
        for alias in stmt.names:
            local = _imported_as(alias)[1]
            self.bind(local, found.get(local), state, scope)
        return True

    def _import_project(
        self, stmt: cst.ImportFrom, source: Module, state: State, scope: Scope
    ) -> None:
        """``from pkg.streams import make_ext``: the names the module's summary holds."""
        if isinstance(stmt.names, cst.ImportStar):
            if self.facts is not None:
                self.facts.read(source.name, None)
            names = source.all_names
            if names is None:
                names = tuple(n for n in source.exports if not n.startswith("_"))
            for name in names:
                self.bind(name, self._attribute_of(source, name, None), state, scope)
            return
        for alias in stmt.names:
            name, local = _imported_as(alias)
            value = self._attribute_of(source, name, None)
            self.bind(local, value, state, scope)
            self.note_imported(local, source.name, name, scope)  # registries.py
            if isinstance(value, Module) and value.name == f"{source.name}.{name}":
                self._import_effects(value.name)  # ``from . import _setup``: it runs
                self._ran(value, state, scope)


def _imported_as(alias: cst.ImportAlias) -> tuple[str, str]:
    """``from m import name as local``: (name, local)."""
    name = dotted_name(alias.name) or ""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return name, alias.asname.name.value
    return name, name
