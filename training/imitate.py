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
(`snack_envs.search`, its default budget: heuristic playouts from every legal
action, about 0.07 s a decision in Snack Wars), whose choices are stronger than
the heuristic's: expert iteration's step, where the network learns what a search
finds. Its label is the set of actions sharing the best mean playout. With
`init_from` it refines a trained policy: with `games: 0`, DAgger rounds alone,
the checkpoint's own games labelled by the search (configs/snack_wars_v0_2p.yaml;
`workers` plays them in that many processes, `timesteps: 0` adds no PPO):

    init_from: checkpoints/snack_wars_v0.zip
    timesteps: 0
    imitation: {teacher: search, games: 0, dagger_rounds: 1, dagger_games: 8000, dagger_epochs: 8, workers: 2}
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from snack_envs.agents import heuristic_policy


def make_teacher(config: dict, num_players: int, seed: int):
    """The config's `imitation.teacher` for `num_players` players: the heuristic, or the search bot."""
    env_cfg = config["env"]
    options = env_cfg.get("options", {})
    if (config.get("imitation") or {}).get("teacher", "heuristic") == "search":
        from snack_envs.search import SearchPolicy

        return SearchPolicy(env_cfg["name"], num_players, seed, **options)
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


def collect_in_workers(make_env: Callable, n: int, config: dict, games: int, seed: int, student=None,
                       workers: int = 1) -> dict[str, np.ndarray]:
    """`collect` in `make_env(n)`, its games split among `workers` processes: the same samples in the same
    order as one process collects (game g is seeded seed + g wherever it is played). A student goes to the
    workers as its model, saved to a temporary file."""
    workers = max(1, min(workers, games))
    if workers == 1:
        return collect(make_env(n), config, games, seed, student)
    import multiprocessing
    import tempfile
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

    bounds = np.linspace(0, games, workers + 1).astype(int)
    with tempfile.TemporaryDirectory() as folder:
        path = None
        if student is not None:
            path = str(Path(folder) / "student.zip")
            student.model.save(path)
        jobs = [(make_env, n, config, int(b - a), seed + int(a), path) for a, b in zip(bounds[:-1], bounds[1:])]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            parts = list(pool.map(_collect_part, jobs))
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _collect_part(job: tuple) -> dict[str, np.ndarray]:
    """One worker's share of `collect_in_workers`."""
    make_env, n, config, games, seed, student_path = job
    student = None
    if student_path is not None:
        import torch
        from sb3_contrib import MaskablePPO

        from snack_envs.checkpoints import CheckpointPolicy

        torch.set_num_threads(1)
        student = CheckpointPolicy(MaskablePPO.load(student_path, device="cpu"), "student")
    return collect(make_env(n), config, games, seed, student)


def kickstart(model, config: dict, make_env: Callable) -> dict | None:
    """Clone the config's teacher (the heuristic, or the search) into the model when the config asks for it,
    in games of `make_env(n)` (the training env with n players, picklable for `imitation.workers` > 1; the
    games shared among the config's player counts), then run the config's DAgger rounds (with `games: 0`,
    from the model as it is: refining a trained policy); the stats, or None."""
    from snack_envs.checkpoints import CheckpointPolicy
    from snack_envs.training.config import player_counts

    settings = config.get("imitation") or {}
    if not settings.get("games") and not settings.get("dagger_rounds"):
        return None
    started = time.time()
    counts = player_counts(config)
    workers = settings.get("workers", 1)

    def play(games: int, seed: int, student=None) -> dict[str, np.ndarray]:
        parts = [collect_in_workers(make_env, n, config, len(range(i, games, len(counts))), seed + 7_000_000 * (i + 1),
                                    student, workers) for i, n in enumerate(counts)]
        return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}

    teacher = settings.get("teacher", "heuristic")
    data, stats = None, {"games": 0, "samples": 0}
    if settings.get("games"):
        data = play(settings["games"], config["seed"])
        stats = clone(model, data, settings["epochs"], seed=config["seed"])
        stats.update(games=settings["games"], seconds=round(time.time() - started, 1))
        print(f"imitation: {stats['samples']} {teacher} decisions from {stats['games']} games, "
              f"action accuracy {stats['accuracy']:.3f}, {stats['seconds']:.0f} s", flush=True)
    rounds, student = [], CheckpointPolicy(model, "student")  # plays the model as it is refitted
    for r in range(1, settings.get("dagger_rounds", 0) + 1):
        games = settings["dagger_games"]
        visited = play(games, config["seed"] + 100_000_000 * r, student)
        rounds.append({"round": r, "games": games, "agreement": round(agreement(visited), 4),
                       "mean_final_reward": round(float(visited["finals"].mean()), 4)})
        samples = {key: value for key, value in visited.items() if key not in ("played", "finals")}  # collect's DAgger extras
        data = samples if data is None else {key: np.concatenate([data[key], samples[key]]) for key in data}
        fit = clone(model, data, settings["dagger_epochs"], seed=config["seed"] + r)
        rounds[-1].update(samples=fit["samples"], accuracy=round(fit["accuracy"], 4), seconds=round(time.time() - started, 1))
        print(f"imitation: DAgger round {r}: the clone agreed with the {teacher} on {rounds[-1]['agreement']:.3f} of "
              f"its own decisions, mean final reward {rounds[-1]['mean_final_reward']:.2f}; refit on "
              f"{fit['samples']} decisions, accuracy {fit['accuracy']:.3f}, {rounds[-1]['seconds']:.0f} s", flush=True)
    if rounds:
        stats.update(dagger=rounds, seconds=rounds[-1]["seconds"])
    return stats
