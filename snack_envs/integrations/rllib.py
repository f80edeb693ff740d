"""Ray RLlib (new API stack) for every snack env: multi-agent PPO with action masking and self-play.

    import ray
    from snack_envs.integrations.rllib import add_snapshot, load_policy, ppo_config

    ray.init(num_cpus=2, include_dashboard=False)
    algo = ppo_config("snack_rabbits_v0", num_players=2, opponents={"random": 0.5, "self": 0.5}).build_algo()
    algo.train()
    add_snapshot(algo)                     # a frozen copy of the learner joins the opponents
    path = algo.save_to_path("/tmp/rabbits")
    policy = load_policy(path)             # the learner's module, for inference without Ray
    action = policy.act(obs["observation"], obs["action_mask"])

The pieces (needs `pip install "snack-envs[rllib]"`):

- Envs: RLlib's own wrappers around the public PettingZoo envs,
  `PettingZooEnv(<game>.env())` for turn-based games and
  `ParallelPettingZooEnv(<game>.parallel_env())` for simultaneous ones,
  registered with Ray Tune as "snack_envs/<game>_v<N>" (`register_env`);
  a remote EnvRunner's envs mix its index into the seeds RLlib resets them
  with (`runner_seed`), which would otherwise overlap between EnvRunners.
- `MaskedPPOTorchRLModule`: RLlib's current `DefaultPPOTorchRLModule` built on
  the "observation" entry of the env's dict observation, with the logits of the
  actions that "action_mask" forbids pushed to the lowest float (RLlib's masking
  example subclasses the deprecated `PPOTorchRLModule` and expects the key
  "observations"; this module reads the keys named by `OBS_KEY` / `MASK_KEY`).
- `PolicyRLModule`: a frozen module that plays uniformly random legal moves
  ("random") or the game's heuristic bot ("heuristic"), with one policy object
  per seat of each game. Speed Snacks' heuristic remembers earlier ticks, so
  one object shared by the rows of several games (num_envs_per_env_runner > 1)
  or carried from one game into the next would play another bot. The seat of
  each row comes from the episode: `GameNumbers` (an RLlib callback) numbers
  each episode by its EnvRunner, sub-env and game there (custom_data[GAME]),
  and `AddSeatsToBatch` (first in the env-to-module pipeline) hands each row's
  seat to the module (column SEAT). A new game at a seat gets a fresh policy.
- Self-play (`OpponentMapping`): each episode one agent is played by the
  learner module "main"; every other agent draws, by the `opponents` weights,
  "random", "heuristic" or a frozen snapshot of the learner ("main_v1", ...,
  added during training by `add_snapshot`), with `snack_envs.opponents`, the
  draw `snack-train`'s SB3 backend makes too (until the first snapshot exists
  the "self" weight goes to the heuristic). Only "main" is trained.
- Seeds: `ppo_config(seed=...)` seeds the seating draws (keyed on the game
  numbers, not on the episode's uuid) and the random policies of the
  `PolicyRLModule`s (model_config["seed"], with the game and seat), besides
  RLlib's own seeding (`.debugging(seed=...)`: envs, with `runner_seed`,
  and torch). So an EnvRunner built with the same seed samples the same
  games, in any process, and no two EnvRunners deal the same games (tested);
  whole `algo.train()` runs repeated too where we tried (no or one remote
  EnvRunner), but RLlib promises no such thing (e.g. a remote EnvRunner's
  sample that misses `sample_timeout_s`, or a restarted EnvRunner).
  `ppo_config` sets the config's callbacks and env-to-module connector; to add
  your own, keep `GameNumbers` and `seat_connector` among them.
- A trained module is an RLlib checkpoint directory; `load_policy` restores it
  with `RLModule.from_checkpoint` (no running Ray needed) as a policy with the
  project's `act(observation, action_mask)` interface.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import gymnasium
import numpy as np

from snack_envs import extras, specs
from snack_envs.checkpoints import RLLIB_RUN_FORMAT, CheckpointError, LogitsPolicy, check_fits, check_network, env_facts, read_metadata
from snack_envs.core.game import ConfigError, check_bool, check_count, check_seed, is_int
from snack_envs.core.rollout import RandomPolicy
from snack_envs.opponents import OpponentMix, check_keep

with extras.needed("snack_envs.integrations.rllib"):
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.connectors.connector_v2 import ConnectorV2
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from ray.tune.registry import register_env as _tune_register_env


LEARNER = "main"
GAME = "snack_game"  # episode.custom_data[GAME]: (EnvRunner index, sub-env index, game number there)
SEAT = "snack_seat"  # batch column: each row's [*GAME, crc32 of its agent id]


# --- envs -------------------------------------------------------------------------------------
def runner_seed(seed: int, runner_index: int) -> int:
    """The seed a remote EnvRunner's sub-env resets with, for the `seed` RLlib hands it.

    RLlib seeds EnvRunner w with config seed + w and its sub-env i with that + i, so with several remote
    EnvRunners of several sub-envs each, EnvRunner 1's sub-env 1 and EnvRunner 2's sub-env 0 would deal
    the same games. Mixing in the EnvRunner's index gives every sub-env its own stream; the local
    EnvRunner (index 0) keeps RLlib's seed, so it deals what `env.reset(seed=...)` deals."""
    if not runner_index:
        return seed
    return int(np.random.SeedSequence([seed, runner_index]).generate_state(1, np.uint64)[0])


