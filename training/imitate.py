"""Behaviour cloning: start a MaskablePPO policy by imitating the heuristic bot ("kickstarting"), or the search bot.

    imitation: {games: 2000, epochs: 10}     # in a training config; games: 0 turns it off

PPO from scratch spends most of a run rediscovering what the heuristic already
knows. With `imitation.games` > 0 a fresh run first plays that many games in
its own training env (the learner's seat and opponents as in training), the
learner's seat played by the heuristic; every decision of that seat is a
sample (observation, mask, action), with the discounted final reward of its
game as the value target. The policy is then fitted by masked cross-entropy
and the value head by mean squared error, and PPO starts from there.

A heuristic that rates several actions equally best (`best_actions`, as
Snack Time's does for most pipe placements: it plays the first in action
order) also gives each sample that set; the policy is then fitted to put its
probability on the set (the log of the set's total probability), not on the
arbitrary first, and a prediction counts as right anywhere in it.

A clone meets states its teacher never led it to, and errs there more than the
accuracy on the teacher's own games says (errors compound over a game). DAgger
(Ross, Gordon and Bagnell 2011) fixes that: with `dagger_rounds` > 0, each
round plays `dagger_games` games with the clone itself in the learner's seat
(its best action, as a checkpoint plays), labels every state it visits with
the heuristic's choice there, adds those samples to all that came before and
fits the policy again on them all (`dagger_epochs` epochs):

    imitation: {games: 4000, epochs: 6, dagger_rounds: 4, dagger_games: 1000, dagger_epochs: 2}

Each round reports how often the clone's own choice was one the heuristic
would have made, and the clone's mean final reward in its games (with reward
`score`, its mean score over the game's score scale): the progress DAgger makes.

`teacher: search` (Snack Time, Snack Wars) labels with the search bot instead
(`snack_envs.search`: heuristic playouts from every legal action; its default
budget, about 0.07 s a decision in Snack Wars, or the one `search: {samples,
first, keep, objective}` sets), whose choices are stronger than
the heuristic's: expert iteration's step, where the network learns what a search
finds. Its label is the set of actions sharing the best mean playout. With
`init_from` it refines a trained policy: with `games: 0`, DAgger rounds alone,
the checkpoint's own games labelled by the search (configs/snack_wars_v0_2p.yaml;
`workers` plays them in that many processes, `timesteps: 0` adds no PPO):

    init_from: checkpoints/snack_wars_v0.zip
    timesteps: 0
    imitation: {teacher: search, games: 0, dagger_rounds: 1, dagger_games: 8000, dagger_epochs: 8, workers: 2}

In a run folder the imitation keeps its finished parts as it goes (`Progress`,
`<run>/imitation/`): each part of PART_GAMES games' samples as it is played,
and the weights after each fit. A run stopped in it (SIGINT, SIGTERM, a lost
machine) resumes it with `snack-train --resume <run>`, losing at most the parts
being played; the samples and weights come out the same as in a run never
stopped (game g of a phase is seeded alike wherever and whenever it is played).
"""

from __future__ import annotations

import contextlib
import json
import pickle
import time
import zipfile
from pathlib import Path
from typing import Callable, Generator, Iterator

import numpy as np

from snack_envs.agents import heuristic_policy
from snack_envs.checkpoints import write_atomic, write_json_atomic
from snack_envs.core.game import ConfigError
from snack_envs.training.config import read_run_json

IMITATION_DIR = "imitation"  # in a run folder: the imitation's finished parts (`Progress`)
SAMPLE_ARRAYS = {"observations", "masks", "actions", "returns"}  # in every part of samples (`collect`)
PART_GAMES = 100  # games per saved part of a phase's samples: what a stopped run can lose of each process's work


