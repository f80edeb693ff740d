"""The games' pictures: scripted positions against committed references, pictures that follow the
state, and seat views that show nothing the seat's observation leaves out."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")

from snack_envs.core import picture  # noqa: E402
from snack_envs.core.picture import draw_game, to_array  # noqa: E402
from tests.pictures import positions as P  # noqa: E402

GAMES = P.GAMES


def views(game, names):
    """Every view of a position: the spectator's, then each seat's, as arrays."""
    return [to_array(draw_game(game, viewer, names)) for viewer in [None, *range(game.num_players)]]


# --- references ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_a_scripted_position_looks_like_its_committed_reference(name):
    got = P.difference(P.signature(P.render(name)), P.reference_signature(name))
    assert got <= P.TOLERANCE, (
        f"{name}'s picture moved away from tests/pictures/reference/{name}.png (score {got:.1f} > {P.TOLERANCE}). "
        "If the change is deliberate, run `python -m tests.pictures.positions`, look at the new file and commit it."
    )


@pytest.mark.parametrize("name", GAMES)
def test_the_tolerance_rejects_a_clearly_different_position(name):
    assert P.difference(P.signature(P.render(name, changed=True)), P.reference_signature(name)) > P.TOLERANCE


@pytest.mark.parametrize("name", GAMES)
def test_the_tolerance_absorbs_text_drawn_a_pixel_off(name, monkeypatch):
    """What another FreeType or Pillow build may do to the built-in font: every glyph a pixel off."""
    draw_text = picture.Canvas.text
    monkeypatch.setattr(picture.Canvas, "text", lambda self, x, y, *a, **k: draw_text(self, x + 1, y + 1, *a, **k))
    assert P.difference(P.signature(P.render(name)), P.reference_signature(name)) <= P.TOLERANCE


# --- pictures follow the state ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_every_view_changes_when_the_table_changes(name):
    before = views(*P.POSITIONS[name](False))
    after = views(*P.POSITIONS[name](True))
    for viewer, (a, b) in enumerate(zip(before, after)):
        assert a.shape == b.shape, "a picture's size must not depend on the position"
        assert not np.array_equal(a, b), f"view {viewer - 1 if viewer else 'spectator'} missed a change on the table"


@pytest.mark.parametrize("name", GAMES)
def test_frames_of_a_game_have_one_size_and_follow_the_moves(name):
    game, names = P.POSITIONS[name](False)
    rng = np.random.default_rng(0)
    frames = []
    for _ in range(6):
        frames.append(to_array(draw_game(game, None, names)).tobytes())
        if game.game_over:
            break
        # Every game takes joint actions (turn-based: the one seat to act); action 0 is avoided where it
        # can be, since Speed Snacks' "wait" would leave the picture unchanged.
        game.apply_joint({p: int(rng.choice([a for a in game.legal_actions(p) if a] or [0])) for p in game.players_to_act()})
    assert len({len(f) for f in frames}) == 1
    assert len(set(frames)) == len(frames), "a move left the picture unchanged"


# --- hidden information ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [g for g in GAMES if g != "speed_snacks"])
def test_the_draw_order_never_shows(name):
    """Everything but the draw order is public in these games: no view shows it."""
    game, names = P.POSITIONS[name](False)
    other = game.copy()
    other.deck.reverse()
    assert other.deck != game.deck
    for a, b in zip(views(game, names), views(other, names)):
        assert np.array_equal(a, b)


def _speed_variants(game):
    """Copies of `game` that differ from it only in what seat 0 may not see (as in test_speed_env)."""
    from tests.speed_snacks.scripted import DONER, FRIES, SUSHI

    def swap(g, old, new):
        g.deck += old
        for card in new:
            g.deck.remove(card)

    variants = {}
    other = game.copy()
    swap(other, [other.hands[1]], [DONER])
    other.hands[1] = DONER
    variants["the opponent's hand"] = other
    other = game.copy()
    sizes = [len(pile) for pile in other.kitchens[1]]
    old = [card for pile in other.kitchens[1] for card in pile]
    new = [SUSHI] * sum(sizes)
    swap(other, old, new)
    other.kitchens[1] = [[SUSHI] * n for n in sizes]
    variants["the opponent's face-down kitchen cards"] = other
    other = game.copy()
    other.deck.reverse()
    other.xxl_pile.reverse()
    variants["the draw pile's and the XXL pile's order"] = other
    other = game.copy()
    held = other.xxl_cards[1][0]
    replacement = next(s for s in other.xxl_pile if s != held)
    other.xxl_pile.remove(replacement)
    other.xxl_pile.append(held)
    other.xxl_cards[1] = [replacement]
    swap(other, other.xxl_stacks[1][0], [FRIES] * len(other.xxl_stacks[1][0]))
    other.xxl_stacks[1] = [[FRIES] * len(game.xxl_stacks[1][0])]
    variants["the opponent's XXL card and the cards on it"] = other
    other = game.copy()
    other.menu_hands[1], other.menu_piles[1] = other.menu_piles[1][:2], other.menu_piles[1][2:] + other.menu_hands[1]
    variants["the opponent's Menu hand"] = other
    return variants


@pytest.mark.parametrize("kitchen_obs", ["placed", "sizes"])
def test_a_seat_sees_no_card_its_observation_hides_and_the_spectator_sees_them_all(kitchen_obs):
    from snack_envs.speed_snacks.observation import SpeedSnacksEncoder

    game, names = P.position_speed_snacks(kitchen_obs=kitchen_obs)
    encoder = SpeedSnacksEncoder(2, game.config)
    seat0 = to_array(draw_game(game, 0, names))
    spectator = to_array(draw_game(game, None, names))
    for what, variant in _speed_variants(game).items():
        assert not variant.invariant_violations(), what
        assert np.array_equal(encoder.encode(variant, 0), encoder.encode(game, 0)), f"{what} is not hidden from seat 0"
        assert np.array_equal(to_array(draw_game(variant, 0, names)), seat0), f"seat 0's picture shows {what}"
        if "order" not in what:
            assert not np.array_equal(to_array(draw_game(variant, None, names)), spectator), f"the spectator misses {what}"
        if not np.array_equal(encoder.encode(variant, 1), encoder.encode(game, 1)):  # seat 1 observes the change
            assert not np.array_equal(to_array(draw_game(variant, 1, names)), to_array(draw_game(game, 1, names))), (
                f"seat 1 does not see {what} (its own)"
            )


def test_with_kitchen_obs_sizes_a_seat_sees_its_own_kitchen_only_as_pile_sizes():
    from tests.speed_snacks.scripted import DONER, FRIES, PIZZA, SUSHI

    pictures = {}
    for mode in ("placed", "sizes"):
        game, names = P.position_speed_snacks(kitchen_obs=mode)
        mine = game.copy()
        mine.deck += [SUSHI, PIZZA]
        mine.deck.remove(DONER)
        mine.deck.remove(FRIES)
        mine.kitchens[0][0] = [DONER, FRIES]
        assert not mine.invariant_violations()
        pictures[mode] = [to_array(draw_game(g, 0, names)) for g in (game, mine)]
    assert np.array_equal(*pictures["sizes"])
    assert not np.array_equal(*pictures["placed"])


def test_the_top_kitchen_cards_show_to_both_seats_at_scoring_not_during_the_inspection():
    from tests.speed_snacks.scripted import SUSHI

    game, names = P.position_speed_snacks(kitchen_obs="sizes")
    other = game.copy()
    top = other.kitchens[1][1][-1]
    other.deck.append(top)
    other.deck.remove(SUSHI)
    other.kitchens[1][1][-1] = SUSHI
    for phase, menu_order, shown in (("inspection", [], False), ("menu", [0], True)):
        for g in (game, other):
            g.phase, g.menu_order = phase, list(menu_order)
            g.state_changed()
        differ = not np.array_equal(to_array(draw_game(game, 0, names)), to_array(draw_game(other, 0, names)))
        assert differ == shown, phase