"""The ``match`` statement (PEP 634): which cases may run, and what their patterns bind.

A pattern is matched against the subject's abstract value and answers three things: whether
it surely matches (``True``), surely does not (``False``) or may (``None``); what each
capture binds; and what the subject is known to be inside the case (its *narrowed* value).
Every kind of pattern is one branch of :meth:`Patterns.match_pattern`:

* capture and wildcard (``case s:``, ``case _:``): always match, bind the subject;
* value and literal patterns (``case "overlap":``, ``case MODE.FAST:``, ``case None:``):
  decided when both sides are literals the interpreter knows (:func:`.expressions.compare`),
  so a module-level constant picks the case that runs;
* class patterns: ``ExternalStream()`` narrows the subject to an external stream, as
  ``isinstance`` does (contract section 6), and a later case sees a subject that is not one;
  positional sub-patterns take the record's fields (``__match_args__``), keyword ones the
  attributes;
* sequence patterns with or without a star (the one unpacking routine, :mod:`.unpacking`;
  a known length that cannot fit does not match);
* mapping patterns: a literal key takes the value stored under it, ``**rest`` the items left;
* or-patterns: each alternative on its own copy of the state, joined;
* as-patterns: the name binds the subject as its pattern narrowed it.

A guard runs after the pattern binds, and narrows like an ``if`` test; a literal false guard
drops the case. A case that surely matches with no guard ends the statement: the cases
after it never run, nor does the path that matches none.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.state import State, join_states
from ..abstract.values import ClassInfo, Instance, Seq, Value, is_none, join_all
from ..semantics.effects import is_external_class
from ..source.syntax import dotted_name
from . import summaries as sm
from .constants import const_truth
from .core import Scope, may_contain
from .expressions import NO_KEY, compare, literal_key


class Patterns:
    """``match`` statements: cases, guards and every kind of pattern."""

    def exec_Match(self, node: cst.Match, state: State, scope: Scope) -> State | None:
        subject = self.eval(node.subject, state, scope)
        key = dotted_name(node.subject)
        ends: list[State | None] = []
        rest = state  # the state of the paths no earlier case has taken
        for case in node.cases:
            entry = rest.copy()
            outcome, narrowed = self.match_pattern(case.pattern, subject, entry, scope)
            if outcome is False:
                continue
            if key is not None and narrowed is not subject:
                entry.set_path(key, narrowed)  # ``case ExternalStream():``, ``case None:``
            if case.guard is not None:
                truth = const_truth(self.eval(case.guard, entry, scope))
                if truth is False:
                    continue
                if truth is None:
                    entry, outcome = self.narrow(case.guard, entry, scope)[0], None
            ends.append(self._suite(case.body, entry, scope))
            if outcome is True:  # irrefutable: nothing after it runs
                return join_states(ends)
            if case.guard is None and _is_external_instance(subject):
                tested = _tested_class(case.pattern)
                if tested is not None and self._is_external_class_node(tested, entry, scope):
                    # ``case ExternalStream():`` did not match: not one in the later cases
                    subject = None
                    if key is not None:
                        rest = rest.copy()
                        rest.set_path(key, None)
        ends.append(rest)
        return join_states(ends)

    def _is_external_class_node(self, node: cst.CSTNode, state: State, scope: Scope) -> bool:
        with self._silenced():
            cls = self.eval(node, state, scope)
        return isinstance(cls, Ref) and is_external_class(cls.qualname)

    def match_pattern(
        self, pattern: cst.CSTNode, subject: Value, state: State, scope: Scope
    ) -> tuple[bool | None, Value]:
        """Match ``pattern`` against ``subject``, binding its captures in ``state``: whether
        it matches (``None``: may), and the subject as the pattern narrows it."""
        kind = type(pattern)
        if kind is cst.MatchAs:
            inner = pattern.pattern  # type: ignore[attr-defined]
            outcome, narrowed = (
                (True, subject)
                if inner is None
                else self.match_pattern(inner, subject, state, scope)
            )
            if pattern.name is not None and outcome is not False:  # type: ignore[attr-defined]
                self.bind(pattern.name.value, narrowed, state, scope)  # type: ignore[attr-defined]
            return outcome, narrowed
        if kind is cst.MatchValue or kind is cst.MatchSingleton:
            value = self.eval(pattern.value, state, scope)  # type: ignore[attr-defined]
            same = compare(subject, "is" if kind is cst.MatchSingleton else "==", value)
            if isinstance(same, Const):
                return bool(same.value), subject
            if kind is cst.MatchSingleton and isinstance(value, Const):
                # ``case None:``: an external stream is never None (unless it may be)
                if (
                    isinstance(subject, ExtStream)
                    and subject.param is None
                    and not subject.nullable
                ):
                    return False, subject
                return None, value
            return None, subject
        if kind is cst.MatchClass:
            return self._match_class(pattern, subject, state, scope)  # type: ignore[arg-type]
        if kind is cst.MatchList or kind is cst.MatchTuple:
            return self._match_sequence(pattern, subject, state, scope)  # type: ignore[arg-type]
        if kind is cst.MatchMapping:
            return self._match_mapping(pattern, subject, state, scope)  # type: ignore[arg-type]
        if kind is cst.MatchOr:
            return self._match_or(pattern, subject, state, scope)  # type: ignore[arg-type]
        return None, subject

    def _match_class(
        self, pattern: cst.MatchClass, subject: Value, state: State, scope: Scope
    ) -> tuple[bool | None, Value]:
        cls = self.eval(pattern.cls, state, scope)
        outcome: bool | None = None
        narrowed = subject
        if isinstance(cls, Ref) and is_external_class(cls.qualname):
            if isinstance(subject, (Const, Seq, Instance)) and not is_none(subject):
                return False, subject  # a literal, a container or an object of ours
            if isinstance(subject, ExtStream) and subject.param is None:
                narrowed = replace(subject, must=True, nullable=False)
            else:  # as ``isinstance()`` narrows (a parameter too: the program says so)
                narrowed = ExtStream(True, "matched by a class pattern", pattern)
        instance = subject if isinstance(subject, Instance) else None
        names = cls.fields if isinstance(cls, ClassInfo) else []
        for index, item in enumerate(pattern.patterns):
            name = names[index] if index < len(names) else None
            taken = self._attribute_of(instance, name, None) if instance and name else None
            found, _ = self.match_pattern(item.value, taken, state, scope)
            outcome = _both(outcome, found) if found is False else outcome
        for keyword in pattern.kwds:
            taken = self._attribute_of(subject, keyword.key.value, None)
            found, _ = self.match_pattern(keyword.pattern, taken, state, scope)
            outcome = _both(outcome, found) if found is False else outcome
        return outcome, narrowed

    def _match_sequence(
        self, pattern: cst.MatchList | cst.MatchTuple, subject: Value, state: State, scope: Scope
    ) -> tuple[bool | None, Value]:
        elements = pattern.patterns
        stars = [i for i, e in enumerate(elements) if isinstance(e, cst.MatchStar)]
        star = stars[0] if len(stars) == 1 else None
        if isinstance(subject, Const) and subject.value is not None:
            return False, subject  # str, bytes and numbers are no sequences to a pattern
        outcome: bool | None = None
        exact = isinstance(subject, Seq) and not subject.keys and not subject.is_dict
        if exact and len(subject.items) != 1:  # type: ignore[union-attr]
            # a display of known length (one item may stand for a container of any length)
            have, want = len(subject.items), len(elements)  # type: ignore[union-attr]
            if have != want if star is None else have < want - 1:
                return False, subject
            outcome = True
        values = self.unpack(subject, len(elements), star)
        for element, taken in zip(elements, values):
            if isinstance(element, cst.MatchStar):  # case [a, *rest]: a list
                if element.name is not None:
                    self.bind(element.name.value, taken, state, scope)
            else:
                found, _ = self.match_pattern(element.value, taken, state, scope)
                outcome = _both(outcome, found)
        return outcome, subject

    def _match_mapping(
        self, pattern: cst.MatchMapping, subject: Value, state: State, scope: Scope
    ) -> tuple[bool | None, Value]:
        if isinstance(subject, Const) and subject.value is not None:
            return False, subject
        keyed = subject.keys if isinstance(subject, Seq) else ()
        used: set[object] = set()
        outcome: bool | None = None
        for element in pattern.elements:
            wanted = literal_key(element.key, self.eval(element.key, state, scope))
            if wanted is NO_KEY:
                taken = sm.contents(subject)
            else:
                if keyed and not any(type(k) is type(wanted) and k == wanted for k, _ in keyed):
                    return False, subject  # a dict display without that key
                used.add(wanted)
                taken = sm.item(subject, wanted)  # type: ignore[arg-type]
            found, _ = self.match_pattern(element.pattern, taken, state, scope)
            outcome = _both(outcome, found) if found is False else outcome
        if pattern.rest is not None:
            self.bind(pattern.rest.value, _rest_of(subject, used), state, scope)
        return outcome, subject

    def _match_or(
        self, pattern: cst.MatchOr, subject: Value, state: State, scope: Scope
    ) -> tuple[bool | None, Value]:
        outcomes: list[bool | None] = []
        states: list[State | None] = []
        narrowed: list[Value] = []
        for alternative in pattern.patterns:
            entry = state.copy()
            outcome, value = self.match_pattern(alternative.pattern, subject, entry, scope)
            if outcome is False:
                continue
            outcomes.append(outcome)
            states.append(entry)
            narrowed.append(value)
            if outcome is True:  # later alternatives are never tried
                break
        joined = join_states(states)
        if joined is None:
            return False, subject
        state.env.clear()
        state.env.update(joined.env)
        state.has_paths = joined.has_paths
        return (True if True in outcomes else None), join_all(narrowed)


def _both(a: bool | None, b: bool | None) -> bool | None:
    """Two sub-patterns that must both match."""
    if a is False or b is False:
        return False
    return True if a is True and b is True else None


def _rest_of(subject: Value, used: set[object]) -> Value:
    """``**rest``: a dict of the items whose keys the pattern did not name."""
    if isinstance(subject, Seq) and subject.keys:
        pairs = tuple((k, v) for k, v in subject.keys if k not in used)
        contents = may_contain([v for _, v in pairs])
        if isinstance(contents, Seq):
            return Seq(contents.items, pairs)
        return Seq((), pairs) if pairs else None
    return subject


def _tested_class(pattern: cst.CSTNode) -> cst.CSTNode | None:
    """The class of ``case C():`` or ``case C() as s:``, a class test and nothing more."""
    if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
        pattern = pattern.pattern
    if isinstance(pattern, cst.MatchClass) and not pattern.patterns and not pattern.kwds:
        return pattern.cls
    return None


def _is_external_instance(value: Value) -> bool:
    """A real ``ExternalStream`` object (a class pattern tests the class, not the id bit)."""
    return (
        isinstance(value, ExtStream)
        and value.param is None
        and value.noun == "ExternalStream"
        and value.current_of is None
    )
