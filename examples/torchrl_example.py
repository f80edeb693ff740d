"""TorchRL: its PettingZoo wrapper with action masks, and a masked policy shared by all seats."""

import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

from snack_envs.integrations.torchrl import make_env

env = make_env("snack_rabbits_v0", num_players=2, seed=0)  # one group per agent, "mask" = whose turn
print("random legal game:", env.rollout(1000).batch_size[0], "steps")

torch.manual_seed(0)
group0 = next(iter(env.group_map))
obs_size = env.observation_spec[group0, "observation", "observation"].shape[-1]
num_actions = env.full_action_spec[group0, "action"].space.n
net = MLP(in_features=obs_size, out_features=num_actions, num_cells=[64, 64])  # one net for every seat (self-play)
actors = [
    ProbabilisticActor(
        TensorDictModule(net, in_keys=[(g, "observation", "observation")], out_keys=[(g, "logits")]),
        in_keys={"logits": (g, "logits"), "mask": (g, "action_mask")},  # illegal actions get probability 0
        out_keys=[(g, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(g, "log_prob"),
    )
    for g in env.group_map
]
rollout = env.rollout(1000, policy=TensorDictSequential(*actors))
print("policy game:", rollout.batch_size[0], "steps; rewards",
      {g: rollout["next", g, "reward"].sum().item() for g in env.group_map})
