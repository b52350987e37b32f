"""The training loop: autocast, GradScaler, accumulation, custom functions."""

import torch

from .lanes import open_lanes
from .ops import SmoothedLoss, clip_hook, scaled_gelu


class AmpTrainer:
    def __init__(self, model, optimizer, runtime, accum_steps: int = 4):
        self.model = model
        self.opt = optimizer
        self.lanes = open_lanes(runtime)
        self.scaler = torch.amp.GradScaler("npu")
        self.loss_fn = SmoothedLoss(0.1)
        self.accum_steps = accum_steps

    def _apply(self):
        self.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.opt)
        self.scaler.update()
        self.opt.zero_grad(set_to_none=True)

    def step_split(self, x, y):
        # the forward runs on the fusion runtime's stream, the backward after leaving it
        with torch.autocast("npu", dtype=torch.float16), torch.npu.stream(self.lanes.fused):
            logits = self.model(x)
            loss = self.loss_fn(logits, y)
        self.scaler.scale(loss).backward()  # expect: XST203
        self._apply()

    def step_fused(self, x, y):
        with torch.npu.stream(self.lanes.fused), torch.autocast("npu", dtype=torch.float16):
            logits = self.model(x)
            loss = self.loss_fn(logits, y)
            self.scaler.scale(loss).backward()
            self.last_loss = loss.detach().to("cpu", non_blocking=True)  # expect: XST201
        self._apply()

    def step_side(self, x, y):
        with torch.npu.stream(self.lanes.side):
            with torch.autocast("npu", dtype=torch.bfloat16):
                loss = self.loss_fn(self.model(x), y)
            self.last_loss = loss.detach().to("cpu", non_blocking=True)
        self.scaler.scale(loss).backward()
        self._apply()

    def step_reference(self, x, y):
        with torch.cuda.stream(self.lanes.reference):
            loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self._apply()

    def accumulate(self, batches):
        for i, (x, y) in enumerate(batches):
            with torch.npu.stream(self.lanes.fused), torch.autocast("npu", dtype=torch.bfloat16):
                loss = self.loss_fn(self.model(x), y) / self.accum_steps
            loss.backward()  # expect: XST203
            if (i + 1) % self.accum_steps == 0:
                self._apply()

    def backward_on_lane(self, x, y):
        # forward on the default stream, then the backward handed to the runtime's stream
        with torch.autocast("npu", dtype=torch.float16):
            loss = self.loss_fn(self.model(x), y)
        with torch.npu.stream(self.lanes.fused):
            self.scaler.scale(loss).backward()  # expect: XST203
        self._apply()

    def fused_activation(self, x, y):
        with torch.npu.stream(self.lanes.fused):
            h = scaled_gelu(self.model.encoder(x), 0.5)
        h.register_hook(clip_hook(1.0))
        loss = self.loss_fn(self.model.head(h), y)
        loss.backward()  # expect: XST203
        self._apply()

    def frozen_encoder(self, x, y):
        with torch.npu.stream(self.lanes.fused):
            h = scaled_gelu(self.model.encoder(x), 0.5).detach()
        loss = self.loss_fn(self.model.head(h), y)
        loss.backward()
        self._apply()

    def two_objectives(self, x, y, aux_y):
        with torch.npu.stream(self.lanes.fused):
            logits, aux = self.model(x, return_aux=True)
            main = self.loss_fn(logits, y)
            main.backward(retain_graph=True)
        aux_loss = self.loss_fn(aux, aux_y)
        aux_loss.backward()  # expect: XST203
        self._apply()

    def _forward(self, x, y):
        with torch.npu.stream(self.lanes.fused), torch.autocast("npu", dtype=torch.float16):
            return self.loss_fn(self.model(x), y)

    def step_via_helper(self, x, y):
        loss = self._forward(x, y)
        self.scaler.scale(loss).backward()  # expect: XST203
        self._apply()

    @torch.inference_mode()
    def _confidence(self, x):
        with torch.npu.stream(self.lanes.fused):
            return self.model(x).softmax(-1).amax(-1)

    def weighted_step(self, x, y):
        weight = self._confidence(x)
        loss = (weight * self.loss_fn(self.model(x), y)).mean()
        loss.backward()
        self._apply()

    def distill(self, teacher, x, y):
        with torch.npu.stream(self.lanes.fused), torch.no_grad():
            target = teacher(x).softmax(-1)
        student = self.model(x)
        loss = torch.nn.functional.kl_div(student.log_softmax(-1), target, reduction="batchmean")
        loss.backward()
        self._apply()
