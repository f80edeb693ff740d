"""The one-ply lookahead bot (snack_envs.lookahead): legal, reproducible, stronger than random, wired
into make_policy and the rollout loop, and it leaves the game it reads untouched."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.agents import RandomPolicy, make_policy
from snack_envs.core.game import ConfigError
from snack_envs.core.rollout import play
from snack_envs.lookahead import LookaheadPolicy

ENV_NAMES = specs.ENV_NAMES


def counts(name: str) -> list[int]:
    game = specs.get(name).rules_class
    return list(range(game.min_players, min(game.max_players, 5 if name == "snack_wars_v0" else 4) + 1))


def modules_on(name: str) -> dict:
    """Every on/off option of the game switched on (Snack Time's Rat Snacks and advanced modes, Speed
    Snacks' four modules), and Speed Snacks' players slowed down, so that chance decides more."""
    options = {k: True for k, opt in specs.get(name).rules_class.options.items() if isinstance(opt.default, bool)}
    return dict(options, speed_0=0.5, speed_1=0.8) if name == "speed_snacks_v1" else options


def random_positions(name: str, n: int, options: dict, seed: int, every: int):
    """Every `every`-th position of a random game (the game object, mutated between yields)."""
    rng = np.random.default_rng(seed)
    game = specs.get(name).rules_class(n, np.random.default_rng(seed), **options)
    step = 0
    while not game.game_over:
        if step % every == 0:
            yield game
        legal = {p: game.legal_actions(p) for p in game.players_to_act()}
        game.apply_joint({p: acts[int(rng.integers(len(acts)))] for p, acts in legal.items()})
        step += 1


@pytest.mark.parametrize("name", ENV_NAMES)
def test_it_chooses_a_legal_action_and_leaves_the_game_as_it_was(name):
    every = {"snack_time_v0": 9, "speed_snacks_v1": 7}.get(name, 2)
    for options in ({}, modules_on(name)):
        for n in counts(name):
            bot = LookaheadPolicy(name, n, seed=n, **options)
            for game in random_positions(name, n, options, seed=n, every=every):
                before = game.to_dict()  # the rng state included
                for seat in game.players_to_act():
                    action = bot.act_game(game, seat)
                    assert action in game.legal_actions(seat), (options, n, seat, game.action_to_str(action))
                assert game.to_dict() == before, "act_game changed the game it was shown"


@pytest.mark.parametrize("name", ["snack_rabbits_v0", "speed_snacks_v1"])
def test_the_same_seed_plays_the_same_game(name):
    """Dice-driven choices (Rabbits' hops) and simultaneous play: a replay with the same seed matches move for
    move, with a fresh bot or the same one (the rollout reseeds it, so its constructor seed does not matter
    there); a bot reseeded otherwise plays differently somewhere."""

    def moves(bot: LookaheadPolicy, seed: int) -> list:
        env = specs.get(name).raw_env(num_players=2, shuffle_seats=False)
        log = []
        play(env, {"player_0": bot, "player_1": RandomPolicy()}, seed=seed, watch=lambda _, acts: log.append(acts))
        return log

    bot = make_policy("lookahead", name, 2)
    first = [moves(bot, seed) for seed in (0, 1)]
    assert [moves(bot, seed) for seed in (0, 1)] == first
    assert [moves(make_policy("lookahead", name, 2, seed=99), seed) for seed in (0, 1)] == first
    # The bot's own rng matters: with it reseeded differently at each reset, the moves change.
    reseeded = make_policy("lookahead", name, 2)
    reseeded.reset = lambda seed=None: LookaheadPolicy.reset(reseeded, None if seed is None else seed + 1)
    assert [moves(reseeded, seed) for seed in (0, 1)] != first


# (games, least win share): at 2 players against random, over games with the seats alternating. Measured
# over 200 games: Rabbits 0.87, Wars 0.99, Time 0.985, Speed Snacks 1.00.
AGAINST_RANDOM = {"snack_rabbits_v0": (50, 0.65), "snack_wars_v0": (100, 0.85),
                  "snack_time_v0": (16, 0.9), "speed_snacks_v1": (12, 0.9)}


@pytest.mark.parametrize("name", ENV_NAMES)
def test_it_beats_random_at_two_players(name):
    games, bound = AGAINST_RANDOM[name]
    env = specs.get(name).raw_env(num_players=2, shuffle_seats=False)
    bot = make_policy("lookahead", name, 2, seed=0)
    share = 0.0
    for g in range(games):
        agents = [bot, RandomPolicy()] if g % 2 == 0 else [RandomPolicy(), bot]
        result = play(env, dict(zip(env.possible_agents, agents)), seed=g)
        assert result["finished"]
        if g % 2 in result["winners"]:
            share += 1 / len(result["winners"])
    assert share / games >= bound, f"win share {share / games:.2f} against random"


class SeatCheck(LookaheadPolicy):
    """The bot, asserting that the rollout hands it the seat its agent sits in."""

    def __init__(self, env, agent: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.env, self.agent, self.calls = env, agent, 0

    def act_game(self, game, seat):
        assert game is self.env.game and seat == self.env.agent_seats[self.agent]
        self.calls += 1
        return super().act_game(game, seat)


@pytest.mark.parametrize("name", ["snack_wars_v0", "snack_time_v0", "speed_snacks_v1"])
def test_make_policy_and_the_rollout_use_the_game_and_the_agents_seat(name):
    """AEC (Wars, Time with 3 players) and parallel (Speed Snacks) envs, seats shuffled: the rollout asks
    `act_game(env.game, seat of the agent)`, and the moves are legal (the raw env raises otherwise)."""
    n = 2 if name == "speed_snacks_v1" else 3
    bot = make_policy("lookahead", name, n, seed=3)
    assert isinstance(bot, LookaheadPolicy) and bot.name == "lookahead" and bot.uses_game
    env = specs.get(name).raw_env(num_players=n)  # shuffle_seats=True
    shuffled = False
    for seed in range(3 if name == "snack_time_v0" else 6):
        bots = {a: SeatCheck(env, a, name, n, seed=i) for i, a in enumerate(env.possible_agents)}
        policies = {**bots, env.possible_agents[-1]: RandomPolicy()}
        result = play(env, policies, seed=seed)
        assert result["finished"]
        assert all(b.calls for a, b in bots.items() if a != env.possible_agents[-1])
        shuffled |= env.seat_agents != env.possible_agents
    assert shuffled, "no game shuffled the seats: the test checked nothing"


def test_act_without_the_game_is_a_clear_error():
    bot = make_policy("lookahead", "snack_rabbits_v0", 2)
    env = specs.get("snack_rabbits_v0").raw_env()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    with pytest.raises(TypeError, match=r"act_game\(game, seat\)"):
        bot.act(obs["observation"], obs["action_mask"])
    with pytest.raises(ConfigError, match="rat_snack"):
        make_policy("lookahead", "snack_time_v0", 2, rat_snack=True)


@pytest.mark.parametrize("bot, env_name", [("lookahead", "snack_rabbits_v0"), ("search", "snack_wars_v0")])
def test_the_bots_that_play_from_the_game_take_an_envs_own_keywords(bot, env_name):
    """An env's options may hold its own keywords (a config's `env.options: {max_steps: 500}`), which a bot
    playing from the game has no use for: they were refused as unknown options of the game, and with them a
    config that evaluates against the lookahead."""
    from snack_envs.training.config import load_config

    make_policy(bot, env_name, 2, seed=0, max_steps=500, shuffle_seats=False)
    with pytest.raises(ConfigError, match=r"unknown option\(s\) \['max_step'\]"):
        make_policy(bot, env_name, 2, seed=0, max_step=500)
    config = load_config("quickstart", [f"env.name={env_name}", "env.options={max_steps: 5000}", f"eval.opponents=[{bot}]"])
    assert config["env"]["options"] == {"max_steps": 5000} and config["eval"]["opponents"] == [bot]
