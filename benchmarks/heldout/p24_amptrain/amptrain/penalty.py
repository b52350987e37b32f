"""A critic trained with a gradient penalty (WGAN-GP style)."""

import torch

from .lanes import open_lanes


def gradient_penalty(critic, real, fake, lane):
    alpha = torch.rand(real.size(0), 1, device=real.device)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    with torch.npu.stream(lane):
        score = critic(mixed)
    (grads,) = torch.autograd.grad(score.sum(), mixed, create_graph=True)  # or: XST203
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def critic_loss(critic, real, fake):
    return critic(fake).mean() - critic(real).mean()


class CriticTrainer:
    def __init__(self, critic, optimizer, runtime, weight: float = 10.0):
        self.critic = critic
        self.opt = optimizer
        self.lanes = open_lanes(runtime)
        self.weight = weight

    def step(self, real, fake):
        loss = critic_loss(self.critic, real, fake.detach())
        gp = gradient_penalty(self.critic, real, fake.detach(), self.lanes.fused)  # expect: XST203
        (loss + self.weight * gp).backward()  # maybe: XST203
        self.opt.step()
        self.opt.zero_grad()

    def step_side(self, real, fake):
        loss = critic_loss(self.critic, real, fake.detach())
        gp = gradient_penalty(self.critic, real, fake.detach(), self.lanes.side)
        (loss + self.weight * gp).backward()
        self.opt.step()
        self.opt.zero_grad()

    def probe(self, real):
        x = real.clone().requires_grad_(True)
        with torch.npu.stream(self.lanes.fused):
            score = self.critic(x).sum()
            (saliency,) = torch.autograd.grad(score, x)
        with torch.npu.stream(self.lanes.fused):
            other = self.critic(x).sum()
        (again,) = torch.autograd.grad(outputs=[other], inputs=[x])  # expect: XST203
        return saliency, again
