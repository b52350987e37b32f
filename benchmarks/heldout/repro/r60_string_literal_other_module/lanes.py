"""r60 (p17_dataflow feed.py:76, p15_plugserve app.py:54/56, flowfam3): a getter of another
module whose string argument is compared (``kind == "decoder"``, ``match kind: case ...``)
or looked up in a table of names (``getattr(mod, _CLASSES[kind])``). Its module exported
copies for ``True``/``False`` and enum members only, so a caller's ``pick("staging")`` read
the "may be" of both branches (a false alarm) and ``provider_for("external")`` nothing.
Fixed: the copies include the literals the body compares the parameter with and the keys of
the module's tables it looks it up in (source/compared.py, interp/variants.py)."""

import torch
import torch_npu


def pick(kind: str, index: int = 0):
    if kind == "decoder":
        return torch_npu.npu.ExternalStream(7 + index)
    if kind == "staging":
        return torch.npu.Stream()
    return None
