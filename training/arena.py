"""Matches on the batched engine: one policy against n - 1 others, many games at once, for any player count.

    from snack_envs.training.arena import match, solo
    m = match("snack_wars_v0", 3, "checkpoints/snack_wars_v0.zip", "heuristic", games=2000, seed=0)
    m["win_rate"], m["win_rate_ci95"], m["places"]
    s = solo("snack_time_v0", "heuristic", games=1000, seed=0, rat_snacks=True)
    s["mean_score_ci95"], s["ranks"]

The same match as `evaluate.head_to_head`, played on `snack_envs.core.batched.BatchedEnv`
(seats not shuffled, seat 0 starts) instead of game by game, with the same figures
(`outcomes.match_result`). Game g of a match seats the hero in seat g mod n and the `others`
in the remaining seats in seat order, so every seat is the hero's equally often (to within one
game). Env b of the batch plays games b, b + B, b + 2B, ... from its own random stream, so the
figures depend only on the env, lineup, `games`, `seed` and `num_envs`: the same in any process
(a checkpoint's forward pass sees the same batches, so it too plays alike).

The figures, as `outcomes.match_result` counts them: the hero's win share over finished games,
a win shared by k seats counting 1/k, with its 95% Wilson interval; its places (winners first,
then by score; seats equal in both share their places, each counting 1/k of the game); mean
scores with 95% intervals; games cut off at `max_steps` counted as `unfinished` and left out of
everything else. `by_seat` gives the hero's win share for each seat it sat in.

Policies, by spec: "random" (uniform over the legal actions, drawn natively), "heuristic" (the
game's bot, native: `BatchedEnv.heuristic_actions`), a checkpoint path (argmax of its logits,
one forward pass per step for all the envs where it acts), or anything else `make_policy`
builds ("lookahead"); or a policy object. An object with `act_batch(obs, masks)` acts in
batches; one with `uses_game = True` acts on the rules engine's `Game` of each env where it is
to act (`act_game(game, seat)`, the game from `BatchedEnv.export`); any other acts row by row
(`act(obs, mask)`). Each policy object is `reset(seed)` once at the start of a match.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from snack_envs.agents import make_policy
from snack_envs.core.batched import BatchedEnv
from snack_envs.core.game import ConfigError, check_count
from snack_envs.core.rollout import is_policy
from snack_envs.training.outcomes import match_result, mean_interval

NATIVE = ("random", "heuristic")
DEFAULT_ENVS = 256


def resolve(spec: Any, env_name: str, num_players: int, seed: int, **options: Any) -> Any:
    """A spec ("random", "heuristic", a checkpoint path, "lookahead", ...) as what `match` plays: the names
    of the native bots stay names; anything else becomes a policy (a policy object stays as it is, once its
    own `env_name` and `num_players`, where it has them, are checked against the match's)."""
    if not isinstance(spec, (str, Path)):
        if not (is_policy(spec) or hasattr(spec, "act_batch") and hasattr(spec, "reset")):
            raise ConfigError(f"a player is a spec ('random', 'heuristic', a checkpoint path...) or a policy "
                              f"(reset, and act, act_batch or act_game), got {spec!r}")
        for attribute, wanted in (("env_name", env_name), ("num_players", num_players)):
            made_for = getattr(spec, attribute, None)
            if made_for is not None and made_for != wanted:
                raise ConfigError(f"policy {getattr(spec, 'name', spec)!r} was made for {attribute}={made_for!r}, "
                                  f"not {attribute}={wanted!r}")
        return spec
    if str(spec) in NATIVE:
        return str(spec)
    return make_policy(str(spec), env_name, num_players, seed=seed, **options)


def name_of(player: Any) -> str:
    return player if isinstance(player, str) else player.name


def _choose(player: Any, batch: BatchedEnv, out: tuple, rows: np.ndarray, copy_at: Any) -> np.ndarray:
    """`player`'s actions for the decision rows `rows` (bool; turn-based: one row per env, simultaneous:
    env * n + agent), in row order. Agents sit in their own seats (no seat shuffling). A policy object with
    `act` only plays through `copy_at(player, env, seat)`: its copy for that game and seat."""
    n = batch.num_players
    obs = out[0].reshape(len(rows), -1)
    mask = out[1].reshape(len(rows), -1)
    if player == "random":
        return batch.random_actions().reshape(-1)[rows]
    if player == "heuristic":  # Speed Snacks' bot must see every tick of every env it plays in: ask for the envs
        envs = rows.reshape(batch.num_envs, n).any(axis=1) if batch.simultaneous else rows
        return batch.heuristic_actions(envs).reshape(-1)[rows]
    picked = np.flatnonzero(rows)

    def place(row: int) -> tuple[int, int]:  # the env and seat of a decision row
        return (int(row // n), int(row % n)) if batch.simultaneous else (int(row), int(out[2][row]))

    if getattr(player, "uses_game", False):
        actions, games = [], {}
        for env, seat in map(place, picked):
            if env not in games:
                games[env] = batch.export(env)
            actions.append(player.act_game(games[env], seat))
        return np.asarray(actions, np.int64)
    if hasattr(player, "act_batch"):
        return np.asarray(player.act_batch(obs[picked], mask[picked]), np.int64)
    return np.asarray([copy_at(player, *place(r)).act(obs[r], mask[r]) for r in picked], np.int64)


def seat_roles(game_index: np.ndarray, num_players: int) -> np.ndarray:
    """The lineup of each game [G, n]: by seat, the role that sits there, 0 (the hero) in seat g mod n and
    1, 2, ... (the others, in order) in the remaining seats in seat order."""
    seats = np.arange(num_players)
    hero = (np.asarray(game_index) % num_players)[:, None]
    return np.where(seats == hero, 0, seats + 1 - (seats > hero))


def play_games(
    env_name: str, lineup: Sequence[Any], games: int, seed: int = 0, num_envs: int | None = None, **options: Any
) -> list[dict]:
    """Play `games` games with `lineup[0]` (the hero) in seat g mod n of game g and `lineup[1:]` in the other
    seats in seat order (policies as `resolve` returns them), `num_envs` at once (default DEFAULT_ENVS, at most
    `games`; both positive ints). Returns each game, in order, as `outcomes.match_result` takes it: `hero_seat`,
    `finished`, `scores` and `winners` (seats) by seat."""
    check_count(games, "games")
    check_count(num_envs, "num_envs", or_none=True)
    n = len(lineup)
    num_envs = int(min(games, num_envs or DEFAULT_ENVS))
    batch = BatchedEnv(env_name, num_envs, num_players=n, seed=seed, shuffle_seats=False, **options)
    players: list[Any] = []  # one entry per distinct policy; role r (0 = hero) is played by players[role_player[r]]
    role_player = []
    for player in lineup:
        if player not in players:
            players.append(player)
        role_player.append(players.index(player))
    role_player = np.asarray(role_player)
    for player in players:
        if not isinstance(player, str):
            player.reset(seed)
    game_index = np.arange(num_envs)
    # A policy object with `act` only may remember between its moves (Speed Snacks' Python bot does): it plays
    # each game and seat as its own copy, reset from (seed, game, seat), so no memory crosses games or seats.
    copies: dict[tuple[int, int], Any] = {}

    def copy_at(player: Any, env: int, seat: int) -> Any:
        if (env, seat) not in copies:
            copies[env, seat] = copy.deepcopy(player)
            game_seed = np.random.SeedSequence([seed, int(game_index[env]), seat]).generate_state(1)[0]
            copies[env, seat].reset(int(game_seed))
        return copies[env, seat]

    seat_player = role_player[seat_roles(game_index, n)]  # [B, n] which player sits in each seat
    active = game_index < games
    outcomes: list[dict | None] = [None] * games
    out = batch.reset()
    while active.any():
        if batch.simultaneous:
            rows = np.repeat(active, n)
            row_player = seat_player.reshape(-1)
        else:
            rows = active.copy()
            row_player = seat_player[batch.envs, out[2]]
        actions = np.zeros(rows.shape, np.int64)
        for k, player in enumerate(players):
            mine = rows & (row_player == k)
            if mine.any():
                actions[mine] = _choose(player, batch, out, mine, copy_at)
        out = batch.step(actions.reshape(num_envs, n) if batch.simultaneous else actions, envs=active)
        terminated, truncated = out[-2:]
        for b in np.flatnonzero(terminated | truncated):
            g = int(game_index[b])
            finished = bool(terminated[b])
            outcomes[g] = {
                "hero_seat": g % n,
                "finished": finished,
                "scores": batch.final_scores[b].tolist() if finished else [0.0] * n,
                "winners": np.flatnonzero(batch.final_winners[b]).tolist() if finished else list(range(n)),
            }
            game_index[b] += num_envs
            active[b] = game_index[b] < games
            for seat in range(n):
                copies.pop((int(b), seat), None)
            seat_player[b] = role_player[seat_roles(game_index[b:b + 1], n)][0]
    return outcomes


def match(
    env_name: str,
    num_players: int,
    hero: Any,
    others: Any,
    games: int,
    seed: int = 0,
    num_envs: int | None = None,
    **options: Any,
) -> dict:
    """`hero` in one seat, rotated, against `others` (one spec for every other seat, or a list of n - 1) over
    `games` games on the batched engine: `outcomes.match_result`'s figures, plus `by_seat` (the hero's win
    share in each seat), `seed`, `num_envs`, `seconds` and `games_per_s`. `options` are the game's."""
    if isinstance(others, (str, Path)) or not isinstance(others, Sequence):
        others = [others] * (num_players - 1)
    if len(others) != num_players - 1:
        raise ConfigError(f"{num_players} players: give one opponent spec or {num_players - 1}, not {len(others)}")
    specs_by_key: dict[str, Any] = {}  # one policy per distinct spec
    lineup = []
    for spec in [hero, *others]:
        key = str(spec) if isinstance(spec, (str, Path)) else f"object {id(spec)}"
        if key not in specs_by_key:
            specs_by_key[key] = resolve(spec, env_name, num_players, seed, **options)
        lineup.append(specs_by_key[key])
    started = time.perf_counter()
    outcomes = play_games(env_name, lineup, games, seed, num_envs, **options)
    seconds = time.perf_counter() - started
    villains = list(dict.fromkeys(name_of(p) for p in lineup[1:]))
    result = match_result(name_of(lineup[0]), " + ".join(villains), num_players, outcomes)
    by_seat = []
    for seat in range(num_players):
        mine = [o for o in outcomes if o["hero_seat"] == seat]
        seat_result = match_result("", "", num_players, mine)
        by_seat.append({"games": len(mine), "win_rate": seat_result["win_rate"]})
    return dict(result, by_seat=by_seat, seed=seed, num_envs=int(min(games, num_envs or DEFAULT_ENVS)),
                seconds=round(seconds, 2), games_per_s=round(games / seconds, 1))


def solo(env_name: str, player: Any, games: int, seed: int = 0, num_envs: int | None = None, **options: Any) -> dict:
    """One player alone (Snack Time's solo mode) over `games` games: `mean_score_ci95` (finished games),
    `ranks` (how many games reached each of the rulebook's score ranks, best first, shifted +7 with
    `rat_snacks`), `games`, `unfinished`, `seed`, `num_envs`, `seconds`, `games_per_s`."""
    from snack_envs.snack_time.components import SOLO_RANKS, solo_rank

    lineup = [resolve(player, env_name, 1, seed, **options)]
    started = time.perf_counter()
    outcomes = play_games(env_name, lineup, games, seed, num_envs, **options)
    seconds = time.perf_counter() - started
    scores = [o["scores"][0] for o in outcomes if o["finished"]]
    ranks = {name: 0 for _, name in SOLO_RANKS}
    for score in scores:
        ranks[solo_rank(score, bool(options.get("rat_snacks", False)))] += 1
    return {
        "player": name_of(lineup[0]),
        "options": dict(options),
        "games": games,
        "unfinished": games - len(scores),
        "mean_score_ci95": mean_interval(scores),
        "ranks": ranks,
        "seed": seed,
        "num_envs": int(min(games, num_envs or DEFAULT_ENVS)),
        "seconds": round(seconds, 2),
        "games_per_s": round(games / seconds, 1),
    }

