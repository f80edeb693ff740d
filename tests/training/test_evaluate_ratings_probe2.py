"""Cases a second mutation probe of training/evaluate.py and training/ratings.py found no test for. They pin:

- a two-player tournament's mirror result carries the Wilson interval of the other side's wins (the
  match's interval reflected, [1 - hi, 1 - lo]), checked where neither end is 0 or 1;
- `play_game` seats `policies[s]` in seat s (seats are not shuffled, so a match's rotation of the hero's
  seat holds);
- `snack-eval --out` naming a file is a usage error naming it, before any game;
- how `ratings.minimise` judges convergence by itself, whatever scipy's optimiser says: where the
  optimiser's line search cannot improve the value (it stops where it started), full Newton steps from
  the gradient and Hessian finish the job until the step left is under STEP_OK; POLISH_STEPS such steps
  are allowed, and a fit needing more raises instead of giving ratings.
"""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.agents import RandomPolicy

pytest.importorskip("scipy")

from snack_envs.training import evaluate, ratings  # noqa: E402
from tests.helpers import run_main  # noqa: E402
from tests.training.test_evaluate_probe import Named, wilson_interval  # noqa: E402
from tests.training.test_evaluate_ratings_probe import seat_zero_wins  # noqa: E402


def test_newton_steps_finish_a_minimum_the_line_search_cannot_see():
    """A quadratic whose value the line search sees flat (it stays at the start, 0.3 from the minimum)."""
    minimum = np.array([0.3, -0.2])

    def flat_quadratic(x):
        return 0.0, 2 * (x - minimum), 2 * np.eye(2)

    x, _ = ratings.minimise(flat_quadratic, np.zeros(2))
    np.testing.assert_allclose(x, minimum, rtol=0, atol=1e-9)  # not left at the start, within 1 of it


def test_up_to_polish_steps_newton_steps_are_taken_then_the_fit_raises():
    """x**4 / 4 with a flat value: each Newton step (x / 3) leaves 2/3 of x, so a start whose step falls under
    STEP_OK after exactly POLISH_STEPS steps converges, and one needing a step more raises."""
    def flat_quartic(x):
        return 0.0, x**3, np.diag(3 * x**2)

    start = 3 * ratings.STEP_OK / (2 / 3) ** (ratings.POLISH_STEPS - 0.5)  # step under STEP_OK at step POLISH_STEPS
    x, _ = ratings.minimise(flat_quartic, np.array([start]))
    assert x[0] == pytest.approx(start * (2 / 3) ** ratings.POLISH_STEPS)
    with pytest.raises(RuntimeError, match="did not converge"):
        ratings.minimise(flat_quartic, np.array([1.5 * start]))


def test_a_mirrors_win_rate_interval_is_the_wilson_interval_of_the_other_sides_wins(monkeypatch):
    """Seat 0 wins every game and the hero's seat rotates: over 3 games the hero wins 2, its villain 1."""
    monkeypatch.setattr(evaluate, "play_game", seat_zero_wins)
    results = evaluate.tournament("snack_rabbits_v0", {"a": Named("a"), "b": Named("b")}, games=3)
    by = {(m["hero"], m["villain"]): m for m in results["matches"]}
    assert by[("a", "b")]["win_rate_ci95"] == pytest.approx(wilson_interval(2, 3))
    assert by[("b", "a")]["mirror"] and by[("b", "a")]["win_rate"] == pytest.approx(1 / 3)
    assert by[("b", "a")]["win_rate_ci95"] == pytest.approx(wilson_interval(1, 3))


def test_play_game_seats_each_policy_in_its_own_seat_every_game():
    policies = [RandomPolicy(0), RandomPolicy(1), RandomPolicy(2)]
    seen = []

    def first_position(env, actions):  # the seat of each policy's agent, then stop the game there
        seen.append([env.agent_seats[agent] for agent in env.possible_agents])
        return True

    for seed in range(6):
        evaluate.play_game("snack_wars_v0", policies, seed, watch=first_position, num_players=3)
    assert seen == [[0, 1, 2]] * 6


def test_snack_eval_out_naming_a_file_is_a_usage_error_before_any_game(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(evaluate, "tournament", lambda *a, **k: pytest.fail("the tournament started"))
    results = tmp_path / "results"
    results.write_text("mine\n")
    code, _, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--games", "1", "--out", str(results)], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"snack-eval: error: --out {results} is a file; give a folder for the results")
    assert err.count("\n") == 1
    assert results.read_text() == "mine\n"
