"""Bridges to training stacks that are optional extras: `rllib` (Ray RLlib) and `torchrl` (TorchRL).

Importing this package imports nothing heavy; `snack_envs.integrations.rllib`
needs `pip install "snack-envs[rllib]"`, `snack_envs.integrations.torchrl`
needs `pip install "snack-envs[torchrl]"`. Gymnasium and PettingZoo registries
need no extra: see `snack_envs.registration`.
"""
