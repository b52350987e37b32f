# torch.accelerator.current_stream() returns a generic torch.Stream carrying the current
# stream's id: while an external stream is current, its methods reach the same C++ checks
# (spec 2.1 X01, X02, X06, X07); torch.ops.aten.record_stream is X05's operator spelling.
# A number after the code is the 1-based column the finding must be reported at.
import torch
import torch_npu

ext = torch_npu.npu.ExternalStream(HANDLE)
managed = torch.npu.Stream()

with torch.npu.stream(ext):
    torch.accelerator.current_stream().synchronize()  # XST101: 5
    ok = torch.accelerator.current_stream().query()  # XST102: 10
    done = torch.accelerator.current_stream().record_event()  # XST103: 12
    torch.accelerator.current_stream().wait_event(done)  # XST104: 5
    torch.accelerator.current_stream().wait_stream(managed)  # XST104: 5
    managed.wait_stream(torch.accelerator.current_stream())  # XST103: 5
    cur = torch.accelerator.current_stream()
    cur.synchronize()  # XST101: 5

with torch.npu.stream(managed):
    torch.accelerator.current_stream().synchronize()
    torch.accelerator.current_stream().query()

torch.accelerator.current_stream().synchronize()
torch.accelerator.set_stream(ext)
torch.accelerator.current_stream().query()  # XST102: 1
torch.accelerator.set_stream(managed)
torch.accelerator.current_stream().query()

tensor = torch.ones(4)
torch.ops.aten.record_stream(tensor, ext)  # XST105: 1
torch.ops.aten.record_stream.default(tensor, s=ext)  # XST105: 1
torch.ops.aten.record_stream(tensor, managed)
x = [torch.ops.aten.record_stream(tensor, ext)]  # XST105: 6
