"""A convolutional MaskablePPO policy for games played on a grid of cells (Snack Time's 8x8 pipe map).

    MaskablePPO(GridPolicy, env, policy_kwargs={"grid": GRID_SPEC})   # training: `algo.policy: grid`

A flat MLP sees Snack Time's map as 768 unrelated numbers and its 640 pipe
placements as 640 unrelated outputs, so it must learn the same local rule
(does this piece lead a network toward an entrance?) once per cell; cloning
the heuristic that way reached only 0.61 action accuracy. This policy reads
the map as planes and scores every cell-bound action with the same
convolution at each cell:

- input: the map planes of the observation (channels x H x W), plus planes
  that a game's feature function computes from the observation with no
  weights (Snack Time: each network's cells and the pipes still needed to
  reach it, snack_envs/snack_time/map_features.py), plus the rest of the
  observation through an MLP, broadcast to every cell; every entry enters as
  sign(x) * log(1 + |x|), since the space's bounds are too loose to scale by
  (a trait count shares its bound with snack values);
- trunk: residual 3x3 convolutions, dilated so that two blocks see far,
  their hidden channels scaled and shifted by the global features (FiLM);
- cell actions (a block `base + cell * per_cell + k`): a 1x1 convolution with
  `per_cell` outputs per cell;
- the other actions and the value: from the trunk pooled over the board
  (mean and max) and the global features.

The spec is plain data saved with the model, so a checkpoint loads with
`MaskablePPO.load` (or `snack_envs.checkpoints.load_policy`) anywhere this
module can be imported. Needs torch and sb3-contrib (the `train` extra).
"""

from __future__ import annotations

import importlib

import numpy as np
from gymnasium import spaces

from snack_envs import extras

with extras.needed("the policy networks (snack_envs.networks)"):
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from torch import nn


# The trunk's size unless a config says otherwise (`algo.grid`): channels per cell, one residual block per dilation.
GRID_DEFAULTS = {"channels": 32, "dilations": [1, 2]}


def symlog(x: torch.Tensor) -> torch.Tensor:
    """sign(x) * log(1 + |x|): flags stay near 1, counts and scores up to hundreds stay below 6."""
    return torch.sign(x) * torch.log1p(torch.abs(x))


class _Block(nn.Module):
    """Residual block whose hidden channels the global features scale and shift (FiLM): the worth of
    a cell's pipe is a product of map facts and the state of the creatures and pedestrians."""

    def __init__(self, channels: int, dilation: int, global_dim: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=dilation, dilation=dilation)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.film = nn.Linear(global_dim, 2 * channels)

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        scale, shift = self.film(g)[:, :, None, None].chunk(2, 1)
        hidden = torch.relu(self.conv1(x) * (1.0 + scale) + shift)
        return torch.relu(x + self.conv2(hidden))


class GridExtractor(BaseFeaturesExtractor):
    """Computes every action's logit and a value latent; the policy splits them (see GridPolicy).

    `grid` = {"height", "width", "planes": [[start, channels], ...] (cell-major blocks of the
    observation), "cell_actions": [[base, per_cell], ...], optionally "features": "module:function"
    computing more planes (batch, planes, H, W) from the observation batch, with no weights}."""

    def __init__(self, observation_space: spaces.Box, num_actions: int, grid: dict,
                 channels: int = GRID_DEFAULTS["channels"], dilations: tuple[int, ...] = tuple(GRID_DEFAULTS["dilations"]),
                 global_dim: int = 128, value_dim: int = 128):
        super().__init__(observation_space, num_actions + value_dim)
        self.height, self.width = grid["height"], grid["width"]
        cells = self.height * self.width
        size = observation_space.shape[0]
        plane_index = [np.arange(start, start + cells * c).reshape(cells, c) for start, c in grid["planes"]]
        plane_index = np.concatenate(plane_index, axis=1)  # (cells, channels)
        self.features = None
        if grid.get("features"):
            module, name = grid["features"].split(":")
            self.features = getattr(importlib.import_module(module), name)
        in_planes = plane_index.shape[1]
        if self.features is not None:
            in_planes += self.features(torch.zeros(1, size)).shape[1]
        rest = np.setdiff1d(np.arange(size), plane_index.ravel())
        self.register_buffer("plane_index", torch.as_tensor(plane_index.T.ravel()), persistent=False)
        self.register_buffer("rest_index", torch.as_tensor(rest), persistent=False)
        # Where each action's logit comes from in [cell outputs (k-major, then cell), global outputs].
        source = np.full(num_actions, -1)
        cell_outputs = 0
        for base, per_cell in grid["cell_actions"]:
            for k in range(per_cell):
                source[base + np.arange(cells) * per_cell + k] = cell_outputs + k * cells + np.arange(cells)
            cell_outputs += per_cell * cells
        others = np.flatnonzero(source < 0)
        source[others] = cell_outputs + np.arange(len(others))
        self.register_buffer("action_source", torch.as_tensor(source), persistent=False)
        per_cell_total = sum(p for _, p in grid["cell_actions"])

        self.global_net = nn.Sequential(nn.Linear(len(rest), global_dim), nn.ReLU(), nn.Linear(global_dim, global_dim), nn.ReLU())
        self.stem = nn.Conv2d(in_planes, channels, 1)
        self.global_to_cells = nn.Linear(global_dim, channels)
        self.blocks = nn.ModuleList([_Block(channels, d, global_dim) for d in dilations])
        self.cell_head = nn.Conv2d(channels, per_cell_total, 1)
        pooled = 2 * channels + global_dim
        self.global_head = nn.Sequential(nn.Linear(pooled, 256), nn.ReLU(), nn.Linear(256, len(others)))
        self.value_head = nn.Sequential(nn.Linear(pooled, value_dim), nn.ReLU())

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        batch = obs.shape[0]
        scaled = symlog(obs)
        planes = scaled[:, self.plane_index].view(batch, -1, self.height, self.width)
        if self.features is not None:
            planes = torch.cat([planes, self.features(obs)], 1)
        g = self.global_net(scaled[:, self.rest_index])
        x = torch.relu(self.stem(planes) + self.global_to_cells(g)[:, :, None, None])
        for block in self.blocks:
            x = block(x, g)
        summary = torch.cat([x.mean((2, 3)), x.amax((2, 3)), g], 1)
        logits = torch.cat([self.cell_head(x).flatten(1), self.global_head(summary)], 1)[:, self.action_source]
        return torch.cat([logits, self.value_head(summary)], 1)


class _Split(nn.Module):
    """Stands in for SB3's MLP extractor: the logits go to the actor, the value latent to the critic."""

    def __init__(self, num_actions: int, value_dim: int):
        super().__init__()
        self.latent_dim_pi, self.latent_dim_vf = num_actions, value_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, : self.latent_dim_pi]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return features[:, self.latent_dim_pi :]


class GridPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose logits come straight from GridExtractor (no action layer on top)."""

    def __init__(self, observation_space, action_space, lr_schedule, grid: dict,
                 channels: int = GRID_DEFAULTS["channels"], dilations: tuple[int, ...] = tuple(GRID_DEFAULTS["dilations"]),
                 **kwargs):
        kwargs.setdefault("ortho_init", False)
        self.num_actions = int(action_space.n)
        kwargs["features_extractor_class"] = GridExtractor
        kwargs["features_extractor_kwargs"] = {"num_actions": self.num_actions, "grid": grid, "channels": channels,
                                               "dilations": tuple(dilations)}
        kwargs["net_arch"] = []
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _Split(self.num_actions, self.features_dim - self.num_actions)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