class _SeedPerRunner:
    """Mixin for RLlib's PettingZoo wrappers: reset(seed=s) reseeds with `runner_seed(s, runner_index)`."""

    runner_index = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = runner_seed(seed, self.runner_index)
        return super().reset(seed=seed, options=options)


class SnackPettingZooEnv(_SeedPerRunner, PettingZooEnv):
    """RLlib's `PettingZooEnv`, seeded per EnvRunner (`runner_seed`)."""


class SnackParallelPettingZooEnv(_SeedPerRunner, ParallelPettingZooEnv):
    """RLlib's `ParallelPettingZooEnv`, seeded per EnvRunner (`runner_seed`)."""


def make_multi_agent_env(env_name: str, *, runner_index: int = 0, **env_kwargs: Any):
    """RLlib's PettingZoo wrapper around the public env: AEC for turn-based games, parallel otherwise.
    `runner_index`: the EnvRunner it is built in (0: the local one), whose seeds it keeps apart (`runner_seed`)."""
    spec = specs.get(env_name)
    if spec.simultaneous:
        env = SnackParallelPettingZooEnv(spec.entry_points().parallel_env(**env_kwargs))
    else:
        env = SnackPettingZooEnv(spec.entry_points().env(**env_kwargs))
    env.runner_index = runner_index
    return env


def _env_creator(env_name: str):
    def create(env_config: dict):
        # RLlib passes an EnvContext, a dict that also knows the EnvRunner it builds the env in.
        return make_multi_agent_env(env_name, runner_index=getattr(env_config, "worker_index", 0) or 0,
                                    **dict(env_config))

    return create


def register_env(env_name: str) -> str:
    """Register the game with Ray Tune (env_config = the env's keywords); returns the id "snack_envs/<game>"."""
    env_id = f"snack_envs/{specs.get(env_name).env_name}"  # an unknown name now, not when Ray first builds it
    _tune_register_env(env_id, _env_creator(env_name))
    return env_id


