# Argument binding (issue 27, point 4): `*` and `**` spreads whose elements or keys are known
# bind as Python binds them, and a wrapper's `*args` / `**kwargs` passed on reach the callee.
import torch
from torch_npu.npu import ExternalStream


def sync_second(a, b=None):
    if b is not None:
        b.synchronize()


def sync_named(s=None, other=None):
    if s is not None:
        s.synchronize()


# `*` of a tuple display, and of a tuple bound to a name: positions are known.
sync_second(*(torch.npu.Stream(), ExternalStream(1)))  # XST101
sync_second(*(ExternalStream(1), torch.npu.Stream()))
PAIR = (torch.npu.Stream(), ExternalStream(2))
sync_second(*PAIR)  # XST101
MANAGED_PAIR = (ExternalStream(3), torch.npu.Stream())
sync_second(*MANAGED_PAIR)
sync_second(*reversed(PAIR))
sync_second(*reversed(MANAGED_PAIR))  # XST101
sync_second(*sorted(PAIR))

# `**` of a dict display and of a dict with literal keys bound to a name.
sync_named(**{"s": ExternalStream(4)})  # XST101
sync_named(**{"other": ExternalStream(4)})
KW = {"s": ExternalStream(5)}
sync_named(**KW)  # XST101
KW_OTHER = {"other": ExternalStream(5), "s": torch.npu.Stream()}
sync_named(**KW_OTHER)


# A wrapper forwarding `*args, **kwargs` to a function and to a bound method.
class Syncer:
    def sync(self, s=None, other=None):
        if s is not None:
            s.synchronize()


def forward(*args, **kwargs):
    return sync_named(*args, **kwargs)


def forward_to_method(*args, **kwargs):
    return Syncer().sync(*args, **kwargs)


forward(ExternalStream(6))  # XST101
forward(s=ExternalStream(6))  # XST101
forward(other=ExternalStream(6))
forward(torch.npu.Stream())
forward_to_method(ExternalStream(7))  # XST101
forward_to_method(s=ExternalStream(7))  # XST101
forward_to_method(None, ExternalStream(7))
forward_to_method(torch.npu.Stream())


# A spread of unknown length followed by another argument: where it lands is not known.
def first_only(a, b=None):
    a.synchronize()


first_only(*[torch.npu.Stream() for _ in range(2)])
