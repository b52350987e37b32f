# XST103 record / XST104 wait, in every spelling.
import torch
import torch_npu
from torch_npu.npu import Event, ExternalEvent, ExternalStream

ext = ExternalStream(handle)
s = torch.npu.Stream()
e = torch.npu.Event()

ext.record_event()  # XST103
ext.record_event(event=e)  # XST103
e.record(ext)  # XST103
e.record(stream=ext)  # XST103
ExternalEvent().record(ext)  # XST103
torch.Event(device="npu").record(ext)  # XST103
s.wait_stream(ext)  # XST103
ext.wait_stream(ext)  # XST103
torch.Stream.record_event(ext)  # XST103
torch.Stream.wait_stream(s, ext)  # XST103

ext.wait_event(e)  # XST104
ext.wait_stream(s)  # XST104
e.wait(ext)  # XST104
e.wait(stream=ext)  # XST104
ExternalEvent().wait(ext)  # XST104
torch.Stream.wait_event(ext, e)  # XST104

with torch.npu.stream(ext):
    e.record()  # XST103
    e.wait()  # XST104
    Event().record()  # XST103
    x = ExternalEvent()
    x.wait()  # XST104
    x.record(None)  # XST103
    torch.npu.current_stream().record_event()  # XST103
    s.wait_stream(torch.npu.current_stream())  # XST103
    torch.npu.current_stream().wait_stream(s)  # XST104
    torch.npu.current_stream().wait_event(e)  # XST104
    e.record(s)
    e.wait(s)
    e.query()
    e.synchronize()
    x.reset(ext)
    x.reset()
    profiler.record()
    threading_event.wait()

# Outside: fine.
e.record()
e.wait()
e.record(s)
s.wait_stream(torch.npu.current_stream())
s.record_event()
s.wait_event(e)
x.reset(ext)

# Unbound event methods: the event is the first argument, the stream the second (X03 / X04).
torch.npu.Event.record(e, ext)  # XST103: 1
torch.npu.ExternalEvent.wait(e, stream=ext)  # XST104: 1
torch.npu.Event.record(e, s)
torch.npu.Event.wait(e)
