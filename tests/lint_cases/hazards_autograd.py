# backward() / torch.autograd.backward / torch.autograd.grad across an external-stream
# boundary (XST203): the forward computed under the external stream and the backward outside
# it, or the reverse. Each positive has a trap of the same shape: forward and backward under
# the same external stream, or both outside it, or under managed streams.
import torch

ext = torch.npu.ExternalStream(handle)
managed = torch.npu.Stream()

# forward under ext, backward outside
with torch.npu.stream(ext):
    loss = model(x).sum()
loss.backward()  # XST203: 1
torch.autograd.backward(loss)  # XST203: 1
torch.autograd.backward([loss])  # XST203: 1
grads = torch.autograd.grad(loss, params)  # XST203: 9
grads = torch.autograd.grad(outputs=loss, inputs=params)  # XST203: 9

# a value derived outside from one computed under ext: its graph has nodes on ext
derived = loss.mean()
derived.backward()  # XST203: 1

# forward and backward under the same external stream: not flagged
with torch.npu.stream(ext):
    same = model(x).sum()
    same.backward()
    torch.autograd.backward(same)
    grads = torch.autograd.grad(same, params)
# the same stream made current again
with torch.npu.stream(ext):
    same.backward()

# an unknown callable's result and an operator's are computed on the current stream
with torch.npu.stream(ext):
    logits = model(x)
    scaled = logits * 2
    criterion_loss = criterion(logits, y)
logits.backward(grad)  # XST203: 1
scaled.backward(grad)  # XST203: 1
criterion_loss.backward()  # XST203: 1
with torch.npu.stream(ext):
    logits.backward(grad)
    scaled.backward(grad)
    criterion_loss.backward()

# forward outside, backward under ext
outside = model(x).sum()
with torch.npu.stream(ext):
    outside.backward()  # XST203: 5
    torch.autograd.grad(outside, params)  # XST203: 5
outside.backward()

# managed streams only: not flagged
with torch.npu.stream(managed):
    mine = model(x).mean()
mine.backward()
with torch.npu.stream(managed):
    outside.backward()


# through helpers: the value a helper returns was computed on the caller's current stream
def forward(batch):
    return model(batch).mean()


with torch.npu.stream(ext):
    helped = forward(x)
    helped.backward()
helped.backward()  # XST203: 1
plain = forward(x)
plain.backward()
with ext:
    plain.backward()  # XST203: 5


def forward_on(stream, batch):
    with torch.npu.stream(stream):
        return model(batch).sum()


produced = forward_on(ext, x)
produced.backward()  # XST203: 1
produced_managed = forward_on(managed, x)
produced_managed.backward()


# set_stream regions
torch.npu.set_stream(ext)
late = model(x).sum()
torch.npu.set_stream(managed)
late.backward()  # XST203: 1
torch.npu.set_stream(ext)
late.backward()
