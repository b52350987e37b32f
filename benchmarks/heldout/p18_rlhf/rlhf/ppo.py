"""A small PPO-style loop whose scoring borrows the reward server's stream."""

from typing import List

import torch

from .lanes import ComputeLanes, RewardLane
from .losses import grad_mode, kl, pg_loss
from .models import Policy, Reference, RewardHead


class PPOTrainer:
    def __init__(self, policy: Policy, opt, reward_handle: int):
        self.policy = policy
        self.ref = Reference(policy)
        self.reward = RewardHead()
        self.opt = opt
        self.lane = RewardLane(reward_handle)
        self.lanes = ComputeLanes()
        self.kl_coef = 0.05

    # scoring on the reward lane: no graph is recorded there
    def score(self, ids: torch.Tensor) -> torch.Tensor:
        with self.lane.current(), grad_mode(False):
            r = self.reward(self.policy.hidden(ids))
        return r

    def ref_logprobs(self, ids: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.lane.stream):
            ref = self.ref.logprobs(ids)
        return ref

    def step(self, ids: torch.Tensor) -> float:
        adv = self.score(ids)
        ref = self.ref_logprobs(ids)
        logp = self.policy(ids)
        loss = pg_loss(logp, ids, adv - adv.mean()) + self.kl_coef * kl(logp, ref)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()

    # the same, but the scoring pass is run in training mode by mistake
    def score_train(self, ids: torch.Tensor) -> torch.Tensor:
        with self.lane.current(), grad_mode(True):
            r = self.reward(self.policy.hidden(ids))
        return r

    def step_reward_shaped(self, ids: torch.Tensor) -> float:
        bonus = self.score_train(ids)
        logp = self.policy(ids)
        loss = pg_loss(logp, ids, torch.ones_like(bonus)) - bonus.mean()
        loss.backward()  # expect: XST203
        self.opt.step()
        return loss.item()

    # the reward head is frozen, but the policy's hidden states require grad:
    # the graph through the head is recorded on the reward lane
    def step_reward_grad(self, ids: torch.Tensor) -> float:
        h = self.policy.hidden(ids)
        with torch.npu.stream(self.lane.stream):
            r = self.reward(h)
        loss = -r.mean()
        loss.backward()  # expect: XST203
        return loss.item()

    # same, with the reward head's input cut from the graph
    def step_reward_detached(self, ids: torch.Tensor) -> float:
        h = self.policy.hidden(ids)
        with torch.npu.stream(self.lane.stream):
            r = self.reward(h.detach())
        logp = self.policy(ids)
        loss = pg_loss(logp, ids, r)
        loss.backward()
        return loss.item()

    def reference_in_context(self, ids: torch.Tensor) -> float:
        with torch.npu.stream(self.lane.stream), torch.inference_mode():
            ref = self.ref(ids)
        logp = self.policy(ids)
        loss = kl(logp, ref)
        loss.backward()
        return loss.item()

    # nested grad modes: enable_grad inside no_grad records again
    def reference_nested(self, ids: torch.Tensor) -> float:
        with torch.npu.stream(self.lane.stream), torch.no_grad(), torch.enable_grad():
            logp = self.policy(ids)
        loss = -logp.mean()
        loss.backward()  # expect: XST203
        return loss.item()

    def reference_nested_off(self, ids: torch.Tensor) -> float:
        with torch.npu.stream(self.lane.stream), torch.enable_grad(), torch.no_grad():
            ref = self.policy(ids)
        logp = self.policy(ids)
        loss = kl(logp, ref)
        loss.backward()
        return loss.item()

    # a KL penalty whose input gradient is taken outside the lane
    def input_penalty(self, ids: torch.Tensor) -> torch.Tensor:
        emb = self.policy.embed(ids)
        with torch.npu.stream(self.lane.stream):
            out = self.policy.head(self.policy.body(emb))
        (g,) = torch.autograd.grad(out.logsumexp(-1).sum(), emb)  # expect: XST203
        return g.norm()

    def input_penalty_managed(self, ids: torch.Tensor) -> torch.Tensor:
        emb = self.policy.embed(ids)
        with self.lanes.on_main():
            out = self.policy.head(self.policy.body(emb))
        (g,) = torch.autograd.grad(out.logsumexp(-1).sum(), emb)
        return g.norm()

    def rewards_to_host(self, ids: torch.Tensor) -> List[float]:
        r = self.score(ids)
        with self.lane.current():
            host = r.to("cpu", non_blocking=True)  # expect: XST201
        return host.tolist()

    def rewards_to_host_blocking(self, ids: torch.Tensor) -> List[float]:
        r = self.score(ids)
        with self.lane.current():
            host = r.cpu()
        return host.tolist()
