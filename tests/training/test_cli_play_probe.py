"""Cases found by a mutation probe of training/play.py (`snack-play`) and training/cli.py (the commands' shared
plumbing) that the other tests did not pin: what the person at the terminal is told (an answer that is not a legal
action, digits outside ASCII included, the table from their seat, the final table, a truncated game, a win of theirs), that `--seed` replays a
game, the defaults of `snack-play`'s command line (heuristic opponents, a solo game with none), that Ctrl-D ends it
with "bye" and status 0, and the line and column a malformed YAML file is reported at.

The games are quit at the first prompt or stubbed where a whole game is not the point, so the file runs in seconds.
"""

from __future__ import annotations

import re

import pytest

from snack_envs import specs
from snack_envs.training import play
from snack_envs.training.cli import launcher, one_line
from tests.helpers import run_main


def answers(*texts: str):
    """An `ask` that gives `texts` in turn."""
    given = iter(texts)
    return lambda prompt: next(given)


# --- choose: the legal actions, asked again until one is chosen -----------------------------------------------
def test_an_answer_that_is_no_legal_action_is_told_and_asked_again():
    said: list[str] = []
    chosen = play.choose([3, 5], lambda a: f"action {a}", answers("7", "abc", " ", "5"), said.append)
    assert chosen == 5
    assert said[:2] == ["  [3] action 3", "  [5] action 5"]
    for answer in ("7", "abc", ""):
        assert f"  '{answer}' is not one of the legal actions listed" in said


def test_an_answer_of_digits_outside_ascii_is_told_and_asked_again():
    """"²" is a digit to str.isdigit but no int: it ended snack-play with a traceback (and no replay); "١"
    (Arabic-Indic one) is an int to Python but not what the list shows."""
    said: list[str] = []
    assert play.choose([1, 2], str, answers("²", "١", "2"), said.append) == 2
    assert "  '²' is not one of the legal actions listed" in said and "  '١' is not one of the legal actions listed" in said


@pytest.mark.parametrize("answer", ["q", "Q", "quit", "EXIT", " q "])
def test_q_quit_or_exit_in_any_case_quits(answer):
    assert play.choose([0, 1], str, answers(answer), lambda text: None) is None


# --- play: what the person at the terminal sees ----------------------------------------------------------------
def test_the_table_is_drawn_from_the_players_seat():
    """Speed Snacks hides the other hands: the table asked from must be the seat's view, not the spectator's."""
    said: list[str] = []
    assert play.play("speed_snacks_v1", ["random"], seat=1, seed=4, ask=answers("q"), say=said.append) is None
    raw = specs.get("speed_snacks_v1").raw_env(num_players=2, shuffle_seats=False, render_mode="ansi")
    raw.reset(seed=4)
    seat_view, spectator_view = raw.render(viewer="player_1"), raw.render(viewer=None)
    assert seat_view != spectator_view
    assert seat_view in said and spectator_view not in said


def test_the_same_seed_plays_the_same_game():
    def transcript(seed: int) -> list[str]:
        said: list[str] = []
        prompts = []

        def first_listed(prompt):  # the first legal action listed, for 6 moves, then quit
            prompts.append(prompt)
            if len(prompts) > 6:
                return "q"
            return next(line.split("]")[0].strip(" [") for line in reversed(said) if line.startswith("  ["))

        play.play("snack_rabbits_v0", ["random"], seed=seed, ask=first_listed, say=said.append)
        return said

    assert transcript(11) == transcript(11)
    assert transcript(11) != transcript(12)


def test_a_game_without_a_seed_draws_one_names_it_in_the_replay_and_that_seed_replays_it(tmp_path):
    def quit_at_first_prompt(seed, path):
        play.play("snack_rabbits_v0", ["random"], seat=1, seed=seed, ask=answers("q"), say=lambda text: None, replay=path)
        return path.read_text()

    drawn = []
    for name in ("a.txt", "b.txt"):
        text = quit_at_first_prompt(None, tmp_path / name)
        match = re.match(r"snack_rabbits_v0, seed (\d+): you are player_1\n", text)
        assert match, text[:80]
        drawn.append(int(match[1]))
        assert quit_at_first_prompt(drawn[-1], tmp_path / f"again_{name}") == text  # the opponent's first move too
    assert drawn[0] != drawn[1]  # a fresh game each time (equal with odds 1 in 2**31)


@pytest.mark.parametrize("seat", [0, 1])
def test_seat_0_starts(seat):
    """The seat asked for is the seat played, not shuffled: seat 0 is asked first, seat 1 after seat 0 moved."""
    for seed in range(6):
        said: list[str] = []
        play.play("snack_rabbits_v0", ["random"], seat=seat, seed=seed, ask=answers("q"), say=said.append)
        assert said[0] == f"snack_rabbits_v0: you are player_{seat}; opponents: player_{1 - seat} (random)"
        before_first_prompt = said[1:said.index(next(line for line in said if line.startswith("  [")))]
        opponent_moved = any(line.startswith("player_0 (random): ") for line in before_first_prompt)
        assert opponent_moved == (seat == 1), (seed, before_first_prompt)


