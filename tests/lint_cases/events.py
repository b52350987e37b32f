# EXS103 record / EXS104 wait, in every spelling.
import torch
import torch_npu
from torch_npu.npu import Event, ExternalEvent, ExternalStream

ext = ExternalStream(handle)
s = torch.npu.Stream()
e = torch.npu.Event()

ext.record_event()  # EXS103
ext.record_event(event=e)  # EXS103
e.record(ext)  # EXS103
e.record(stream=ext)  # EXS103
ExternalEvent().record(ext)  # EXS103
torch.Event(device="npu").record(ext)  # EXS103
s.wait_stream(ext)  # EXS103
ext.wait_stream(ext)  # EXS103
torch.Stream.record_event(ext)  # EXS103
torch.Stream.wait_stream(s, ext)  # EXS103

ext.wait_event(e)  # EXS104
ext.wait_stream(s)  # EXS104
e.wait(ext)  # EXS104
e.wait(stream=ext)  # EXS104
ExternalEvent().wait(ext)  # EXS104
torch.Stream.wait_event(ext, e)  # EXS104

with torch.npu.stream(ext):
    e.record()  # EXS103
    e.wait()  # EXS104
    Event().record()  # EXS103
    x = ExternalEvent()
    x.wait()  # EXS104
    x.record(None)  # EXS103
    torch.npu.current_stream().record_event()  # EXS103
    s.wait_stream(torch.npu.current_stream())  # EXS103
    torch.npu.current_stream().wait_stream(s)  # EXS104
    torch.npu.current_stream().wait_event(e)  # EXS104
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
