"""MaskablePPO training speed on today's path, on the batched engine, and on a VecEnv that costs nothing, in one run.

    python benchmarks/training_speed.py [--config snack_wars] [--timesteps 20480]

All three runs use the same samples per update (2,048: 8 envs x 256 steps on
the dummy path, 64 x 32 batched and free), the config's batch size, epochs
and network, one torch thread. Prints training steps per second, the ratio to
the dummy path, and the share of wall time spent simulating (env steps and
opponents: the VecEnv's `step_wait` and `reset`). The free VecEnv returns
fixed random observations, all-legal masks and a reward at each game's end:
SB3's own ceiling on this machine.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from snack_envs.training.cli import ArgumentParser, command, positive_int


class Timed:
    """Wraps a VecEnv and adds up the seconds spent in its step_wait and reset."""

    def __init__(self, vec):
        self.vec, self.seconds = vec, 0.0
        for name in ("step_wait", "reset"):
            method = getattr(vec, name)

            def timed(*args, _method=method, **kwargs):
                start = time.perf_counter()
                try:
                    return _method(*args, **kwargs)
                finally:
                    self.seconds += time.perf_counter() - start

            setattr(vec, name, timed)


def free_vec_env(num_envs: int, obs_size: int, num_actions: int):
    import gymnasium
    from stable_baselines3.common.vec_env import VecEnv

    class FreeVecEnv(VecEnv):
        def __init__(self):
            self.render_mode = None
            space = gymnasium.spaces.Box(-1.0, 1.0, (obs_size,), np.float32)
            super().__init__(num_envs, space, gymnasium.spaces.Discrete(num_actions))
            # Observations and rewards drawn once, then cycled: all-zero ones make PPO's gradients so small
            # that torch's backward pass slows down many times over (denormal floats), not a real cost.
            rng = np.random.default_rng(0)
            self.bank = rng.random((16, num_envs, obs_size)).astype(np.float32)
            self.rewards = rng.choice([-1.0, 1.0], (16, num_envs)).astype(np.float32)
            self.t = 0

        def reset(self):
            return self.bank[0]

        def step_async(self, actions):
            pass

        def step_wait(self):
            self.t += 1
            done = np.full(self.num_envs, self.t % 50 == 0)
            rewards = np.where(done, self.rewards[self.t % 16], 0.0).astype(np.float32)
            return self.bank[self.t % 16], rewards, done, [{} for _ in range(self.num_envs)]

        def env_method(self, name, *args, indices=None, **kwargs):
            return [np.ones(num_actions, bool) for _ in range(self.num_envs)]

        def get_attr(self, name, indices=None):
            return [None] * self.num_envs

        def set_attr(self, name, value, indices=None):
            pass

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * self.num_envs

        def close(self):
            pass

    return FreeVecEnv()


def run(config: dict, vec, timesteps: int) -> tuple[float, float]:
    """(training steps/s, share of wall time in the envs) of one MaskablePPO run."""
    from sb3_contrib import MaskablePPO

    from snack_envs.training.backends.sb3 import policy_for, ppo_settings

    timed = Timed(vec)
    policy, policy_kwargs = policy_for(config["env"]["name"], config["algo"])  # an MLP, or the grid network
    algo = ppo_settings(config["algo"])
    algo["n_steps"] = 2048 // vec.num_envs
    model = MaskablePPO(policy, vec, seed=0, device="cpu", verbose=0, policy_kwargs=policy_kwargs, **algo)
    start = time.perf_counter()
    model.learn(timesteps)
    wall = time.perf_counter() - start
    return model.num_timesteps / wall, timed.seconds / wall


@command("training_speed.py")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="training_speed.py", description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="snack_wars")
    parser.add_argument("--timesteps", type=positive_int, default=20480)
    parser.add_argument("--batched-envs", type=positive_int, default=64)
    args = parser.parse_args(argv)
    import torch

    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv
    from snack_envs.opponents import weights_in
    from snack_envs.training.backends.sb3 import make_vec_env
    from snack_envs.training.config import load_config

    torch.set_num_threads(1)
    config = load_config(args.config)
    env_cfg, opponents = config["env"], config["opponents"]
    with tempfile.TemporaryDirectory() as monitor_dir:  # the dummy path's Monitor files
        dummy = make_vec_env(dict(config, n_envs=8, vec_env="dummy"), Path(monitor_dir))
        batched = BatchedSelfPlayVecEnv(env_cfg["name"], args.batched_envs, env_cfg["num_players"], 0, env_cfg["reward"],
                                        weights_in(opponents), **env_cfg.get("options", {}))
        free = free_vec_env(args.batched_envs, batched.observation_space.shape[0], batched.action_space.n)
        rows = []
        for label, vec in (("dummy, 8 envs (today)", dummy), (f"batched, {args.batched_envs} envs", batched),
                           (f"free VecEnv, {args.batched_envs} envs", free)):
            rows.append((label, *run(config, vec, args.timesteps)))
        dummy.close()
    base = rows[0][1]
    print(f"{args.config}: MaskablePPO, {args.timesteps} steps, 2048 samples per update, batch "
          f"{config['algo']['batch_size']}, {config['algo']['n_epochs']} epochs, net {config['algo']['net_arch']}, 1 thread")
    print(f"{'path':28s} {'steps/s':>9s} {'x dummy':>8s} {'simulating':>11s}")
    for label, rate, share in rows:
        print(f"{label:28s} {rate:9,.0f} {rate / base:7.1f}x {share:10.0%}")


if __name__ == "__main__":
    main()
