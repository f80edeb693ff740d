"""Helpers that script Snack Time positions for the tests: decks, entrances, dice, drawn pipes."""

from __future__ import annotations

import numpy as np

from snack_envs.snack_time.components import (
    CREATURE_CELLS,
    FIRST_TRAP,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_CELLS,
    OPPOSITE,
    PED_VALUE,
    E,
    N,
    S,
    W,
    parse_cell,
)
from snack_envs.snack_time.rules import SnackTime

EYE, TOOTH, TENTACLE = 0, 1, 2
I, L, T = 0, 1, 2  # noqa: E741  (the pipe tiles by their shapes)
NW, NE, SW, SE = 0, 1, 2, 3
ENTRANCES = ["A1", "C1", "E3", "B5", "E6"]  # no two adjacent; A1 is one pipe away from NW
TRAP = [FIRST_TRAP + k for k in range(5)]  # TRAP[k]: the trap card of entrance k + 1
# A row of pedestrians that a creature with at most one trait of each kind never eats.
INEDIBLE_ROW = [24, 22, 15, 11, 13]
# Dice whose placements stay away from everything the tests look at (see `place_harmlessly`).
HARMLESS_ROLL = ([TOOTH, TOOTH], [I, I, I], None)


def deck_with(row: list[int], top: list[int] = ()) -> list[int]:
    """A full scripted deck: `row` dealt to entrances 1..5, then `top` drawn first, then the rest."""
    rest = [c for c in range(NUM_CARDS) if c not in row and c not in top]
    return list(row) + list(top) + rest


def new_game(num_players: int = 2, row=INEDIBLE_ROW, top=(), rolls=(), entrances=ENTRANCES, **options) -> SnackTime:
    """A game with a scripted deck, entrances (unless chosen) and dice (HARMLESS_ROLL after `rolls`)."""
    rolls = list(rolls) + [HARMLESS_ROLL] * 30
    if options.get("advanced_entrances"):
        return SnackTime(num_players, np.random.default_rng(0), deck=deck_with(row, top), rolls=rolls, **options)
    deck = deck_with(row, top)
    return SnackTime(num_players, np.random.default_rng(0), deck=deck, entrance_rolls=entrances, rolls=rolls, **options)


def side(a: int, b: int) -> int:
    """The side of cell a that faces its neighbour b."""
    for bit, nb in NEIGHBOURS[a]:
        if nb == b:
            return bit
    raise ValueError(f"cells {a} and {b} are not neighbours")


def draw_path(game: SnackTime, p: int, names: list[str]) -> None:
    """Draw pipes on p's map along `names`; the first and last cells (creatures, entrances or pipes)
    are only joined, the cells between get a pipe opening to both neighbours on the path."""
    cells = [parse_cell(x) for x in names]
    for before, cell, after in zip(cells, cells[1:], cells[2:]):
        game._draw_pipe(p, cell, side(cell, before) | side(cell, after))
    game._legal_cache.clear()


def set_traits(game: SnackTime, p: int, creature: int, eyes=0, teeth=0, tentacles=0, crossed=(0, 0, 0)) -> None:
    game.healthy[p][creature] = [eyes, teeth, tentacles]
    game.crossed[p][creature] = list(crossed)
    game._legal_cache.clear()


HARMLESS_CELLS = [(">6", N | S), (">5", N | S), (">4", N | S), (">3", N | S), (">2", N | S),
                  ("F7", E | W), ("E7", E | W), ("D7", E | W), ("C7", E | W), ("B7", E | W)]


def place_harmlessly(game: SnackTime) -> None:
    """Play the current player's HARMLESS_ROLL: Teeth on SE (then SW), I pipes up from SE along column
    ">" (then west along row 7), a network that reaches no entrance."""
    from snack_envs.snack_time.rules import pipe_action, trait_action

    p, start = game.current_player, game.round

    def placing(dice) -> bool:
        return game.round == start and game.current_player == p and game.phase == "place" and any(dice[p])

    while placing(game.traits_left):
        creature = next(c for c in (SE, SW, NE, NW) if game.open_slots(p, c))
        game.apply(trait_action(TOOTH, creature), p)
    while placing(game.pipes_left):
        legal = game.legal_actions(p)
        game.apply(next(pipe_action(name, o) for name, o in HARMLESS_CELLS if pipe_action(name, o) in legal), p)


def the_step_that_starts_round_2(game: SnackTime) -> int:
    """Play the first legal action until the next one would start round 2; return that action."""
    while True:
        action = game.legal_actions()[0]
        trial = game.copy()
        trial.apply(action)
        if trial.round > game.round:
            return action
        game.apply(action)


def finish_round(game: SnackTime) -> None:
    """Every player places the harmless roll; snacking then resolves (damage choices are left to the test)."""
    start = game.round
    while game.round == start and not game.game_over and game.phase == "place":
        place_harmlessly(game)


def values(game: SnackTime, p: int, creature: int) -> list[int]:
    return [PED_VALUE[card] for card in game.snacks[p][creature]]


def reachable_pipes(game: SnackTime, p: int) -> set[int]:
    """An independent breadth-first search: the pipe cells whose network reaches a creature."""
    pipes, entrances = game.pipes[p], set(game.entrances)
    found: set[int] = set()
    for creature in CREATURE_CELLS:
        seen, queue = {creature}, [creature]
        while queue:
            cell = queue.pop()
            openings = 15 if cell == creature or cell in entrances else pipes[cell]
            for bit, nb in NEIGHBOURS[cell]:
                if not openings & bit or nb in seen or nb in CREATURE_CELLS:
                    continue
                if nb in entrances or pipes[nb] & OPPOSITE[bit]:
                    seen.add(nb)
                    queue.append(nb)
        found |= {c for c in seen if pipes[c]}
    return found


def recomputed_score(game: SnackTime, p: int) -> int:
    """Snack values + snacks x uncrossed traits - 2 per 3 badges + connected rats, from the sheet."""
    total = 0
    for creature in range(4):
        eaten = game.snacks[p][creature]
        total += sum(PED_VALUE[c] for c in eaten) + len(eaten) * sum(game.healthy[p][creature])
    total -= 2 * (game.badges[p] // 3)
    if game.config["rat_snacks"]:
        total += sum(game.rats[c] for c in reachable_pipes(game, p))
    return total


__all__ = [
    "E", "N", "S", "W", "NUM_CELLS", "EYE", "TOOTH", "TENTACLE", "I", "L", "T", "NW", "NE", "SW", "SE",
    "ENTRANCES", "TRAP", "INEDIBLE_ROW", "HARMLESS_ROLL", "deck_with", "new_game", "draw_path", "set_traits",
    "place_harmlessly", "finish_round", "values", "reachable_pipes", "recomputed_score",
]
