"""Ray RLlib: multi-agent PPO with action masking and self-play on a local Ray; needs the `rllib` extra.

A real run (configs, evaluation, checkpoints, a Ray cluster) is `snack-train --backend rllib`.
"""

import tempfile

import ray

from snack_envs import snack_rabbits_v0
from snack_envs.integrations.rllib import add_snapshot, load_policy, ppo_config

ray.init(num_cpus=2, include_dashboard=False)
config = ppo_config(
    "snack_rabbits_v0", num_players=2, opponents={"random": 0.5, "self": 0.5}, net_arch=(64, 64), seed=0,
    train_batch_size_per_learner=512, minibatch_size=128, num_epochs=2,  # tiny, to run in seconds
)
algo = config.build_algo()
for iteration in range(2):
    result = algo.train()
    print("iteration", iteration, "mean returns by module:", result["env_runners"]["module_episode_returns_mean"])
    add_snapshot(algo, max_snapshots=3)  # a frozen copy of the learner joins its opponents
checkpoint = algo.save_to_path(tempfile.mkdtemp())
algo.stop()
ray.shutdown()

policy = load_policy(checkpoint)  # the learner's module, for inference without Ray
env = snack_rabbits_v0.env(num_players=2)
env.reset(seed=0)
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    returns[agent] += reward
    env.step(None if terminated or truncated else policy.act(obs["observation"], obs["action_mask"]))
print("the trained module against itself:", returns)