def make_teacher(config: dict, num_players: int, seed: int):
    """The config's `imitation.teacher` for `num_players` players: the heuristic, or the search bot."""
    env_cfg = config["env"]
    options = env_cfg.get("options", {})
    imitation = config.get("imitation") or {}
    if imitation.get("teacher", "heuristic") == "search":
        from snack_envs.search import SearchPolicy

        return SearchPolicy(env_cfg["name"], num_players, seed, **imitation.get("search", {}), **options)
    return heuristic_policy(env_cfg["name"], num_players, **options)


def collect(env, config: dict, games: int, seed: int, student=None) -> dict[str, np.ndarray]:
    """The teacher's decisions in `games` games of `env`, the training env (a SingleAgentEnv), which
    this closes (see the module docstring). With a `student` (a Policy), the student plays the learner's
    seat and the teacher only labels the states it reaches (a DAgger round); the data then also holds
    `played` (the student's actions) and `finals` (each game's final reward)."""
    teacher = make_teacher(config, env.num_players, seed)
    gamma = config["algo"]["gamma"]
    if getattr(teacher, "uses_game", False):  # the search: it labels from the game, the learner's seat
        raw = env.raw

        def best_actions(obs, mask):
            return teacher.best_actions(raw.game, raw.agent_seats[env.learner])
    else:
        best_actions = getattr(teacher, "best_actions", None)
    observations, masks, actions, returns, targets, played, finals = [], [], [], [], [], [], []
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        teacher.reset(seed + game)
        if student is not None:
            student.reset(seed + game)
        start, done, reward = len(actions), False, 0.0
        while not done:
            mask = env.action_masks()
            if best_actions is None:
                action = teacher.act(obs, mask)
            else:
                tied = best_actions(obs, mask)
                action = tied[0]
                targets.append(np.zeros(len(mask), bool))
                targets[-1][tied] = True
            observations.append(obs)
            masks.append(mask)
            actions.append(action)
            if student is not None:
                action = student.act(obs, mask)
                played.append(action)
            obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        steps = len(actions) - start
        returns += [reward * gamma ** (steps - 1 - t) for t in range(steps)]
        finals.append(reward)
    env.close()
    data = {
        "observations": np.asarray(observations, np.float32),
        "masks": np.asarray(masks, bool),
        "actions": np.asarray(actions, np.int64),
        "returns": np.asarray(returns, np.float32),
    }
    if targets:
        data["targets"] = np.asarray(targets, bool)
    if student is not None:
        data["played"] = np.asarray(played, np.int64)
        data["finals"] = np.asarray(finals, np.float64)
    return data


def agreement(data: dict[str, np.ndarray]) -> float:
    """How often a DAgger round's student played an action its teacher would have (any of its set)."""
    n = len(data["played"])
    if "targets" in data:
        return float(data["targets"][np.arange(n), data["played"]].mean())
    return float((data["played"] == data["actions"]).mean())


