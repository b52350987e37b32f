"""Text tests on one file's source: the bottom of the pre-filter, no imports of ours but data.

Every way to obtain an external stream spells ``ExternalStream`` (the class, its aliases and
annotations) or ``stream_ptr`` (``torch.npu.Stream(stream_ptr=...)``,
``SyncLaunchStream(stream_ptr=...)``), and every spelling the analysis resolves to torch_npu
has ``npu`` at the start of a word or after an underscore (``torch.npu``, ``torch_npu``,
``transfer_to_npu`` for ``torch.cuda``), never inside one: ``input`` is not a spelling of
torch_npu, and counting it made half the standard library "mention" it. A file without
both is never parsed: torch's own CUDA stream code, for example, costs a few substring
tests instead of a libcst import and parse.
"""

from __future__ import annotations

import re

#: Letters and digits: what makes ``npu`` part of another word (``input``).
ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
#: What continues an identifier: ``make_ext`` is not spelt by ``remake_ext``.
IDENTIFIER = ALNUM | {"_"}
_NOTHING: frozenset[str] = frozenset()


def occurs(
    text: str, word: str, not_before: frozenset[str], not_after: frozenset[str] = _NOTHING
) -> bool:
    """Does ``word`` occur in ``text`` with no character of ``not_before`` just before it
    and none of ``not_after`` just after? ``str.find`` over the occurrences: a regex with
    look-arounds tries every position of the text, about ten times slower."""
    at = text.find(word)
    while at != -1:
        end = at + len(word)
        if (at == 0 or text[at - 1] not in not_before) and (
            end == len(text) or text[end] not in not_after
        ):
            return True
        at = text.find(word, end)
    return False


def spells_npu(text: str) -> bool:
    """Does ``text`` spell torch_npu's ``npu`` (``torch.npu``, ``torch_npu``, not ``input``)?"""
    return occurs(text, "npu", ALNUM)


def might_use_external_streams(text: str) -> bool:
    """True if ``text`` could create or annotate a torch_npu external stream.

    Substring tests first: an order of magnitude faster than an alternation regex.
    """
    return ("ExternalStream" in text or "stream_ptr" in text) and spells_npu(text)


def enables_transfer(text: str) -> bool:
    """Whether ``text`` may import ``torch_npu.contrib.transfer_to_npu``: an import that
    remaps ``torch.cuda`` for the whole process (contract section 3), so a module spelling
    it may make ``torch.cuda.ExternalStream`` external for every module imported with it."""
    return "transfer_to_npu" in text


def hands_out_external(text: str) -> bool:
    """What the import graph asks of a project file: may importing it give the importer an
    external stream, by a value (:func:`might_use_external_streams`) or by remapping
    ``torch.cuda`` process-wide (:func:`enables_transfer`)?"""
    return might_use_external_streams(text) or enables_transfer(text)


def _refused_call() -> re.Pattern[str]:
    """A call of a method the contract refuses on some stream, event, graph or work."""
    from ..contract import APIS  # pure data

    methods = sorted({api.attr for api in APIS if api.method and api.code is not None})
    return re.compile(r"\.(?:" + "|".join(methods) + r")\s*\(")


_REFUSED_CALL: re.Pattern[str] | None = None
#: Spellings of the contract table's distributed, accelerator and generic stream names: all
#: of them reached from ``torch`` (a module that gets them from a project module is linked
#: to that module, which spells them).
_TORCH_MARKERS = ("distributed", "accelerator", "torch.Event", "torch.Stream")
#: The module that defines ``singledispatch`` (``functools``, a project file when the
#: standard library is linted): the flow-model table answers for the library's
#: dispatchers by name, so spelling the name there makes no dispatcher another module may
#: register on; following it summarised functools and its import cycle (weakref, types,
#: copy...) for every importer, about 6% of the statements the overlay's lint executes.
_DEFINES_SINGLEDISPATCH = re.compile(r"^def singledispatch\s*\(", re.MULTILINE)


def may_reach_refused(text: str) -> bool:
    """Whether a module may hold a helper that reaches a refused operation (a sink) or a
    handle for one: it spells a torch_npu / distributed name or calls a refused method name.
    Text only and generous: it decides which plain modules the index follows, not findings."""
    global _REFUSED_CALL
    if spells_npu(text):
        return True
    if "torch" in text and any(marker in text for marker in _TORCH_MARKERS):
        return True
    if "singledispatch" in text and _DEFINES_SINGLEDISPATCH.search(text) is None:
        return True  # another module may register what reaches one on a dispatcher it makes
    if _REFUSED_CALL is None:
        _REFUSED_CALL = _refused_call()
    return _REFUSED_CALL.search(text) is not None
