"""Policy, frozen reference and reward head."""

import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self, vocab: int = 32000, dim: int = 512):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.head = nn.Linear(dim, vocab)

    def hidden(self, ids: torch.Tensor) -> torch.Tensor:
        return self.body(self.embed(ids))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.hidden(ids)).log_softmax(-1)


class Reference(nn.Module):
    """A frozen copy of the policy: never trained, only scored."""

    def __init__(self, policy: Policy):
        super().__init__()
        self.inner = Policy(policy.head.out_features, policy.head.in_features)
        self.inner.load_state_dict(policy.state_dict())
        self.requires_grad_(False)
        self.eval()

    @torch.inference_mode()
    def logprobs(self, ids: torch.Tensor) -> torch.Tensor:
        return self.inner(ids)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.inner(ids)


class RewardHead(nn.Module):
    """Scores hidden states; its weights are frozen, gradients still flow to its input."""

    def __init__(self, dim: int = 512):
        super().__init__()
        self.proj = nn.Linear(dim, 1)
        self.requires_grad_(False)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.proj(hidden).squeeze(-1)
