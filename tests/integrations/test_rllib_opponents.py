"""RLlib's fixed opponents: one policy per seat and game, and the same games from the same seed.

Speed Snacks' heuristic remembers earlier ticks, so `PolicyRLModule` must give
each seat of each game its own bot (not one bot for every row of a batch).
The seating draws and the random opponents are seeded by `ppo_config`'s seed
and the episode's game numbers (not its uuid). These tests sample with an
RLlib `MultiAgentEnvRunner` built in this process: no Ray is started.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

from snack_envs import specs, speed_snacks_v1

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402

from snack_envs.integrations import rllib as integration  # noqa: E402
from snack_envs.opponents import OpponentMix  # noqa: E402

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
torch.set_num_threads(1)
SIZES = {"kitchen_obs": "sizes"}  # the bot remembers its own kitchen tops: it must see one game, tick by tick


def policy_module(policy: str, seed: int | None = None, **options):
    env = speed_snacks_v1.parallel_env(**options)
    return RLModuleSpec(
        module_class=integration.PolicyRLModule, observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"env_name": "speed_snacks_v1", "num_players": 2, "options": options, "policy": policy,
                      "seed": seed},
    ).build()


def rows(observations: list[dict], seats: list[list[int]]) -> dict:
    return {
        Columns.OBS: {k: np.stack([o[k] for o in observations]) for k in ("observation", "action_mask")},
        integration.SEAT: np.array(seats, np.int64),
    }


def sample(config, **how) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MultiAgentEnvRunner(config=config).sample(explore=True, **how)


def test_policy_module_keeps_one_heuristic_per_seat_and_a_fresh_one_for_each_game():
    module = policy_module("heuristic", **SIZES)
    envs = [speed_snacks_v1.parallel_env(**SIZES) for _ in range(2)]
    games = [0, 0]  # the game number at each sub-env
    bots = [specs.get("speed_snacks_v1").heuristic(2, **SIZES) for _ in envs]
    obs = [env.reset(seed=i)[0] for i, env in enumerate(envs)]
    rng = np.random.default_rng(0)
    differences = ticks = 0
    while ticks < 400:
        order = rng.permutation(2)  # the module must follow seats, not row positions
        seats = [[0, int(i), games[i], 1] for i in order]
        chosen = module.forward_inference(rows([obs[i]["player_1"] for i in order], seats))[Columns.ACTIONS]
        alone = [bots[i].act(obs[i]["player_1"]["observation"], obs[i]["player_1"]["action_mask"]) for i in order]
        differences += int((np.asarray(alone) != chosen).any())
        ticks += 1
        for i, env in enumerate(envs):
            mask = obs[i]["player_0"]["action_mask"]
            obs[i] = env.step({"player_0": int(rng.choice(np.flatnonzero(mask))),
                               "player_1": alone[list(order).index(i)]})[0]
            if not env.agents:  # a new game at this seat: a fresh bot, as RLlib's next episode gets one
                games[i] += 1
                bots[i] = specs.get("speed_snacks_v1").heuristic(2, **SIZES)
                obs[i] = env.reset(seed=10 + games[i])[0]
    assert games[0] + games[1] >= 2 and differences == 0


def test_env_runner_plays_the_heuristic_as_one_bot_per_game():
    config = integration.ppo_config("speed_snacks_v1", opponents={"heuristic": 1.0}, env_options=SIZES, seed=0,
                                    num_envs_per_env_runner=3, net_arch=(16,))
    episodes = sample(config, num_episodes=4)
    played = 0
    for episode in episodes:
        for seat in episode.agent_episodes.values():
            if seat.module_id != "heuristic":
                continue
            bot = specs.get("speed_snacks_v1").heuristic(2, **SIZES)
            obs = seat.get_observations(slice(0, len(seat)))
            replayed = [bot.act(obs["observation"][t], obs["action_mask"][t]) for t in range(len(seat))]
            assert replayed == np.asarray(seat.get_actions()).tolist(), episode.custom_data
            played += 1
    assert played == 4


def test_random_policy_module_is_seeded_by_its_model_config():
    env = speed_snacks_v1.parallel_env()
    obs, _ = env.reset(seed=0)
    batch = {Columns.OBS: {k: np.stack([obs["player_0"][k]] * 16) for k in ("observation", "action_mask")}}
    first, again, other = (policy_module("random", seed).forward_inference(batch)[Columns.ACTIONS] for seed in (0, 0, 1))
    assert first.tolist() == again.tolist() and first.tolist() != other.tolist()


def test_opponent_mapping_draws_from_the_seed_and_game_numbers_not_the_episode_uuid():
    agents = ["player_0", "player_1", "player_2"]
    mix = OpponentMix({"random": 1.0, "heuristic": 1.0, "self": 1.0}, ["main_v1"])

    def seating(seed: int) -> list[list[str]]:
        mapping = integration.OpponentMapping(agents, mix, seed=seed)
        episodes = [types.SimpleNamespace(id_=os.urandom(16).hex(), custom_data={integration.GAME: (1, 0, i)})
                    for i in range(50)]
        return [[mapping(agent, episode) for agent in agents] for episode in episodes]

    assert seating(0) == seating(0) != seating(1)


@pytest.mark.parametrize("name", ["snack_rabbits_v0", "speed_snacks_v1"])
def test_env_runners_with_the_same_seed_sample_the_same_games(name):
    def games(seed: int) -> list:
        config = integration.ppo_config(name, num_players=2, opponents={"random": 0.5, "heuristic": 0.5}, seed=seed,
                                        num_envs_per_env_runner=2, net_arch=(16,))
        played = []
        for episode in sample(config, num_timesteps=300):
            for agent, seat in sorted(episode.agent_episodes.items()):
                played.append((episode.custom_data[integration.GAME], agent, seat.module_id,
                               np.asarray(seat.get_actions()).tolist()))
        return sorted(played)

    first = games(0)
    assert {module for _, _, module, _ in first} == {"main", "random", "heuristic"}
    assert first == games(0) != games(1)


def test_remote_env_runners_deal_games_of_their_own():
    # RLlib seeds EnvRunner w's sub-env i with seed + w + i: runner 1's sub-env 1 and runner 2's sub-env 0
    # would both reset with seed + 2 and deal the same games, unless the envs mix in the runner (runner_seed).
    config = integration.ppo_config("snack_rabbits_v0", num_players=2, opponents={"random": 1.0}, seed=0,
                                    num_env_runners=2, num_envs_per_env_runner=2, net_arch=(16,))
    first_observations = {}
    for runner in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            episodes = MultiAgentEnvRunner(config=config, worker_index=runner).sample(num_timesteps=40, explore=True)
        for episode in episodes:
            runner_index, sub_env, game = episode.custom_data[integration.GAME]
            if game == 0:
                first_observations[runner_index, sub_env] = tuple(
                    np.asarray(seat.get_observations(0)["observation"]).tobytes()
                    for _, seat in sorted(episode.agent_episodes.items()))
    assert sorted(first_observations) == [(1, 0), (1, 1), (2, 0), (2, 1)]
    assert len(set(first_observations.values())) == 4
    # The local EnvRunner keeps RLlib's seed, so its sub-env i deals what env.reset(seed=seed + i) deals.
    assert integration.runner_seed(7, 0) == 7 != integration.runner_seed(7, 1) != integration.runner_seed(7, 2)


SAMPLE_AND_DIGEST = """
import hashlib, warnings
import numpy as np
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from snack_envs.integrations import rllib as integration
warnings.simplefilter("ignore")
config = integration.ppo_config("snack_rabbits_v0", num_players=3, opponents={"self": 1.0}, snapshots=("main_v1",),
                                seed=0, num_envs_per_env_runner=2, net_arch=(16,))
played = sorted((e.custom_data[integration.GAME], a, s.module_id, np.asarray(s.get_actions()).tolist())
                for e in MultiAgentEnvRunner(config=config).sample(num_timesteps=200, explore=True)
                for a, s in e.agent_episodes.items())
print(hashlib.sha256(repr(played).encode()).hexdigest())
"""


def test_the_same_seed_samples_the_same_games_in_another_process():
    # Python's string hashes differ between these two hash seeds, and with them the order of RLlib's sets
    # (possible_agents, the module ids): neither may change the seating or the learner's initial weights.
    digests = []
    for hash_seed in ("1", "3"):
        out = subprocess.run([sys.executable, "-c", SAMPLE_AND_DIGEST], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert out.returncode == 0, out.stderr[-2000:]
        digests.append(out.stdout.split()[-1])
    assert digests[0] == digests[1]
