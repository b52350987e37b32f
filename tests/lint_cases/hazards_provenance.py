# XST203 by provenance (issue 28): a value computed while an external stream is current,
# however it was computed (any call, methods, operators, attributes, elements, unpacking,
# loops, helpers), carries that stream; a backward of it outside that stream crosses it.
# Each shape has a twin: the same code with the backward under the same stream, or with no
# external stream at all (a managed torch.npu.Stream or a CUDA stream) stays silent.
import torch
import torch_npu


def model_parameter(model, x, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = model(x)
    loss.backward()  # XST203: 5


def model_parameter_twin(model, x, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = model(x)
        loss.backward()


def managed_twin(model, x):
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        loss = model(x)
    loss.backward()


def cuda_twin(model, x):
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        loss = model(x)
    loss.backward()


class Trainer:
    def __init__(self, model, loss_fn, ptr):
        self.model = model
        self.loss_fn = loss_fn
        self.ext = torch_npu.npu.ExternalStream(ptr)

    def attribute_model(self, x, y):
        with torch.npu.stream(self.ext):
            logits = self.model(x)
            loss = self.loss_fn(logits, y)
        loss.backward()  # XST203: 9

    def attribute_model_twin(self, x, y):
        with torch.npu.stream(self.ext):
            logits = self.model(x)
            loss = self.loss_fn(logits, y)
            loss.backward()

    def output_attribute(self, batch):
        with torch.npu.stream(self.ext):
            out = self.model(**batch)
        out.loss.backward()  # XST203: 9

    def output_attribute_twin(self, batch):
        with torch.npu.stream(self.ext):
            out = self.model(**batch)
            out.loss.backward()

    def scaled(self, x, scaler):
        with torch.npu.stream(self.ext):
            loss = self.model(x).loss
        scaler.scale(loss).backward()  # XST203: 9

    def scaled_twin(self, x, scaler):
        with torch.npu.stream(self.ext):
            loss = self.model(x).loss
            scaler.scale(loss).backward()

    def summed(self, x):
        with torch.npu.stream(self.ext):
            a = self.model(x)
            b = self.model(x)
        (a + b).backward()  # XST203: 9

    def summed_twin(self, x):
        with torch.npu.stream(self.ext):
            a = self.model(x)
            b = self.model(x)
            (a + b).backward()

    def reduced(self, x):
        with torch.npu.stream(self.ext):
            loss = self.model(x)
        loss.sum().backward()  # XST203: 9

    def reduced_twin(self, x):
        with torch.npu.stream(self.ext):
            loss = self.model(x)
            loss.sum().backward()

    def unpacked(self, x):
        with torch.npu.stream(self.ext):
            loss, aux = self.model(x)
        loss.backward()  # XST203: 9
        (loss + 0.1 * aux).backward()  # XST203: 9

    def unpacked_twin(self, x):
        with torch.npu.stream(self.ext):
            loss, aux = self.model(x)
            (loss + 0.1 * aux).backward()

    def accumulated(self, batches):
        total = 0
        with torch.npu.stream(self.ext):
            for x in batches:
                total = total + self.model(x)
        total.backward()  # XST203: 9

    def accumulated_in_place(self, batches):
        total = 0.0
        with torch.npu.stream(self.ext):
            for x in batches:
                total += self.model(x)
        total.backward()  # XST203: 9

    def accumulated_twin(self, batches):
        total = 0
        with torch.npu.stream(self.ext):
            for x in batches:
                total = total + self.model(x)
            total.backward()

    def grad_outputs(self, x, params):
        with torch.npu.stream(self.ext):
            v = self.model(x)
        torch.autograd.grad(outputs=[v.sum()], inputs=params)  # XST203: 9
        torch.autograd.grad([v.sum()], params)  # XST203: 9
        torch.autograd.backward(tensors=[v.sum(), v.mean()])  # XST203: 9

    def grad_outputs_twin(self, x, params):
        with torch.npu.stream(self.ext):
            v = self.model(x)
            torch.autograd.grad(outputs=[v.sum()], inputs=params)
            torch.autograd.backward(tensors=[v.sum(), v.mean()])

    def negated(self, x):
        with torch.npu.stream(self.ext):
            score = -self.model(x)
        score.backward()  # XST203: 9

    def kept(self, x):
        with torch.npu.stream(self.ext):
            self.loss = self.model(x)
        self.loss.backward()  # XST203: 9

    def kept_twin(self, x):
        with torch.npu.stream(self.ext):
            self.loss = self.model(x)
            self.loss.backward()

    def reverse(self, x):
        loss = self.model(x).sum()
        with torch.npu.stream(self.ext):
            loss.backward()  # XST203: 13

    def data_outside_twin(self, batch):
        # inputs made outside (no graph of their own) with the whole forward and backward
        # under the external stream: not flagged
        x = batch.to("npu")
        mask = x > 0
        with torch.npu.stream(self.ext):
            loss = self.model(x, mask).sum()
            loss.backward()


# a helper called in the region: what it returns was computed on the caller's stream
def compute(model, batch):
    return model(**batch).loss


def helper_return(model, batch, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = compute(model, batch)
    loss.backward()  # XST203: 5


def helper_return_twin(model, batch, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = compute(model, batch)
        loss.backward()
    plain = compute(model, batch)
    plain.backward()


# a helper that runs the backward of what it is given: judged where it is called
def run_backward(loss):
    loss.backward()


def helper_backward(model, x, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = model(x)
    run_backward(loss)  # XST203: 5


def helper_backward_twin(model, x, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = model(x)
        run_backward(loss)
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        other = model(x)
    run_backward(other)


def helper_backward_reverse(model, x, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    loss = model(x)
    with torch.npu.stream(ext):
        run_backward(loss)  # XST203: 9


# only on some paths: "may"
def maybe_region(model, x, ptr, flag):
    ext = torch_npu.npu.ExternalStream(ptr)
    if flag:
        with torch.npu.stream(ext):
            loss = model(x)
    else:
        loss = model(x)
    loss.backward()  # XST203(may): 5


# a helper's backward of a value derived from its argument (``loss.sum()``)
def grads_of(loss, params):
    return torch.autograd.grad(outputs=[loss.sum()], inputs=params)


def helper_grads(model, x, params, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = model(x)
    return grads_of(loss, params)  # XST203: 12


def helper_grads_twin(model, x, params, ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    with torch.npu.stream(ext):
        loss = model(x)
        return grads_of(loss, params)
