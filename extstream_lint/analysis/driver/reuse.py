"""Reusing what an earlier run kept: entries checked, stored summaries revived, cycles replayed.

A mixin of :class:`.index.ProjectIndex`: everything that decides whether a kept entry
still holds (its file's stamp, the paths it probed, the digests it read) and turns a
stored entry back into a summary, lazily (:mod:`.shells`). A damaged entry is computed
again, never trusted (:meth:`Reuse._recompute` in :mod:`.components`).
"""

from __future__ import annotations

import io
import pickle
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ...project import safe_pickle
from ...project.modules import stamp_holds
from ..abstract.values import ClassInfo, FunctionInfo, Module
from .digests import ABSENT, RUNS_KEY, copy_reads, group_key, reading_holds, same_presence
from .entries import Entry, StoredEntry
from .importer import REMAPS, RunState, head_package, package_of, remaps_answer
from .shells import Shell, fill_held

if TYPE_CHECKING:
    from .protocol import Index

    _Base = Index
else:
    _Base = object

__all__ = ["Reuse"]

_PROTOCOL = pickle.HIGHEST_PROTOCOL
#: Summaries pickled, by module name (tests count them: a run that keeps nothing for a
#: later one pickles none).
BODIES: Counter[str] = Counter()


class Reuse(_Base):
    """The index's reuse of kept entries (a mixin: its state is the index's)."""

    def _body(self, module: Module, members: dict[str, Module]) -> bytes | None:
        """The fields of ``module``'s summary, pickled with every project module they hold
        (a final one, or a member of the cycle being computed) named, not copied, and every
        function or class a final module outside the cycle exports named by that module
        and export (a class imported and registered on, :mod:`..interp.dispatch`, is then
        the exporter's own class when revived, as it is in a fresh summary): resolved by
        :meth:`_revived`. ``None`` if they cannot be pickled (then not kept)."""
        BODIES[module.name] += 1
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=_PROTOCOL)
        homes = self._homes

        def record(value: object) -> object:
            home = homes.get(value)
            if home is not None:
                entry = self._entries.get(home[0])
                name = entry.module.name if isinstance(entry, Entry) else None
                final = self._modules.get(name) if name not in members else None  # type: ignore[arg-type]
                if final is not None and final.exports.get(home[1]) is value:
                    return safe_pickle.reference, ("export", name, home[1])
            return value.__reduce_ex__(_PROTOCOL)

        def held(value: Module) -> object:
            if value.name in members or self._modules.get(value.name) is value:
                return safe_pickle.reference, ("module", value.name)
            return value.__reduce_ex__(_PROTOCOL)

        # The references, by a table of the four types that may be one (consulted for them
        # alone; a ``persistent_id`` was called for every object pickled, a million calls
        # on the standard library).
        table: dict[type, object] = {FunctionInfo: record, ClassInfo: record}
        table[Module] = table[Shell] = held
        pickler.dispatch_table = table  # type: ignore[assignment]
        try:
            pickler.dump((module.exports, module.all_names, module.path))
        except Exception:  # unpicklable: simply not kept
            return None
        return buffer.getvalue()

    def _foreign(self, path: str) -> Callable[[object], tuple[str, str, str] | None]:
        """For the digest of ``path``'s summary: a function or class another module
        exported, as (that module's file, the export, the export's digest as it is now);
        ``None`` for one of ``path``'s own. Another module's facts then count by their
        digest, as a held module does, not by the objects that carry them: a summary
        revived from the cache holds copies where a fresh one shares, and the same facts
        must have the same digest either way."""
        homes, exports = self._homes, self._exports

        def foreign(record: object) -> tuple[str, str, str] | None:
            home = homes.get(record)
            if home is None or home[0] == path:
                return None
            return home[0], home[1], exports.get(home[0], {}).get(home[1], ABSENT)

        return foreign

    def _own(self, path: str, module: Module) -> None:
        """Record ``path`` as the home of the functions and classes ``module`` exports (and
        of the classes' methods, under the class's name)."""
        homes = self._homes
        for name, value in module.exports.items():
            kind = type(value)
            if kind is FunctionInfo:
                homes.setdefault(value, (path, name))
            elif kind is ClassInfo:
                homes.setdefault(value, (path, name))
                for method in value.methods.values():  # type: ignore[union-attr]
                    homes.setdefault(method, (path, name))

    def _revived(
        self, path: str, stored: StoredEntry, module: Module, members: dict[str, Module]
    ) -> Entry:
        """The entry ``stored`` describes, its summary's fields put into ``module`` (when
        first used, if it is a :class:`Shell`): the modules it names are ``members`` (by
        name) or final summaries. Raises on a name that is neither."""

        def resolve(reference: object) -> object:
            kind, name, *export = reference  # type: ignore[misc]
            found = members.get(name) or self._module_named(name)
            if kind == "export" and found is not None and name not in members:
                return found.exports[export[0]]  # another module's function or class
            if kind != "module" or found is None:
                raise KeyError(f"a stored summary names {name!r}, which is not known")
            return found

        def fill(target: Module) -> None:
            body = safe_pickle.loads(stored.body, resolve)
            target.exports, target.all_names, target.path = body  # type: ignore[misc]
            self._own(path, target)

        if isinstance(module, Shell):
            module.wake_with(lambda target: self._woken(path, stored, target, fill))
        else:
            fill(module)
        entry = Entry(module, stored.stamp, dict(stored.deps), stored.external, dict(stored.links))
        entry.digest, entry.group = stored.digest, self._groups.get(stored.group, ())
        entry.exports, entry.reads = dict(stored.exports), copy_reads(stored.reads)
        return entry

    def _woken(
        self, path: str, stored: StoredEntry, module: Module, fill: Callable[[Module], None]
    ) -> None:
        """Unpickle the summary of ``path`` into ``module``, asked for its facts for the
        first time. One that cannot be read (found only now) is computed from source and
        never stored again: a replay, while its cycle is computed, alone (its readings
        held: the same summary); a final one with its whole component, as :meth:`_revive`
        does. ``module``, which readers hold, gets what the computation found."""
        try:
            fill(module)
            return
        except Exception:  # a damaged body: computed again
            pass
        if any(path in working for working in self._working):
            self._unreadable.add(path)
            prepared = self._prepare(path)
            entry = self._summarise(path, *prepared) if prepared is not None else None
            fill_held(module, entry.module if entry is not None else Module(stored.name))
            return
        state = self._run()
        current = self._entries.get(path)
        if not isinstance(current, Entry) or current.module is module:
            # A replay's record has no group yet (set when its cycle is final): the entry's.
            group = current.group if isinstance(current, Entry) and current.group else None
            self._recompute(path, group or self._groups.get(stored.group, (path,)), state)
            current = self._entries.get(path)
        fill_held(module, current.module if isinstance(current, Entry) else Module(stored.name))

    def _loaded(self, found: dict[str, Entry | StoredEntry]) -> dict[str, Entry]:
        """The entries of one component, the stored ones revived as shells: each summary is
        unpickled when first used (:class:`Shell`), so asking for one module of a
        2,500-module cycle does not unpickle all of them; their references to final
        summaries resolve to the component's own modules or to those already final
        (every link was settled by the check)."""
        shells = {
            entry.name: Shell(entry.name)
            for entry in found.values()
            if isinstance(entry, StoredEntry)
        }
        members = {
            entry.module.name: entry.module for entry in found.values() if isinstance(entry, Entry)
        }
        members.update(shells)
        return {
            path: entry
            if isinstance(entry, Entry)
            else self._revived(path, entry, shells[entry.name], members)
            for path, entry in found.items()
        }

    def _replay(
        self, member: str, members: dict[str, Module], state: RunState
    ) -> tuple[Entry | None, StoredEntry | None]:
        """A summary of ``member`` kept from an earlier computation whose file and
        readings all hold now (a verifying trace: the same inputs, read in the same
        order, give the same summary), revived; ``(None, None)`` if there is none."""
        kept = self._runs.get(member)
        if kept is None and self.cache is not None:
            loaded = self.cache.load(member, RUNS_KEY)  # type: ignore[attr-defined]
            kept = loaded if isinstance(loaded, list) else []
            self._runs[member] = kept
        for stored in kept or ():
            try:
                if not isinstance(stored, StoredEntry) or not self._entry_holds(
                    stored, member, state
                ):
                    continue
                return self._revived(member, stored, Shell(stored.name), members), stored
            except Exception:  # a damaged record: summarised from source
                continue
        return None, None

    def _reusable(
        self, members: tuple[str, ...], state: RunState, stored: dict[str, StoredEntry]
    ) -> bool:
        """Whether every member has an entry (in memory or on disk) made for this very
        component, from the files as they are, from the digests that hold now. The
        entries read from disk are put in ``stored``: a member computed again to the same
        entry is not written again."""
        if self._damaged.intersection(members):
            return False
        found: dict[str, Entry | StoredEntry] = {}
        for member in members:
            entry: Entry | StoredEntry | None = self._entries.get(member)
            if entry is None and self.cache is not None:
                loaded = self.cache.load(member)  # type: ignore[attr-defined]
                entry = loaded if isinstance(loaded, StoredEntry) else None
                if entry is not None:
                    stored[member] = entry
            if entry is None:
                return False
            found[member] = entry
        key = group_key(members)
        try:
            for member, entry in found.items():
                # a stored entry names its component by key; one in memory holds the members
                if entry.group != (members if isinstance(entry, Entry) else key):
                    return False
                if not self._entry_holds(entry, member, state, found):
                    return False
        except Exception:  # a damaged entry: recomputed
            return False
        self._groups[key] = members  # what the stored entries' keys name, shared
        # Final now; a stored summary is unpickled only when asked for (:meth:`_revive`):
        # checking kept findings needs the digests alone.
        for path, entry in found.items():
            self._entries[path] = entry
            self._exports[path] = entry.exports
            if isinstance(entry, StoredEntry):
                self._by_name[entry.name] = entry.digest
                self._stored_names[entry.name] = path
            else:
                self._by_name[entry.module.name] = entry.digest
                self._modules[entry.module.name] = entry.module
        return True

    def _entry_holds(
        self,
        entry: Entry | StoredEntry,
        path: str,
        state: RunState,
        found: dict[str, Entry | StoredEntry] | None = None,
    ) -> bool:
        """Whether the summary ``entry`` of ``path`` would be computed the same now: the
        file is unchanged, every path probed is still there or still absent, and every
        reading of another module holds (``found``: the entries of ``path``'s component
        being checked with it, compared with one another)."""
        if not stamp_holds(path, entry.stamp) or not same_presence(entry.deps):
            return False
        return self._readings_hold(entry.links, entry.reads, path, state, found)

    def _readings_hold(
        self,
        links: Mapping[str, str | None],
        reads: dict[str, dict[str, str] | None],
        importer: str | None,
        state: RunState,
        found: dict[str, Entry | StoredEntry] | None = None,
    ) -> bool:
        """Whether every module read (``links``, ``reads``) reads the same now, as the
        summary of ``importer`` would see it (``None``: a linted file, which follows all)."""
        for link, digest in links.items():
            if link.startswith(REMAPS):  # the text graph's answer, not a summary
                if remaps_answer(self.graph(), link[len(REMAPS) :]) != digest:
                    return False
                continue
            names = reads.get(link)
            if found is not None and link in found:
                other = found[link]
                now, exports = other.digest or None, other.exports
            else:
                if importer is None:
                    now = self._current_digest(link, state)
                else:
                    now = self._digest_now(link, importer, state)
                exports = self._exports.get(link, {})
            if not reading_holds(digest, names, now, exports):
                return False
        return True

    def _revive(self, path: str, state: RunState) -> Entry | None:
        """Revive the stored entries of the component of ``path`` (final, checked), each
        summary unpickled when first used; if one is damaged, the component is computed
        again instead (then or when it is used: :meth:`_woken`)."""
        stored = self._entries[path]
        group = self._groups.get(stored.group, (path,))  # type: ignore[union-attr]
        found = {m: self._entries[m] for m in group if m in self._entries}
        try:
            entries = self._loaded(found)
        except Exception:
            self._recompute(path, tuple(found), state)
            entry = self._entries.get(path)
            return entry if isinstance(entry, Entry) else None
        for member, entry in entries.items():
            self._entries[member] = entry
            self._modules[entry.module.name] = entry.module
            self._stored_names.pop(entry.module.name, None)
        return entries.get(path)

    def _module_named(self, name: str) -> Module | None:
        """The final summary of module ``name``, unpickled if it was not yet."""
        module = self._modules.get(name)
        if module is None and name in self._stored_names:
            self._revive(self._stored_names[name], self._run())
            module = self._modules.get(name)
        return module

    def _digest_now(self, link: str, importer: str, state: RunState) -> str | None:
        """The digest ``importer`` would use for ``link`` now (``None``: not followed)."""
        roots = self.roots(importer)
        package = package_of(importer, roots)
        if not (package is not None and head_package(link, roots) == package) and not self.follows(
            link
        ):
            return None
        return self._current_digest(link, state)

    def _current_digest(self, link: str, state: RunState) -> str:
        """The digest of the summary of ``link`` as a reader gets it now ("": none)."""
        for working in reversed(self._working):
            if link in working:  # a member of a cycle being computed: as it is now
                return working[link][1]
        if link not in state.final:
            self._settle_from(link, state)
        entry = self._entries.get(link)
        return entry.digest if entry is not None else ""