# --- modules ----------------------------------------------------------------------------------
class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module on a dict observation {OBS_KEY: vector, MASK_KEY: legal actions}.

    The encoder, policy and value nets are the default ones for the OBS_KEY
    space (configured by `model_config`, e.g. {"fcnet_hiddens": [256, 256]});
    the logits of illegal actions get FLOAT_MIN added, so sampling, argmax and
    the PPO loss all see only legal actions."""

    OBS_KEY = "observation"
    MASK_KEY = "action_mask"

    def __init__(self, *, observation_space=None, **kwargs):
        # The default nets are built for the vector alone; the module keeps the dict space
        # (restored after setup) so that checkpoints and copies are built for the env's space.
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space[self.OBS_KEY], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self._space_with_mask

    def _split(self, batch: dict) -> tuple[Any, dict]:
        obs = batch[Columns.OBS]
        return obs[self.MASK_KEY], {**batch, Columns.OBS: obs[self.OBS_KEY]}

    def _masked(self, out: dict, mask) -> dict:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(mask.bool(), logits, logits + FLOAT_MIN)
        return out

    def _forward(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


class PolicyRLModule(RLModule):
    """A frozen module playing a fixed policy: model_config = {"policy": "random" | "heuristic", "env_name",
    "num_players", "options", "seed"}: uniform over the legal actions, or the game's heuristic bot
    (`GameSpec.heuristic`). Never trained (keep it out of `policies_to_train`).

    One policy object per seat (a sub-env and agent, by the batch's SEAT column), replaced by a fresh one,
    reset with a seed drawn from "seed" and the game, when a new game starts there. A batch without SEAT
    (the module called directly) is one game: row i is seat i."""

    def setup(self):
        cfg = dict(self.model_config or {})
        if cfg["policy"] not in ("random", "heuristic"):
            raise ValueError(f"policy={cfg['policy']!r}: PolicyRLModule plays 'random' or 'heuristic'")
        self.seed = np.random.SeedSequence().entropy if cfg.get("seed") is None else cfg["seed"]
        self.seats: dict[tuple, tuple[tuple, Any]] = {}  # (sub-env, agent) -> (its game's seat, its policy)

    def new_policy(self, seat: tuple):
        cfg = self.model_config
        if cfg["policy"] == "heuristic":
            policy = specs.get(cfg["env_name"]).heuristic(cfg["num_players"], **cfg.get("options", {}))
        else:
            policy = RandomPolicy()
        policy.reset(int(np.random.SeedSequence([self.seed, *seat]).generate_state(1, np.uint64)[0]))
        return policy

    def policy_for(self, seat: tuple):
        """The policy of `seat` ([EnvRunner, sub-env, game number, agent]), a fresh one for a new game there."""
        place = (seat[1], seat[3])
        known = self.seats.get(place)
        if known is None or known[0] != seat:
            known = self.seats[place] = (seat, self.new_policy(seat))
        return known[1]

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        observations = np.asarray(obs[MaskedPPOTorchRLModule.OBS_KEY])
        masks = np.asarray(obs[MaskedPPOTorchRLModule.MASK_KEY])
        if SEAT in batch:
            seats = np.asarray(batch[SEAT]).tolist()
        else:
            seats = [[0, 0, 0, row] for row in range(len(masks))]
        actions = [self.policy_for(tuple(seat)).act(o, m) for seat, o, m in zip(seats, observations, masks)]
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} plays a fixed policy and is never trained")


class GameNumbers(RLlibCallback):
    """Numbers each episode where it is created: custom_data[GAME] = (EnvRunner index, sub-env index,
    games created in that sub-env before it), the same in every run, unlike the episode's uuid."""

    def __init__(self):
        super().__init__()
        self.games_created: Counter = Counter()

    def on_episode_created(self, *, episode, env_runner, env_index: int, **kwargs) -> None:
        episode.custom_data[GAME] = (env_runner.worker_index or 0, env_index, self.games_created[env_index])
        self.games_created[env_index] += 1


class AddSeatsToBatch(ConnectorV2):
    """Env-to-module piece: each row's seat in column SEAT, [*episode.custom_data[GAME], crc32 of the agent id].

    It runs first, so RLlib maps rows to modules by this column (AgentToModuleMapping reads the first
    column): it adds a row for every agent that RLlib's observations piece adds one for, with the same
    episode iterator, in the same order."""

    def __call__(self, *, rl_module, batch, episodes, explore=None, shared_data=None, **kwargs):
        games = {episode.id_: episode.custom_data[GAME] for episode in episodes}
        for sa_episode in self.single_agent_episode_iterator(episodes, agents_that_stepped_only=True):
            agent = zlib.crc32(str(sa_episode.agent_id).encode())
            seat = np.array([*games[sa_episode.multi_agent_episode_id], agent], np.int64)
            self.add_batch_item(batch, SEAT, seat, single_agent_episode=sa_episode)
        return batch


def seat_connector(env=None, spaces=None, device=None) -> list:
    """`env_to_module_connector` of `ppo_config`: AddSeatsToBatch, before RLlib's default pieces."""
    return [AddSeatsToBatch()]


# --- self-play ----------------------------------------------------------------------------------
class OpponentMapping:
    """Agent -> module id for one episode (see the module docstring): one agent, drawn from `seed` and the
    episode's game numbers (custom_data[GAME], from `GameNumbers`), is the learner; each other agent draws its
    opponent from `snack_envs.opponents.OpponentMix`, seeded by `seed`, the game numbers and the agent. So the
    mapping is stable within an episode, and the same seed seats the same opponents in every run."""

    def __init__(self, agents: list[str], mix: OpponentMix, seed: int | None = None):
        self.agents = sorted(agents)  # RLlib's PettingZoo wrappers order possible_agents by a set's hashes
        self.mix = mix
        self.seed = np.random.SeedSequence().entropy if seed is None else seed

    @property
    def snapshots(self) -> tuple[str, ...]:
        return self.mix.snapshots

    def with_snapshots(self, snapshots) -> "OpponentMapping":
        return OpponentMapping(self.agents, self.mix.with_snapshots(snapshots), self.seed)

    def __call__(self, agent_id, episode, **kwargs) -> str:
        try:
            game = episode.custom_data.get(GAME)
        except AttributeError:  # RLlib's `MultiAgentEpisode.cut` asks before the episode has custom_data,
            return LEARNER      # for agents whose modules it already knows (it drops this answer)
        if game is None:
            raise ConfigError(f"episode {episode.id_} has no game numbers (custom_data[{GAME!r}]): add "
                              f"snack_envs.integrations.rllib.GameNumbers to the config's callbacks")
        learner = self.agents[int(np.random.default_rng([self.seed, *game]).integers(len(self.agents)))]
        if agent_id == learner:
            return LEARNER
        return self.mix.draw(np.random.default_rng([self.seed, *game, 1 + self.agents.index(agent_id)]))


def ppo_config(
    env_name: str,
    *,
    num_players: int | None = None,
    reward: str = "win",
    env_options: dict | None = None,
    opponents: dict[str, float] | None = None,
    snapshots: tuple[str, ...] = (),
    net_arch: tuple[int, ...] = (256, 256),
    seed: int | None = None,
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 1,
    **training: Any,
) -> PPOConfig:
    """A multi-agent PPO config on the new API stack; `training` goes to `PPOConfig.training` (lr, gamma, ...).

    `opponents`: weights of "random", "heuristic" and "self" (default: random
    and self half each). `snapshots`: ids of snapshot modules to create (when
    rebuilding a run that had added some, before `restore_from_path`), each "main_v<k>" as `add_snapshot`
    names them. `seed`: RLlib's (envs, torch) and
    the opponents' (seating, random and heuristic play); None draws fresh entropy."""
    seed = check_seed(seed, "ppo_config")
    snapshots = check_snapshot_ids(snapshots)
    if isinstance(net_arch, (str, bytes)) or not isinstance(net_arch, Sequence) or not net_arch or not all(
            is_int(width) and width > 0 for width in net_arch):
        raise ConfigError(f"ppo_config: net_arch must be a non-empty list of layer widths (ints from 1), got {net_arch!r}")
    check_count(num_env_runners, "num_env_runners", least=0, owner="ppo_config")
    check_count(num_envs_per_env_runner, "num_envs_per_env_runner", owner="ppo_config")
    if env_options is not None and not isinstance(env_options, dict):
        raise ConfigError(f"ppo_config: env_options must be a dict of the env's keywords, got {env_options!r}")
    if twice := sorted({"num_players", "reward"} & set(env_options or {})):  # which of the two would count?
        raise ConfigError(f"ppo_config: give {', '.join(twice)} as ppo_config's own argument, not in env_options")
    env_kwargs = {"num_players": num_players, "reward": reward, **(env_options or {})}
    probe = make_multi_agent_env(env_name, **env_kwargs)
    agents = list(probe.possible_agents)
    mix = OpponentMix({"random": 0.5, "self": 0.5} if opponents is None else opponents, snapshots)
    mapping = OpponentMapping(agents, mix, seed)
    fixed = {"env_name": env_name, "num_players": len(agents), "options": dict(env_options or {}), "seed": seed}
    learner = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": list(net_arch)})
    modules = {LEARNER: learner}
    for kind in ("random", "heuristic"):
        modules[kind] = RLModuleSpec(module_class=PolicyRLModule, model_config={**fixed, "policy": kind})
    modules.update((sid, learner) for sid in snapshots)
    return (
        PPOConfig()
        # RLlib's env check steps each env with an unmasked random action: an illegal move, which PettingZoo
        # warns about once per env built (64 lines for 64 envs). The envs pass PettingZoo's own API tests.
        .environment(register_env(env_name), env_config=env_kwargs, disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner,
                     env_to_module_connector=seat_connector)
        .callbacks(GameNumbers)
        .learners(num_learners=0)
        # A list: a set's order (by string hashes, per process) would change the order torch initialises modules in.
        .multi_agent(policies=list(modules), policy_mapping_fn=mapping, policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(**training)
        .debugging(seed=seed)
    )


def check_snapshot_ids(snapshots: Sequence[str]) -> tuple[str, ...]:
    """`snapshots` as a tuple of distinct snapshot module ids, each "main_v<k>" as `add_snapshot` names them
    (k from 1), else a ConfigError: another id would replace the learner or a bot's module, or be numbered
    wrongly by the next `add_snapshot`."""
    if isinstance(snapshots, (str, bytes)) or not isinstance(snapshots, Sequence):
        raise ConfigError(f"snapshots must be a list or tuple of snapshot ids ({LEARNER}_v1, ...), got {snapshots!r}")
    bad = [s for s in snapshots if not isinstance(s, str) or not re.fullmatch(rf"{LEARNER}_v[1-9][0-9]*", s)]
    if bad:
        raise ConfigError(f"snapshot ids are {LEARNER}_v1, {LEARNER}_v2, ... (as add_snapshot names them), got {bad}")
    if len(set(snapshots)) < len(snapshots):
        raise ConfigError(f"snapshot ids must differ, got {list(snapshots)}")
    return tuple(snapshots)


def add_snapshot(algo, max_snapshots: int | None = None) -> str:
    """Add a frozen copy of the learner to the opponents ("main_v<k>"), dropping the oldest beyond max_snapshots."""
    check_keep(max_snapshots, "max_snapshots")
    mapping: OpponentMapping = algo.config.policy_mapping_fn
    number = 1 + max((int(s.rsplit("_v", 1)[1]) for s in mapping.snapshots), default=0)
    new_id = f"{LEARNER}_v{number}"
    snapshots = [*mapping.snapshots, new_id]
    dropped = snapshots[: -max_snapshots] if max_snapshots else []
    snapshots = snapshots[len(dropped):]
    main = algo.get_module(LEARNER)
    algo.add_module(
        module_id=new_id,
        module_spec=RLModuleSpec.from_module(main),
        new_agent_to_module_mapping_fn=mapping.with_snapshots(snapshots),
    )
    learner_state = algo.learner_group.get_state(components=f"learner/rl_module/{LEARNER}")
    weights = learner_state["learner"]["rl_module"][LEARNER]
    algo.set_state({"learner_group": {"learner": {"rl_module": {new_id: weights}}}})  # also syncs the env runners
    for old in dropped:
        algo.remove_module(old, new_agent_to_module_mapping_fn=mapping.with_snapshots(snapshots))
    return new_id


# --- inference without Ray ---------------------------------------------------------------------
class RLModulePolicy(LogitsPolicy):
    """A masked RLModule as a project policy: `act(observation, action_mask) -> int` (argmax, or sampled)."""

    def __init__(self, module: RLModule, name: str = "rllib", deterministic: bool = True, seed: int | None = None):
        super().__init__(name, deterministic, seed)
        self.module = module
        self.observation_size, self.num_actions = module_sizes(module)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs = {
            MaskedPPOTorchRLModule.OBS_KEY: torch.as_tensor(np.asarray(observation, np.float32)[None]),
            MaskedPPOTorchRLModule.MASK_KEY: torch.as_tensor(np.asarray(action_mask)[None]),
        }
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: obs})
        return out[Columns.ACTION_DIST_INPUTS][0].double().numpy()