def test_a_whole_game_ends_with_the_spectators_table_its_replay_and_the_winners(tmp_path):
    said: list[str] = []
    path = tmp_path / "game.txt"

    def first_listed(prompt):
        return next(line.split("]")[0].strip(" [") for line in reversed(said) if line.startswith("  ["))

    result = play.play("snack_rabbits_v0", ["random"], seed=3, ask=first_listed, say=said.append, replay=path)
    assert said[-1] == "winner(s): " + ", ".join(result["winners"]) + ("  -- that's you!" if "player_0" in result["winners"] else "")
    assert said[-2] == f"wrote {path}"
    assert "game over" in said[-3]  # the final table, all of it shown
    assert "game over" in path.read_text().rsplit("--- position", 1)[-1]  # the replay holds the game to its end


def fake_episode(finished: bool, winners: list[int]):
    """A `play_episode` that plays nothing and reports an ending."""

    def episode(raw, policies, seed=None, watch=None):
        raw.reset(seed=seed)
        return {"finished": finished, "truncated": not finished, "scores": [1.0, 2.0] if finished else None,
                "winners": winners if finished else None, "steps": 0}

    return episode


@pytest.mark.parametrize("seat, you", [(1, True), (0, False)])
def test_the_winner_is_told_when_it_is_you(seat, you, monkeypatch):
    monkeypatch.setattr(play, "play_episode", fake_episode(True, [1]))
    said: list[str] = []
    result = play.play("snack_rabbits_v0", ["random"], seat=seat, seed=1, ask=answers(), say=said.append)
    assert result == {"scores": [1.0, 2.0], "winners": ["player_1"]}
    assert said[-1] == "winner(s): player_1" + ("  -- that's you!" if you else "")


def test_a_game_truncated_at_its_length_bound_says_so_and_has_no_scores(monkeypatch):
    monkeypatch.setattr(play, "play_episode", fake_episode(False, []))
    said: list[str] = []
    assert play.play("snack_rabbits_v0", ["random"], seed=1, ask=answers(), say=said.append) == {"scores": None}
    assert said[-1] == "the game was truncated at its length bound"


# --- main: the command line's defaults and its end ------------------------------------------------------------
@pytest.mark.parametrize("argv, header", [
    (["snack_rabbits_v0"], "snack_rabbits_v0: you are player_0; opponents: player_1 (heuristic)"),
    (["snack_rabbits_v0", "--num-players", "3", "--seat", "2"],
     "snack_rabbits_v0: you are player_2; opponents: player_0 (heuristic), player_1 (heuristic)"),
    (["snack_time_v0", "--num-players", "1"], "snack_time_v0: you are player_0; solo"),
], ids=["two-players", "three-players-seat-2", "solo"])
def test_snack_play_without_opponents_plays_the_heuristic_or_solo(argv, header, capsys, monkeypatch):
    monkeypatch.setattr(play, "choose", lambda *args: None)  # quit at the first prompt
    code, out, err = run_main(play, [*argv, "--seed", "0"], capsys)  # 0: the least seed
    assert code == 0, err
    assert out.splitlines()[0] == header


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt], ids=["ctrl-d", "ctrl-c"])
def test_snack_play_left_by_ctrl_d_or_ctrl_c_says_bye_and_exits_0(stop, capsys, monkeypatch):
    def raise_stop(*args):
        raise stop

    monkeypatch.setattr(play, "choose", raise_stop)
    code, out, err = run_main(play, ["snack_rabbits_v0", "--seed", "1"], capsys)
    assert code == 0 and err == ""
    assert out.endswith("\nbye\n")


# --- cli.one_line: where a malformed YAML file goes wrong -------------------------------------------------------
def test_a_yaml_error_is_reported_at_its_line_and_column_counted_from_1(tmp_path):
    """`b`'s list is still open when `c:` comes: the parser stops at the colon, line 3, column 2 (as editors count)."""
    yaml = pytest.importorskip("yaml")
    text = "a: 1\nb: [1, 2\nc: 3\n"
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    for source, where in [(path, f"{path}, "), (None, "")]:  # from a file, then from a string (no name to give)
        with pytest.raises(yaml.YAMLError) as raised:
            if source is None:
                yaml.safe_load(text)
            else:
                with open(source) as stream:
                    yaml.safe_load(stream)
        assert one_line(raised.value) == f"malformed YAML: {where}line 3, column 2: expected ',' or ']', but got ':'"


# --- cli: a number that is no integer; a missing module that is no extra -----------------------------------------
@pytest.mark.parametrize("argv, names", [
    (["snack_rabbits_v0", "--num-players", "two"], ["--num-players", "expected an integer >= 1, got 'two'"]),
    (["snack_rabbits_v0", "--seed", "1.5"], ["--seed", "expected an integer >= 0, got '1.5'"]),
], ids=["num-players-two", "seed-1.5"])
def test_a_number_that_is_no_integer_is_one_line_and_exit_status_2(argv, names, capsys):
    code, _, err = run_main(play, argv, capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("snack-play: error: "), err
    for name in names:
        assert name in err, err


def test_a_launcher_whose_tool_is_missing_raises_that_error():
    """A module that is none of our extras is a bug of ours: its own ModuleNotFoundError, not a later error."""
    with pytest.raises(ModuleNotFoundError, match="snack_envs.training.no_such_tool"):
        launcher("snack-nothing", "no_such_tool", None)([])
