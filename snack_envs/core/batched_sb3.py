"""A Stable-Baselines3 `VecEnv` over the batched engine, for MaskablePPO self-play (`vec_env: batched`).

Each of the B envs is one game; the learner is agent 0, whose seat the
engine's seat shuffling draws anew each game, or, where the agents differ
(Speed Snacks' `speed_0` / `speed_1`), an agent drawn anew each game, as
`SingleAgentEnv` draws it (`learner`: the learner's agent in each env). The other agents are
opponents drawn per game and per seat by an `OpponentMix` (random, the
game's heuristic, or a frozen snapshot of the learner) and they move inside
`step_wait`: after the learner's action, every env whose next decision is an
opponent's is stepped again (a simultaneous game: opponents act in the same
tick) until the learner is to act in every env. The reward is the learner's,
also when an opponent's move ends the game; a finished game starts again at
once (SB3's auto-reset) and its info holds the Monitor-style `episode`, the
learner's `terminal_observation` and `TimeLimit.truncated` (True for a game
cut at `max_steps`, which SB3's algorithms then bootstrap from, as they do
over the Gymnasium envs in a DummyVecEnv). `seed(s)` takes effect at the
next `reset()`, as SB3's VecEnvs do: the games, the opponents' draws and the
sampled moves of the snapshots in the mix start again from seed s, so the same
seed plays the same games (as in a VecEnv built with s, unless snapshots were
retired before: those took draws of their own when added). `env_method("action_masks")`
answers from the batch, so MaskablePPO needs no wrapper.

Opponents act in batches: random from the masks, snapshots by one torch
forward pass per snapshot, the heuristic natively
(`BatchedEnv.heuristic_actions`, Speed Snacks' bot with its memory).
Needs the `train` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from snack_envs import specs
from snack_envs.core.batched import BatchedEnv, check_int_array
from snack_envs.core.game import ConfigError, IllegalActionError, check_count, check_seed
from snack_envs.opponents import OpponentMix

LEARNER = 0  # the learner's agent where the agents are alike
PART_SEED_STRIDE = 1_000_003  # ConcatVecEnv's part i is seeded with seed + i * PART_SEED_STRIDE
RANDOM, HEURISTIC = -1, -2  # opponent codes; 0.. are snapshot ids, in the order the snapshots were added


class WholeBatchVecEnv(VecEnv):
    """The VecEnv protocol's per-env calls answered for the whole batch: `action_masks` (which
    MaskablePPO asks through `env_method`) and `add_snapshot` (a new frozen opponent for every env);
    `get_attr` / `set_attr` give and set env i's entry of the arrays in `PER_ENV`, and otherwise the
    value that the whole batch shares."""

    PER_ENV: tuple[str, ...] = ()  # attributes that are arrays over the batch, env i's entry at [i]

    def action_masks(self) -> np.ndarray:
        raise NotImplementedError

    def add_snapshot(self, path: str) -> None:
        raise NotImplementedError

    def env_method(self, method_name: str, *args, indices=None, **kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        if method_name == "add_snapshot":
            self.add_snapshot(*args, **kwargs)
            return [None for _ in self._get_indices(indices)]
        raise AttributeError(f"{type(self).__name__} has no per-env method {method_name!r}")

    def get_attr(self, attr_name: str, indices=None):
        value = getattr(self, attr_name)
        if attr_name in self.PER_ENV:
            return [value[i] for i in self._get_indices(indices)]
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        envs = list(self._get_indices(indices))
        if attr_name in self.PER_ENV:
            getattr(self, attr_name)[envs] = value
        elif sorted(envs) == list(range(self.num_envs)):
            setattr(self, attr_name, value)
        else:
            raise AttributeError(f"{attr_name!r} is shared by every env of the batch: set it with indices=None")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None):
        """The seed of the games from the next `reset()` on (None: go on as they are); every env's stream,
        and the sampled moves of the snapshot opponents already added, come from this one seed."""
        seed = check_seed(seed, type(self).__name__)
        if seed is not None:
            self._seed_next_reset(seed)
        return [seed for _ in range(self.num_envs)]

    def _seed_next_reset(self, seed: int) -> None:
        raise NotImplementedError


class BatchedSelfPlayVecEnv(WholeBatchVecEnv):
    PER_ENV = ("learner", "opponent", "returns", "lengths")

    def __init__(self, env_name: str, num_envs: int, num_players: int, seed: int, reward: str,
                 opponents: dict[str, float], max_snapshots: int = 5, **options: Any):
        self.batch = BatchedEnv(env_name, num_envs, num_players=num_players, seed=seed, reward=reward,
                                final_observations=True, **options)
        self.env_name, self.num_players = env_name, num_players
        self.simultaneous = self.batch.simultaneous
        self.mix = OpponentMix(opponents)
        self.max_snapshots = check_count(max_snapshots, "max_snapshots")
        # The mix's snapshots by id, and those of them (or retired ones) that games may still be playing:
        # a game keeps the opponent it drew until it ends, even when a newer snapshot pushes it out of the mix.
        self.snapshot_ids: list[int] = []
        self.playing: dict[int, Any] = {}
        self.snapshots_added = 0
        self.rng = np.random.default_rng(seed)
        self._built_seed, self._next_seed, self._dealt = seed, None, False
        self.opponent = np.full((num_envs, num_players), RANDOM, np.int64)
        self.returns = np.zeros(num_envs)
        self.lengths = np.zeros(num_envs, np.int64)
        self.learner = np.full(num_envs, LEARNER, np.int64)
        probe = specs.get(env_name).env_class(num_players=num_players, **options)
        self.draw_learner = not probe.agents_alike()
        agent = probe.possible_agents[0]
        self.render_mode = None
        super().__init__(num_envs, probe.observation_space(agent)["observation"], probe.action_space(agent))
        self._actions: np.ndarray | None = None
        self._out: tuple = ()

    # --- opponents ----------------------------------------------------------------------------------------
    def add_snapshot(self, path: str) -> None:
        from snack_envs.checkpoints import load_policy

        snapshot = load_policy(path, self.env_name, self.num_players, deterministic=False)
        snapshot.reset(int(self.rng.integers(2**62)))  # its draws come from this env's seed, not the OS's entropy
        self.mix = self.mix.with_snapshots([*self.mix.snapshots, snapshot], keep=self.max_snapshots)
        self.playing[self.snapshots_added] = snapshot
        self.snapshot_ids = [*self.snapshot_ids, self.snapshots_added][-len(self.mix.snapshots):]
        self.snapshots_added += 1
        self._forget_retired()

    def _forget_retired(self) -> None:
        """Let go of the snapshots out of the mix that no game plays any longer."""
        in_use = set(self.snapshot_ids) | set(self.opponent[self.opponent >= 0].tolist())
        self.playing = {i: snapshot for i, snapshot in self.playing.items() if i in in_use}

    def _draw_opponents(self, envs: np.ndarray) -> None:
        """The learner's agent (where the agents differ) and the other agents' opponents in new games."""
        rows = np.flatnonzero(envs)
        n = self.num_players
        if self.draw_learner:
            self.learner[rows] = self.rng.integers(n, size=len(rows))
        kinds, snapshot = self.mix.draw_many(self.rng, len(rows) * (n - 1))
        codes = np.array([RANDOM, HEURISTIC, 0])[kinds]
        drew = snapshot >= 0
        codes[drew] = np.asarray(self.snapshot_ids, np.int64)[snapshot[drew]]
        others = np.arange(n - 1)[None, :] + (np.arange(n - 1)[None, :] >= self.learner[rows, None])
        self.opponent[rows[:, None], others] = codes.reshape(len(rows), n - 1)
        if len(self.playing) > len(self.snapshot_ids):
            self._forget_retired()

    def _opponent_actions(self, obs: np.ndarray, mask: np.ndarray, codes: np.ndarray, todo: np.ndarray) -> np.ndarray:
        """Actions of the opponents of `codes` for the rows where `todo` (rows of obs/mask)."""
        actions = np.zeros(len(codes), np.int64)
        random_rows = todo & (codes == RANDOM)
        if random_rows.any():
            actions[random_rows] = (self.rng.random(mask[random_rows].shape) * mask[random_rows]).argmax(-1)
        for k, snapshot in self.playing.items():
            rows = todo & (codes == k)
            if rows.any():
                actions[rows] = snapshot.act_batch(obs[rows], mask[rows])
        rows = todo & (codes == HEURISTIC)
        if rows.any():
            actions[rows] = self._heuristic(rows)
        return actions

    def _heuristic(self, rows) -> np.ndarray:
        """The native bot's actions for `rows` of the batch's current observations (`_out`'s)."""
        envs = rows.reshape(self.num_envs, self.num_players).any(axis=1) if self.simultaneous else rows
        return self.batch.heuristic_actions(envs).reshape(-1)[rows]

    # --- the VecEnv protocol ----------------------------------------------------------------------------
    def _seed_next_reset(self, seed: int) -> None:
        self._next_seed = seed

    def reset(self):
        seed, self._next_seed = self._next_seed, None
        if seed is not None and (self._dealt or seed != self._built_seed):  # else: the streams are as built
            self.rng = np.random.default_rng(seed)
            for k in self.snapshot_ids:  # the snapshots' sampled moves start again from the new seed too
                self.playing[k].reset(int(self.rng.integers(2**62)))
        self._dealt = True
        self._out = self.batch.reset(seed=seed)
        self._draw_opponents(np.ones(self.num_envs, bool))
        self.returns[:] = 0
        self.lengths[:] = 0
        rewards = np.zeros(self.num_envs)
        done = np.zeros(self.num_envs, bool)
        self._advance(rewards, done, [{} for _ in range(self.num_envs)])
        return self._learner_obs()

    def step_async(self, actions: np.ndarray) -> None:
        self.batch._check_dealt("step_async")  # the engine's own check, named for this VecEnv's call
        self._actions = check_int_array("actions", actions, (self.num_envs,))  # the learner's, one per env

    def step_wait(self):
        if self._actions is None:  # else the learner's seat would play action 0, or the last step's actions again
            raise IllegalActionError("step_wait() without step_async(actions): no actions are waiting")
        actions, self._actions = self._actions, None
        rewards = np.zeros(self.num_envs)
        done = np.zeros(self.num_envs, bool)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        self._play(actions, np.ones(self.num_envs, bool), rewards, done, infos)
        self._advance(rewards, done, infos)
        return self._learner_obs(), rewards.astype(np.float32), done, infos

    def _play(self, learner_actions, envs, rewards, done, infos) -> None:
        """One engine step in `envs`: the learner's actions where it acts, opponents' elsewhere."""
        B, n = self.num_envs, self.num_players
        obs, mask = self._out[0], self._out[1]
        learner = self.learner
        learner_moved = np.zeros(B, bool)  # an episode's length counts the learner's steps, as SB3's Monitor does
        if self.simultaneous:
            codes = self.opponent.reshape(-1)
            todo = (envs[:, None] & (np.arange(n)[None, :] != learner[:, None])).reshape(-1)
            actions = self._opponent_actions(obs.reshape(B * n, -1), mask.reshape(B * n, -1), codes, todo).reshape(B, n)
            if learner_actions is not None:
                actions[np.arange(B), learner] = learner_actions
                learner_moved = envs
        else:
            player = self._out[2]
            theirs = player != learner
            actions = self._opponent_actions(obs, mask, self.opponent[np.arange(B), player], envs & theirs)
            if learner_actions is not None:
                actions = np.where(theirs, actions, learner_actions)
                learner_moved = envs & ~theirs
        self._out = self.batch.step(actions, envs=envs)
        step_rewards, terminated, truncated = self._out[-3:]
        learner_rewards = np.where(envs, step_rewards[np.arange(B), learner], 0.0)
        rewards += learner_rewards
        self.returns += learner_rewards
        self.lengths += learner_moved
        ended = terminated | truncated
        for b in np.flatnonzero(ended):
            done[b] = True
            infos[b]["episode"] = {"r": float(self.returns[b]), "l": int(self.lengths[b])}
            infos[b]["terminal_observation"] = self.batch.final_obs[b, learner[b]].copy()
            infos[b]["TimeLimit.truncated"] = bool(truncated[b] and not terminated[b])
            self.returns[b], self.lengths[b] = 0.0, 0
        if ended.any():
            self._draw_opponents(ended)

    def _advance(self, rewards, done, infos) -> None:
        """Let opponents move until the learner is to act in every env (turn-based games)."""
        if self.simultaneous:
            return
        for _ in range(10_000):
            theirs = self._out[2] != self.learner
            if not theirs.any():
                return
            self._play(None, theirs, rewards, done, infos)
        raise RuntimeError("opponents kept moving: the learner never got a turn")

    def _learner_obs(self) -> np.ndarray:
        return self._out[0][np.arange(self.num_envs), self.learner] if self.simultaneous else self._out[0]

    def action_masks(self) -> np.ndarray:
        self.batch._check_dealt("action_masks")
        mask = self._out[1][np.arange(self.num_envs), self.learner] if self.simultaneous else self._out[1]
        return mask.astype(bool)

    def close(self) -> None:
        pass


class ConcatVecEnv(WholeBatchVecEnv):
    """Several `BatchedSelfPlayVecEnv`s side by side as one VecEnv: one policy trained on several player
    counts at once (`num_players: [2, 3, 4]`), each part one count. A game's observations and actions
    have the same size at every count, so the parts share their spaces."""

    def __init__(self, parts: list[BatchedSelfPlayVecEnv]):
        if not parts:
            raise ConfigError("ConcatVecEnv needs at least one part")
        self.parts = parts
        self.bounds = np.cumsum([0] + [part.num_envs for part in parts])
        self.render_mode = None
        super().__init__(int(self.bounds[-1]), parts[0].observation_space, parts[0].action_space)

    def _seed_next_reset(self, seed: int) -> None:
        for i, part in enumerate(self.parts):
            part.seed(seed + i * PART_SEED_STRIDE)

    def reset(self):
        return np.concatenate([part.reset() for part in self.parts])

    def _part_of(self, indices) -> list[tuple[int, int]]:
        """Each env of `indices` as (its part's index, its index in that part)."""
        envs = list(self._get_indices(indices))
        parts = np.searchsorted(self.bounds, envs, side="right") - 1
        return [(int(k), int(i - self.bounds[k])) for k, i in zip(parts, envs)]

    def get_attr(self, attr_name: str, indices=None):
        return [self.parts[k].get_attr(attr_name, i)[0] for k, i in self._part_of(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        by_part: dict[int, list[int]] = {}
        for k, i in self._part_of(indices):
            by_part.setdefault(k, []).append(i)
        for k, envs in by_part.items():
            self.parts[k].set_attr(attr_name, value, envs)

    def step_async(self, actions: np.ndarray) -> None:
        actions = check_int_array("actions", actions, (self.num_envs,))  # else the parts would take slices of any length
        for part, start, stop in zip(self.parts, self.bounds, self.bounds[1:]):
            part.step_async(actions[start:stop])

    def step_wait(self):
        results = [part.step_wait() for part in self.parts]
        obs, rewards, dones, infos = zip(*results)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for part in infos for i in part]

    def action_masks(self) -> np.ndarray:
        return np.concatenate([part.action_masks() for part in self.parts])

    def add_snapshot(self, path: str) -> None:
        for part in self.parts:
            part.add_snapshot(path)

    def close(self) -> None:
        for part in self.parts:
            part.close()