def module_sizes(module: RLModule) -> tuple[int | None, int | None]:
    """A module's observation vector size and action count, each None where its spaces do not say."""
    obs_space = module.observation_space
    if isinstance(obs_space, gymnasium.spaces.Dict):
        obs_space = obs_space[MaskedPPOTorchRLModule.OBS_KEY]
    shape = getattr(obs_space, "shape", None)
    num_actions = getattr(module.action_space, "n", None)
    return (int(shape[0]) if shape is not None and len(shape) == 1 else None,
            int(num_actions) if num_actions is not None else None)


def module_path(checkpoint: str | Path, module_id: str = LEARNER) -> Path:
    """Where an Algorithm checkpoint (a folder with `learner_group/`) keeps one module, whether or not it is
    there; a module checkpoint is returned as it is."""
    path = Path(checkpoint)
    if not (path / "learner_group").is_dir():
        return path
    return path / "learner_group" / "learner" / "rl_module" / module_id


def load_policy(
    checkpoint: str | Path,
    module_id: str = LEARNER,
    deterministic: bool = True,
    env_name: str | None = None,
    num_players: int | None = None,
) -> RLModulePolicy:
    """Restore the learner's module from an Algorithm (or module) checkpoint, without starting Ray.

    With `env_name` (and `num_players`), refuse a checkpoint made for another game, version or player
    count (a `CheckpointError` naming the path): by the run's metadata beside the folder (`final.json`
    for `<run>/final`, written by `snack-train --backend rllib`) where there is one, and always by the
    module's observation and action sizes."""
    path = Path(checkpoint)
    check_bool(deterministic, "deterministic", path.name)  # before loading the module, which takes seconds
    inner = module_path(path, module_id)
    try:
        if not (inner / "class_and_ctor_args.pkl").is_file():
            raise CheckpointError(f"not an RLlib checkpoint (no module {module_id!r} in it)")
        meta_path = path.with_suffix(".json")
        meta = read_metadata(meta_path, (RLLIB_RUN_FORMAT,)) if meta_path.is_file() else None
        facts = check_fits(meta, env_name, num_players) if meta is not None else None
        module = RLModule.from_checkpoint(inner.resolve())
        if facts is None and env_name is not None:  # no metadata: the env at the asked (or its default) player count
            facts = env_facts(env_name, num_players or len(specs.get(env_name).raw_env().possible_agents))
        if facts is not None:
            check_network(*module_sizes(module), facts)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: {error}") from None
    module.eval()
    return RLModulePolicy(module, name=path.name, deterministic=deterministic)