def clone(model, data: dict[str, np.ndarray], epochs: int, batch_size: int = 512, lr: float = 1e-3, seed: int = 0) -> dict:
    """Fit `model.policy` to the samples; returns the last epoch's loss and action accuracy (each batch's,
    before its update; with `targets`, a prediction anywhere in the sample's set of best actions is right)."""
    import torch
    import torch.nn.functional as F

    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    tensors = {k: torch.as_tensor(v) for k, v in data.items()}
    n = len(data["actions"])
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        total_loss, correct = 0.0, 0
        for batch in np.array_split(rng.permutation(n), max(1, n // batch_size)):
            index = torch.as_tensor(batch)
            obs, mask = tensors["observations"][index], tensors["masks"][index]
            actions, returns = tensors["actions"][index], tensors["returns"][index]
            # The same passes as `evaluate_actions`, keeping the distribution for the accuracy.
            distribution = policy.get_distribution(obs, action_masks=mask)
            values = policy.predict_values(obs)
            if "targets" in tensors:
                target = tensors["targets"][index]
                log_prob = torch.logsumexp(distribution.distribution.logits.masked_fill(~target, -torch.inf), 1)
            else:
                target = None
                log_prob = distribution.log_prob(actions)
            loss = -log_prob.mean() + 0.5 * F.mse_loss(values.flatten(), returns)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            predicted = distribution.distribution.probs.detach().argmax(1)
            total_loss += float(loss.detach()) * len(batch)
            if target is None:
                correct += int((predicted == actions).sum())
            else:
                correct += int(target[torch.arange(len(batch)), predicted].sum())
    policy.set_training_mode(False)
    return {"samples": n, "loss": total_loss / n, "accuracy": correct / n}


def concatenate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Samples of several parts as one, in order."""
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def collect_parts(make_env: Callable, n: int, config: dict, parts: list[tuple[int, int]], student=None,
                  workers: int = 1) -> Iterator[dict[str, np.ndarray]]:
    """`collect` of each part, (games, seed), in `make_env(n)`, yielded in order as they are done, played by
    `workers` processes: the same samples as one process gives (game g of a part is seeded seed + g wherever
    it is played). A student goes to the workers as its model, saved to a temporary file."""
    if not parts:
        return
    if workers == 1 or len(parts) == 1:
        for games, seed in parts:
            yield collect(make_env(n), config, games, seed, student)
        return
    import multiprocessing
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = None
        if student is not None:
            path = str(Path(folder) / "student.zip")
            student.model.save(path)
        jobs = [(make_env, n, config, games, seed, path, str(Path(folder) / f"part{k}.npz"))
                for k, (games, seed) in enumerate(parts)]
        # Leaving the block terminates the workers: a run stopped here does not wait for the parts in play.
        # A worker hands back the file it saved its samples in, not the samples: a worker terminated in the
        # middle of sending megabytes through the result pipe leaves half a message there, and the pool's
        # terminate() then waits for the rest of it for ever (Python's multiprocessing); a short message
        # is written whole or not at all.
        with multiprocessing.get_context("spawn").Pool(min(workers, len(parts)), initializer=_ignore_sigint) as pool:
            for saved in map(Path, pool.imap(_collect_part, jobs)):
                samples = _read_npz(saved)
                saved.unlink()
                yield samples


def _ignore_sigint() -> None:
    """A worker's: Ctrl-C reaches the whole process group, and the run (the parent) is what stops."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _collect_part(job: tuple) -> str:
    """One worker's part of `collect_parts`: its samples, saved to the job's file, whose path it returns."""
    make_env, n, config, games, seed, student_path, out = job
    student = None
    if student_path is not None:
        import torch
        from sb3_contrib import MaskablePPO

        from snack_envs.checkpoints import CheckpointPolicy

        torch.set_num_threads(1)
        student = CheckpointPolicy(MaskablePPO.load(student_path, device="cpu"), "student")
    np.savez(out, **collect(make_env(n), config, games, seed, student))
    return out


class Progress:
    """The imitation's finished parts in a run folder, `<run>/imitation/`, so that a stopped run resumes it:
    its samples part by part as they are played (`<phase>-<n>p-<first game>.npz`, phases "clone", "round1",
    ...), and after each phase's fit the policy's weights and the fit's stats (`<phase>.pt`, `<phase>.json`).
    `settings.json` holds what they depend on (the env, seed, init_from, imitation settings and network);
    resuming with other settings is refused. Every file is written whole or not at all. With no folder
    (`folder=None`), nothing is saved and each phase's games are played in one go."""

    def __init__(self, folder: Path | None, config: dict):
        self.folder = folder
        if folder is None:
            return
        algo = config["algo"]
        settings = {"env": config["env"], "seed": config["seed"], "init_from": config.get("init_from"),
                    "imitation": {k: v for k, v in (config.get("imitation") or {}).items() if k != "workers"},
                    "network": {k: algo.get(k) for k in ("policy", "net_arch", "grid")}, "gamma": algo["gamma"]}
        settings = json.loads(json.dumps(settings))  # as JSON reads it back (tuples as lists)
        path = folder / "settings.json"
        if path.is_file():
            saved = read_run_json(path, "an imitation's settings")
            if saved != settings:
                changed = sorted(k for k in settings if saved.get(k) != settings[k])
                raise ConfigError(f"{folder} holds an imitation begun with other {', '.join(changed)} settings than "
                                  f"the config's now: put them back, or delete {folder} to imitate anew")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            write_json_atomic(path, settings)

    def samples(self, name: str, games: int, seed: int,
                play: Callable[[list[tuple[int, int]]], Generator[dict, None, None]]) -> dict:
        """The samples of `games` games seeded from `seed`, in parts of PART_GAMES games: those saved already,
        and the rest from `play(parts)` (which yields each part's samples in order), each saved as it comes."""
        starts = range(0, games, PART_GAMES)
        paths = {start: None if self.folder is None else self.folder / f"{name}-{start}.npz" for start in starts}
        todo = [start for start in starts if paths[start] is None or not paths[start].is_file()]
        played = {}
        # Closed on leaving: a stop here (Ctrl-C) ends the worker processes now, not whenever it is collected.
        with contextlib.closing(play([(min(PART_GAMES, games - start), seed + start) for start in todo])) as parts:
            for start, part in zip(todo, parts):
                if paths[start] is not None:  # about 45 times smaller than in memory
                    write_atomic(paths[start], lambda file, part=part: np.savez_compressed(file, **part), "wb")
                played[start] = part
        parts = {start: played[start] if start in played else _read_npz(paths[start]) for start in starts}
        arrays = sorted(next(iter(played.values()), parts[starts[0]]))  # what every part holds
        for start in starts:
            if sorted(parts[start]) != arrays:
                raise _damaged(paths[start], f"its arrays {sorted(parts[start])} are not the other parts' {arrays}")
        return concatenate(list(parts.values()))

    def fitted(self, phase: str) -> dict | None:
        """The stats of `phase`'s fit, if saved."""
        path = None if self.folder is None else self.folder / f"{phase}.json"
        if path is None or not path.is_file():
            return None
        return read_run_json(path, "an imitation fit's stats", numbers=("games", "samples", "accuracy", "seconds"))

    def load_weights(self, model, phase: str) -> None:
        import torch

        path = self.folder / f"{phase}.pt"
        try:
            model.policy.load_state_dict(torch.load(path, map_location="cpu"))
        except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError) as error:
            raise ConfigError(f"{path} holds no weights of this policy ({type(error).__name__}): delete it and "
                              f"{path.with_suffix('.json').name} and resume, and the {phase} fit runs again") from None

    def save_fit(self, model, phase: str, stats: dict) -> None:
        """The weights after `phase`'s fit, then its stats (the stats say the weights are there)."""
        if self.folder is None:
            return
        import torch

        write_atomic(self.folder / f"{phase}.pt", lambda file: torch.save(model.policy.state_dict(), file), "wb")
        write_json_atomic(self.folder / f"{phase}.json", stats)


def imitates(config: dict) -> bool:
    """Whether the config asks for an imitation: cloning games or DAgger rounds."""
    settings = config.get("imitation") or {}
    return bool(settings.get("games") or settings.get("dagger_rounds"))


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    """A part of samples saved by `Progress.samples`: its arrays (SAMPLE_ARRAYS one row a decision); a ConfigError
    if the file is damaged."""
    try:
        with np.load(path) as arrays:
            part = dict(arrays)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise _damaged(path, f"{type(error).__name__}: {error}") from None
    if not SAMPLE_ARRAYS <= set(part) or len({part[key].shape[:1] for key in SAMPLE_ARRAYS}) != 1 or not all(
            array.ndim for array in part.values()):
        raise _damaged(path, f"its arrays {sorted(part)} are no part of samples")
    return part


def _damaged(path: Path, why: str) -> ConfigError:
    return ConfigError(f"{path} is damaged ({why}): delete it and resume, and its games are played again")


def kickstart(model, config: dict, make_env: Callable, folder: Path | None = None) -> dict | None:
    """Clone the config's teacher (the heuristic, or the search) into the model when the config asks for it,
    in games of `make_env(n)` (the training env with n players, picklable for `imitation.workers` > 1; the
    games shared among the config's player counts), then run the config's DAgger rounds (with `games: 0`,
    from the model as it is: refining a trained policy); the stats, or None. With a `folder` (a run's
    `imitation/`), its finished parts are saved there and, when there already, taken up (`Progress`)."""
    from snack_envs.checkpoints import CheckpointPolicy
    from snack_envs.training.config import player_counts

    if not imitates(config):
        return None
    settings = config["imitation"]
    started = time.time()
    counts = player_counts(config)
    workers = settings.get("workers", 1)
    progress = Progress(folder, config)
    phases = (["clone"] if settings.get("games") else []) + [f"round{r}" for r in range(1, settings.get("dagger_rounds", 0) + 1)]
    done = max([k for k, phase in enumerate(phases) if progress.fitted(phase) is not None], default=-1)
    if done >= 0:  # taken up: the weights after the last phase fitted
        progress.load_weights(model, phases[done])
        print(f"imitation: taking up {folder}: {', '.join(phases[:done + 1])} fitted already", flush=True)

    def play(phase: str, games: int, seed: int, student=None) -> dict[str, np.ndarray]:
        """The phase's samples, its games shared among the player counts (fewer games than counts: the first
        counts play one each)."""
        by_count = []
        for i, n in enumerate(counts):
            def play_parts(parts: list[tuple[int, int]], n: int = n) -> Iterator[dict]:
                return collect_parts(make_env, n, config, parts, student, workers)

            if share := len(range(i, games, len(counts))):
                by_count.append(progress.samples(f"{phase}-{n}p", share, seed + 7_000_000 * (i + 1), play_parts))
        return concatenate(by_count)

    teacher = settings.get("teacher", "heuristic")
    data, stats, rounds = None, {"games": 0, "samples": 0}, []
    student = CheckpointPolicy(model, "student")  # plays the model as it is refitted
    for k, phase in enumerate(phases):
        if done == len(phases) - 1:  # every fit done: no samples needed
            saved = progress.fitted(phase)
        elif phase == "clone":
            data = play(phase, settings["games"], config["seed"])
            if (saved := progress.fitted(phase)) is None:
                saved = clone(model, data, settings["epochs"], seed=config["seed"])
                saved.update(games=settings["games"], seconds=round(time.time() - started, 1))
                progress.save_fit(model, phase, saved)
                print(f"imitation: {saved['samples']} {teacher} decisions from {saved['games']} games, "
                      f"action accuracy {saved['accuracy']:.3f}, {saved['seconds']:.0f} s", flush=True)
        else:
            r = int(phase.removeprefix("round"))
            games = settings["dagger_games"]
            visited = play(phase, games, config["seed"] + 100_000_000 * r, student)
            samples = {key: value for key, value in visited.items() if key not in ("played", "finals")}  # collect's DAgger extras
            data = samples if data is None else concatenate([data, samples])
            if (saved := progress.fitted(phase)) is None:
                saved = {"round": r, "games": games, "agreement": round(agreement(visited), 4),
                         "mean_final_reward": round(float(visited["finals"].mean()), 4)}
                fit = clone(model, data, settings["dagger_epochs"], seed=config["seed"] + r)
                saved.update(samples=fit["samples"], accuracy=round(fit["accuracy"], 4), seconds=round(time.time() - started, 1))
                progress.save_fit(model, phase, saved)
                print(f"imitation: DAgger round {r}: the clone agreed with the {teacher} on {saved['agreement']:.3f} of "
                      f"its own decisions, mean final reward {saved['mean_final_reward']:.2f}; refit on "
                      f"{saved['samples']} decisions, accuracy {saved['accuracy']:.3f}, {saved['seconds']:.0f} s", flush=True)
        if phase == "clone":
            stats = saved
        else:
            rounds.append(saved)
    if rounds:
        stats.update(dagger=rounds, seconds=rounds[-1]["seconds"])
    return stats
