"""Cases found by a mutation probe of training/ship.py and training/curves.py: behaviour the other tests did
not pin (each test says which). The ship tests stub the matches (`ship.match`, `ship.solo`) with fixed figures,
so that the verdict, the stored metadata and the README tables are checked against values worked out by hand
here, in well under a second each; no game is played and no policy is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.training import curves, ship  # noqa: E402
from tests.helpers import run_main  # noqa: E402

HEADER = "timesteps,opponent,win_rate,win_rate_ci95_low,win_rate_ci95_high,mean_score,unfinished\n"


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


# --- snack-curves -----------------------------------------------------------------------------------------------
def test_a_run_with_no_checkpoint_metadata_starts_its_curve_at_its_own_timesteps(tmp_path):
    """A run folder with only config.json and eval.csv (stopped before its first checkpoint): x is the csv's own
    timesteps, nothing added before them."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n250,heuristic,0.4,0.3,0.5,13,0\n")
    rows = curves.read_curve(run)
    assert [(r["timesteps"], r["stage_timesteps"], r["stage"]) for r in rows] == [(100, 100, 1), (250, 250, 1)]


def test_a_run_without_config_takes_its_player_counts_from_its_metadata(tmp_path):
    """No config.json (a published run's folder): the counts come from the metadata's player_counts, so that
    the keys "heuristic@3p" are split into opponent and count."""
    run = tmp_path / "run"
    write(run / "eval.csv", HEADER + "64,heuristic@2p,0.5,0.4,0.6,10,0\n64,heuristic@3p,0.3,0.2,0.4,9,0\n")
    write(run / "latest.json", {"timesteps": 64, "player_counts": [2, 3]})
    rows = curves.read_curve(run)
    assert [(r["opponent"], r["num_players"], r["even_share"]) for r in rows] == [
        ("heuristic", 2, 0.5), ("heuristic", 3, 1 / 3)]
    write(run / "latest.json", {"timesteps": 64, "num_players": 4})  # an older metadata: its one num_players
    write(run / "eval.csv", HEADER + "64,heuristic,0.25,0.2,0.3,9,0\n")
    assert [(r["opponent"], r["num_players"]) for r in curves.read_curve(run)] == [("heuristic", 4)]


def test_a_single_count_runs_keys_are_kept_whole_and_its_count_is_the_configs(tmp_path):
    """Only a run of several counts splits "<opponent>@<n>p": a run of one count keeps the key as the opponent's
    name and plays at its config's count."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 4}})
    write(run / "eval.csv", HEADER + "64,league@2p,0.3,0.2,0.4,9,0\n")
    assert [(r["opponent"], r["num_players"]) for r in curves.read_curve(run)] == [("league@2p", 4)]


def test_curves_refuses_a_checkpoint_path_that_names_no_file(tmp_path, capsys, monkeypatch):
    """`snack-curves run .` (a folder, no file name) is one line and exit status 2, not a traceback, and
    writes nothing."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(curves, [str(run), "."], capsys)
    assert code == 2 and err.startswith("snack-curves: error: ") and "names no file" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_curve_goes_beside_a_checkpoint_in_folders_not_made_yet(tmp_path):
    """export_curve makes every missing folder on the checkpoint's path (`--out a/b/c.zip` on a fresh tree)."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n")
    csv_path, png_path = curves.export_curve(run, tmp_path / "a" / "b" / "x.zip")
    assert csv_path == tmp_path / "a" / "b" / "x.curve.csv" and csv_path.is_file() and png_path.is_file()


# --- snack-ship, with the matches stubbed -----------------------------------------------------------------------
def figures(rate: float, low: float, high: float, games: int, hero: str, villain: str, unfinished: int = 0) -> dict:
    """A match result as `arena.match` gives it (the fields ship reads), 2 players: places = [wins, losses]."""
    finished = games - unfinished
    return {"games": games, "finished": finished, "unfinished": unfinished, "win_rate": rate,
            "win_rate_ci95": [low, high], "places": [rate * finished, (1 - rate) * finished], "hero": hero,
            "villain": villain, "hero_mean_score_ci95": [20.0, 19.0, 21.0], "villain_mean_score_ci95": [15.0, 14.0, 16.0],
            "seconds": 0.5, "games_per_s": 20.0}


class Arena:
    """Stands in for `ship.match`: each (hero kind, opponents) pair has a fixed (win share, low, high)."""

    def __init__(self, shares: dict):
        self.shares, self.calls = shares, []

    def match(self, env_name, n, hero, others, games, seed=0, **options):
        self.calls.append((n, hero, others, games, seed))
        kind = "heuristic" if hero == "heuristic" else "agent"
        rate, low, high = self.shares[kind, others]
        return figures(rate, low, high, games, Path(hero).stem if kind == "agent" else hero, others)


CLEARS = {("agent", "heuristic"): (0.70, 0.65, 0.75), ("agent", "random"): (0.95, 0.93, 0.97),
          ("heuristic", "random"): (0.96, 0.94, 0.98), ("agent", "lookahead"): (0.55, 0.45, 0.65),
          ("heuristic", "lookahead"): (0.50, 0.40, 0.60)}  # 2 players: every check passed
MISSES = {**CLEARS, ("agent", "heuristic"): (0.62, 0.58, 0.66)}  # lower bound 0.58 <= 0.6


def checkpoint(folder: Path, name: str = "snack_wars_v0", **meta) -> Path:
    """A checkpoint file (its bytes never read: the matches are stubbed) with a minimal metadata file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.zip"
    path.write_bytes(b"weights of " + name.encode())
    fields = {"format": "snack-envs-checkpoint/1", "env_name": "snack_wars_v0", "num_players": 2, "player_counts": [2],
              "timesteps": 6000, "wall_time_s": 600.0}
    write(path.with_suffix(".json"), dict(fields, **meta))
    return path


def stub(monkeypatch, shares: dict, lookahead: bool = True) -> Arena:
    arena = Arena(shares)
    monkeypatch.setattr(ship, "match", arena.match)
    monkeypatch.setattr(ship, "lookahead_available", lambda: lookahead)
    return arena


@pytest.mark.parametrize("seconds, games, expected", [
    (1.0, 2000, 2000),   # 900 s fit 3600 games: capped at --games
    (3.0, 2000, 1200),   # 4 games in 3 s: 1200 fit in 900 s
    (5.0, 2000, 700),    # 720 fit: rounded down to a hundred
    (100.0, 2000, 100),  # 36 fit: at least 100
    (100.0, 50, 50),     # ... but never more than --games
    (0.5, 10000, 7200),  # under a second: 4 games in 0.5 s, 7200 in 900 s
    (0.0, 2000, 2000),   # a probe timed (rounded) at 0 s: every game fits, no division by zero
])
def test_the_lookahead_rows_play_what_fits_in_the_budget_rounded_down_to_a_hundred(monkeypatch, seconds, games, expected):
    """lookahead_games: a probe of 2n games (the heuristic vs the lookahead), then budget x games / seconds,
    rounded down to a hundred, at least 100 and at most `games`."""
    probes = []

    def probe(env_name, n, hero, others, games, seed=0, **options):
        probes.append((n, hero, others, games, seed))
        return {"games": games, "seconds": seconds}

    monkeypatch.setattr(ship, "match", probe)
    assert ship.lookahead_games("snack_wars_v0", 2, games, 900.0, 5) == expected
    assert probes == [(2, "heuristic", "lookahead", 4, 5)]


def test_measuring_without_look_games_plays_the_budgeted_count_in_both_lookahead_rows(tmp_path, monkeypatch):
    """measure_count with no lookahead game count asks lookahead_games, and plays that many games in both
    lookahead rows (the other rows play --games), saying so when it is fewer."""
    path = checkpoint(tmp_path)
    stub(monkeypatch, CLEARS)
    monkeypatch.setattr(ship, "lookahead_games", lambda env, n, games, budget, seed, **o: 300)
    lines = []
    rows = ship.measure_count(path, 2, games=1000, seed=3, budget_s=60.0, log=lines.append)
    assert [rows[k]["games"] for k in ship.MATCHES] == [1000, 1000, 1000, 300, 300]
    assert any("the lookahead rows play 300 games (too slow for 1000 in 60 s)" in line for line in lines)
    assert rows["verdict"]["passed"] and rows["seed"] == 3
    assert any(line.startswith("  2 players vs_heuristic ") and " 1000 games  win share 0.700 [0.650, 0.750]" in line
               for line in lines)
    monkeypatch.setattr(ship, "lookahead_games", lambda env, n, games, budget, seed, **o: games)  # all fit
    lines.clear()
    assert ship.measure_count(path, 2, games=1000, log=lines.append)["vs_lookahead"]["games"] == 1000
    assert not any("lookahead rows play" in line for line in lines)  # no "too slow" when every game fits


def test_a_checkpoint_measured_in_place_stores_its_bar_and_the_readme_rows(tmp_path, monkeypatch, capsys):
    """In its folder: measured in place, the bar stored in its metadata (other keys kept), and the README's
    table rows (games, win share and interval, places, mean scores, the verdict on the count's first row)."""
    path = checkpoint(tmp_path, extra="kept")
    stub(monkeypatch, CLEARS)
    ship.main([str(path), "--games", "10", "--lookahead-games", "6", "--seed", "4", "--out", str(tmp_path)])
    assert "snack_wars_v0.zip, 2 players: cleared" in capsys.readouterr().out
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["extra"] == "kept" and meta["bar"]["passed"] is True and meta["bar"]["rule"] == ship.RULE
    stored = meta["bar"]["counts"]["2"]
    assert stored["seed"] == 4 and stored["verdict"]["passed"] is True
    assert stored["vs_heuristic"]["win_rate"] == 0.70 and stored["heuristic_vs_lookahead"]["games"] == 6
    readme = (tmp_path / "README.md").read_text()
    assert "`snack_wars_v0`, plays 2 players; 6,000 timesteps, 10 min of training." in readme
    assert "| 2 | agent vs 1 heuristic | 10 | 0.700 [0.650, 0.750] | 70% / 30% | 20.0 (15.0) | cleared |" in readme
    assert "|  | heuristic vs 1 lookahead | 6 | 0.500 [0.400, 0.600] | 50% / 50% | 20.0 (15.0) |  |" in readme
    assert "not measured" not in readme and "not cleared" not in readme


def test_a_missed_bar_reads_not_cleared_with_the_checks_it_missed(tmp_path, monkeypatch, capsys):
    """A lower bound of 0.58 against the heuristic at 2 players is not above 0.6: stored as failed, and the
    README's verdict names the check and its figure."""
    path = checkpoint(tmp_path)
    stub(monkeypatch, MISSES)
    ship.main([str(path), "--games", "10", "--lookahead-games", "6", "--out", str(tmp_path)])
    assert "2 players: not cleared: vs heuristic: lower bound 0.580 <= 0.600" in capsys.readouterr().out
    bar = json.loads(path.with_suffix(".json").read_text())["bar"]
    assert bar["passed"] is False and bar["counts"]["2"]["verdict"]["passed"] is False
    readme = (tmp_path / "README.md").read_text()
    assert "| 2 | agent vs 1 heuristic | 10 | 0.620 [0.580, 0.660] | 62% / 38% | 20.0 (15.0) | " \
           "**not cleared**: vs heuristic: lower bound 0.580 <= 0.600 |" in readme


def test_without_a_lookahead_bot_its_rows_are_not_measured_and_the_bar_is_missed(tmp_path, monkeypatch):
    """No snack_envs.lookahead: the two lookahead rows are not played, the README says so, and the verdict
    counts the unmeasured check as missed."""
    path = checkpoint(tmp_path)
    arena = stub(monkeypatch, CLEARS, lookahead=False)
    ship.main([str(path), "--games", "10", "--out", str(tmp_path)])
    assert [others for _, _, others, _, _ in arena.calls] == ["heuristic", "random", "random"]
    stored = json.loads(path.with_suffix(".json").read_text())["bar"]
    assert set(stored["counts"]["2"]) == {"vs_heuristic", "vs_random", "heuristic_vs_random", "verdict", "seed",
                                          "measured_in_s"}
    assert stored["passed"] is False
    readme = (tmp_path / "README.md").read_text()
    assert "| | lookahead rows | not measured | | | | |" in readme
    assert "**not cleared**: vs lookahead: not measured" in readme


def test_a_run_that_clears_the_bar_is_published_without_force_named_as_published(tmp_path, monkeypatch):
    """A run's final.zip that clears the bar is copied into --out as <env>_<n>p.zip (it plays 2 of Snack Wars'
    2-5), with no .bar.json left by it, and its stored rows name the hero as published."""
    run = checkpoint(tmp_path / "run", "final")
    out = tmp_path / "published"
    stub(monkeypatch, CLEARS)
    ship.main([str(run), "--games", "10", "--lookahead-games", "6", "--out", str(out), "--note", "by hand"])
    target = out / "snack_wars_v0_2p.zip"
    assert target.read_bytes() == run.read_bytes() and not run.with_suffix(".bar.json").exists()
    meta = json.loads(target.with_suffix(".json").read_text())
    assert meta["note"] == "by hand" and meta["bar"]["passed"] is True
    stored = meta["bar"]["counts"]["2"]
    assert {stored[k]["hero"] for k in ("vs_heuristic", "vs_random", "vs_lookahead")} == {"snack_wars_v0_2p"}
    assert {stored[k]["hero"] for k in ("heuristic_vs_random", "heuristic_vs_lookahead")} == {"heuristic"}
    assert json.loads(run.with_suffix(".json").read_text()).get("bar") is None  # the run's own metadata untouched
    assert "- `snack_wars_v0_2p.zip`: by hand" in (out / "README.md").read_text()


def test_a_run_that_misses_the_bar_is_kept_beside_the_run_and_not_published(tmp_path, monkeypatch, capsys):
    """Missed, no --force: nothing is copied into --out; the figures go to <run>/final.bar.json."""
    run = checkpoint(tmp_path / "run", "final")
    out = tmp_path / "published"
    stub(monkeypatch, MISSES)
    ship.main([str(run), "--games", "10", "--lookahead-games", "6", "--out", str(out)])
    assert "bar missed: not published" in capsys.readouterr().out
    assert not out.exists()
    kept = json.loads(run.with_suffix(".bar.json").read_text())
    assert kept["passed"] is False and kept["counts"]["2"]["vs_heuristic"]["hero"] == "final"


def test_the_bar_passes_only_when_every_count_the_checkpoint_plays_passes(tmp_path, monkeypatch):
    """measure merges the counts measured now into the stored ones: a stored failing count keeps the whole bar
    failed, a count the checkpoint no longer plays is dropped, and a count it does not play is refused."""
    failing = {"verdict": {"passed": False, "checks": []}, "seed": 1}
    path = checkpoint(tmp_path, player_counts=[2, 3], bar={"counts": {"3": failing, "5": {"verdict": {"passed": True}}}})
    stub(monkeypatch, CLEARS)
    bar = ship.measure(path, [2], games=10, look_games=6, log=lambda line: None)
    assert list(bar["counts"]) == ["2", "3"] and bar["counts"]["3"] == failing
    assert bar["counts"]["2"]["verdict"]["passed"] is True and bar["passed"] is False
    path.with_suffix(".json").write_text(json.dumps(dict(json.loads(path.with_suffix(".json").read_text()),
                                                         player_counts=[2])))
    assert ship.measure(path, [2], games=10, look_games=6, log=lambda line: None)["passed"] is True
    with pytest.raises(ValueError, match=r"plays \[2\] players, not \[4\]"):
        ship.measure(path, [4], games=10, look_games=6, log=lambda line: None)


def test_a_count_not_measured_now_keeps_the_bar_unpassed(tmp_path, monkeypatch):
    """A checkpoint of 2 and 3 players measured at 2 only, with nothing stored for 3: not passed."""
    path = checkpoint(tmp_path, player_counts=[2, 3])
    stub(monkeypatch, CLEARS)
    bar = ship.measure(path, [2], games=10, look_games=6, log=lambda line: None)
    assert list(bar["counts"]) == ["2"] and bar["passed"] is False


# --- the README's sections and the published metadata, from metadata written by hand ----------------------------
META = {"format": "snack-envs-checkpoint/1", "env_name": "snack_wars_v0", "num_players": 2, "player_counts": [2],
        "timesteps": 6000, "wall_time_s": 600.0}


def test_a_fine_tuned_checkpoint_counts_its_whole_lineages_steps_and_time():
    """The section's totals are the lineage's (timesteps and wall time of every run behind it) where stored."""
    text = ship.checkpoint_section("x.zip", dict(META, lineage_timesteps=1_234_567, lineage_wall_time_s=7200.0))
    assert "`snack_wars_v0`, plays 2 players; 1,234,567 timesteps, 120 min of training." in text
    assert "Not measured against this bar yet (`snack-ship`)." in text
    assert "| players |" not in text and "not measured |" not in text  # that line alone: no empty table


def test_a_solo_only_checkpoint_reads_one_player_and_solo_not_measured():
    """`plays 1 player` (singular) for a solo checkpoint, and no bar yet: the not-measured line."""
    meta = dict(META, env_name="snack_time_v0", num_players=1, player_counts=[1])
    text = ship.checkpoint_section("s.zip", meta)
    assert "`snack_time_v0`, plays 1 player; 6,000 timesteps" in text and "Not measured against this bar yet" in text
    assert "Solo: not measured." not in text  # the one line says it
    two = dict(meta, player_counts=[1, 2], bar={"counts": {"2": {"verdict": {"passed": True, "checks": []}}}})
    assert "Solo: not measured." in ship.checkpoint_section("s.zip", two)


def test_an_earlier_bars_figures_are_shown_until_it_is_measured_again():
    """A bar stored before per-count figures (head to head at 2 players) is summarised, not dropped."""
    def m(rate, low, high):
        return {"win_rate": rate, "win_rate_ci95": [low, high]}

    old = {"games_per_match": 400, "vs_heuristic": m(0.6, 0.55, 0.65), "vs_random": m(0.9, 0.87, 0.93),
           "heuristic_vs_random": m(0.95, 0.92, 0.97)}
    text = ship.checkpoint_section("x.zip", dict(META, bar=old))
    assert ("An earlier bar measured it over 400 games a match: vs the heuristic 0.600 [0.550, 0.650], vs random "
            "0.900 [0.870, 0.930], the heuristic vs random 0.950 [0.920, 0.970].") in text


def test_unfinished_games_are_counted_apart_and_no_finished_game_shows_a_dash():
    """A row with games cut off says how many; its places are shares of the finished games, '-' with none."""
    row = figures(0.5, 0.3, 0.7, 10, "x", "heuristic", unfinished=2)
    row["places"] = [6.0, 2.0]
    assert ship._match_row("agent vs 1 heuristic", row) == \
        "agent vs 1 heuristic | 10 (2 unfinished) | 0.500 [0.300, 0.700] | 75% / 25% | 20.0 (15.0)"
    none = dict(figures(0.0, 0.0, 1.0, 4, "x", "heuristic", unfinished=4), places=[0.0, 0.0])
    assert "| 4 (4 unfinished) | 0.000 [0.000, 1.000] | - / - |" in ship._match_row("agent vs 1 heuristic", none)


def test_a_metadata_file_lacking_a_field_is_a_value_error_naming_it(tmp_path):
    """tables() over a folder whose metadata lacks `timesteps`: a ValueError naming the file and the field."""
    write(tmp_path / "x.json", {k: v for k, v in META.items() if k != "timesteps"})
    with pytest.raises(ValueError, match=r"x\.json: the checkpoint table needs the field 'timesteps'"):
        ship.tables(tmp_path)


def test_the_published_lineage_drops_only_a_recipe_stages_path_inside_the_run():
    """repository_lineage: a recipe stage's relative path in the run's folder is dropped; an absolute path, a
    path in checkpoints/, and an entry that is no recipe stage keep theirs; metadata with no lineage is as it was."""
    lineage = [{"checkpoint": "stage1/final.zip", "recipe": "configs/r.yaml", "stage": 1, "timesteps": 8},
               {"checkpoint": "/abs/stage2/final.zip", "recipe": "configs/r.yaml", "stage": 2},
               {"checkpoint": "checkpoints/snack_wars_v0.zip", "recipe": "configs/r.yaml", "stage": 3},
               {"checkpoint": "runs/a/final.zip", "timesteps": 5},
               {"checkpoint": "stage4/final.zip", "recipe": "configs/r.yaml"}]
    published = ship.repository_lineage(dict(META, lineage=lineage))["lineage"]
    assert published == [{"recipe": "configs/r.yaml", "stage": 1, "timesteps": 8}, *lineage[1:]]
    assert ship.repository_lineage(META) == META and "lineage" not in ship.repository_lineage(META)


# --- snack-ship's options ---------------------------------------------------------------------------------------
def test_solo_rows_play_solo_games_at_most_games_and_rat_snacks_asks_107(tmp_path, monkeypatch):
    """Solo rows play --solo-games, by default 1,000 but never more than --games; the agent's mean of 105 clears
    100 but not Rat Snacks' 107; the README's solo table shows the rank shares of the finished games."""
    calls = []
    ranks = [rank for _, rank in ship.SOLO_RANKS]

    def fake_solo(env_name, player, games, seed=0, **options):
        calls.append((player if player == "heuristic" else "agent", games, options["rat_snacks"]))
        counts = dict.fromkeys(ranks, 0) | {"Leaderboard": games // 2, "Very Impressive": games - games // 2}
        return {"games": games, "unfinished": 0, "mean_score_ci95": [105.0, 101.0, 109.0], "ranks": counts,
                "player": Path(player).stem, "seconds": 0.1, "games_per_s": 10.0}

    monkeypatch.setattr(ship, "solo", fake_solo)
    path = checkpoint(tmp_path, "snack_time_v0_solo", env_name="snack_time_v0", num_players=1, player_counts=[1])
    ship.main([str(path), "--games", "40", "--out", str(tmp_path), "--dry-run"])
    assert calls == [("agent", 40, False), ("heuristic", 40, False), ("agent", 40, True), ("heuristic", 40, True)]
    calls.clear()
    ship.main([str(path), "--games", "3000", "--out", str(tmp_path), "--dry-run"])
    assert {games for _, games, _ in calls} == {1000}
    calls.clear()
    ship.main([str(path), "--games", "40", "--solo-games", "8", "--out", str(tmp_path)])
    assert {games for _, games, _ in calls} == {8}
    bar = json.loads(path.with_suffix(".json").read_text())["bar"]
    checks = {c["check"]: (c["passed"], c["figure"]) for c in bar["counts"]["1"]["verdict"]["checks"]}
    assert checks == {"solo": (True, "mean score 105.0 >= 100"),
                      "solo with Rat Snacks": (False, "mean score 105.0 < 107")}
    assert bar["passed"] is False
    shares = " | ".join({"Leaderboard": "50%", "Very Impressive": "50%"}.get(r, "0%") for r in ranks)
    assert (f"| agent | 8 | 105.0 [101.0, 109.0] | {shares} | **not cleared**: solo with Rat Snacks: "
            "mean score 105.0 < 107 |") in (tmp_path / "README.md").read_text()


def test_dry_run_writes_nothing(tmp_path, monkeypatch):
    """--dry-run measures and prints, but neither the metadata nor a README is written."""
    path = checkpoint(tmp_path)
    before = path.with_suffix(".json").read_text()
    stub(monkeypatch, CLEARS)
    ship.main([str(path), "--games", "10", "--lookahead-games", "6", "--out", str(tmp_path), "--dry-run"])
    assert path.with_suffix(".json").read_text() == before and not (tmp_path / "README.md").exists()


def test_ship_refuses_an_out_that_is_a_file_and_an_empty_folder(tmp_path, capsys, monkeypatch):
    """--out naming a file, or no checkpoint named and none in --out: one line, exit status 2, nothing measured."""
    monkeypatch.setattr(ship, "measure", lambda *a, **k: pytest.fail("measured"))
    path = checkpoint(tmp_path / "ck")
    (tmp_path / "file").write_text("x")
    code, _, err = run_main(ship, [str(path), "--out", str(tmp_path / "file")], capsys)
    assert code == 2 and err.startswith("snack-ship: error: ") and "is a file" in err, err
    (tmp_path / "empty").mkdir()
    code, _, err = run_main(ship, ["--out", str(tmp_path / "empty")], capsys)
    assert code == 2 and "no checkpoint given and none in" in err, err


def test_an_agent_as_perfect_as_the_heuristic_is_not_weaker():
    """Both win every game against random: no noise at all, the floor is the heuristic's 1.0, and the agent's
    1.0 meets it ("at least as strong" is >=, not >)."""
    perfect = {"win_rate": 1.0, "win_rate_ci95": [0.98, 1.0], "finished": 200}
    rows = {"vs_heuristic": {"win_rate": 0.7, "win_rate_ci95": [0.65, 0.75], "finished": 200},
            "vs_random": perfect, "heuristic_vs_random": perfect, "vs_lookahead": perfect, "heuristic_vs_lookahead": perfect}
    assert ship.not_weaker(perfect, perfect) == (True, 1.0)
    found = ship.verdict(2, rows)
    assert found["passed"] and {"check": "vs random", "passed": True,
                                "figure": "1.000 vs the heuristic's 1.000 (at least 1.000)"} in found["checks"]


def test_one_job_measures_the_counts_in_this_process_one_after_another(tmp_path, monkeypatch):
    """--jobs 1 (the default) measures every count here, in order, each announced on its own line: no
    process pool (whose workers would not see this process's state)."""
    path = checkpoint(tmp_path, player_counts=[2, 3])
    arena = stub(monkeypatch, {**CLEARS, ("agent", "heuristic"): (0.5, 0.45, 0.55)})
    lines = []
    bar = ship.measure(path, [2, 3], games=10, look_games=6, log=lines.append, jobs=1)
    assert [n for n, *_ in arena.calls] == [2] * 5 + [3] * 5
    assert f"{path}: 2 players" in lines and f"{path}: 3 players" in lines
    assert bar["counts"]["2"]["verdict"]["passed"] is False and bar["counts"]["3"]["verdict"]["passed"] is True


def test_two_jobs_measure_two_counts_in_a_pool_of_two_largest_count_first(tmp_path, monkeypatch):
    """--jobs 2 with two counts: a pool of 2 processes, the larger count submitted first (its games are the
    slowest), the results stored by count in order. (The pool is replaced by one that runs each job here.)"""
    import concurrent.futures

    pools, submitted = [], []

    class Done:
        def __init__(self, value):
            self.value = value

        def result(self):
            return self.value

    class Pool:
        def __init__(self, workers, mp_context=None):
            pools.append(workers)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def submit(self, fn, path, n, *args):
            submitted.append(n)
            return Done(fn(path, n, *args))

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    monkeypatch.setattr(ship, "_measure_alone", lambda path, n, *args: ship.measure_count(path, n, *args, log=print))
    path = checkpoint(tmp_path, player_counts=[2, 3])
    stub(monkeypatch, CLEARS)
    lines = []
    bar = ship.measure(path, [2, 3], games=10, look_games=6, log=lines.append, jobs=2)
    assert pools == [2] and submitted == [3, 2] and list(bar["counts"]) == ["2", "3"]
    assert f"{path}: 2, 3 players, in 2 processes" in lines
    assert ship.measure(path, [2, 3], games=10, look_games=6, log=lines.append, jobs=5) and pools == [2, 2]


def test_a_match_with_no_finished_game_is_weaker_not_a_crash():
    """An agent whose every game was cut off (finished 0, share 0): no division by zero; its noise term is 0,
    so the floor is the heuristic's 0.5 less z x sqrt(0.25 / 100) = 0.402, and 0 is below it."""
    passed, floor = ship.not_weaker({"win_rate": 0.0, "finished": 0}, {"win_rate": 0.5, "finished": 100})
    assert passed is False and floor == pytest.approx(0.5 - 1.959964 * 0.05, abs=1e-6)  # z of 97.5%


def test_a_solo_mean_exactly_at_the_bar_reads_as_reaching_it():
    """100.0 (107.0 with Rat Snacks) meets the bar: passed, and its figure says ">=", not "<"."""
    def mean(x):
        return {"mean_score_ci95": [x, x - 2, x + 2]}

    checks = ship.verdict(1, {"solo": mean(100.0), "solo_rat_snacks": mean(107.0)})["checks"]
    assert [(c["passed"], c["figure"]) for c in checks] == [(True, "mean score 100.0 >= 100"),
                                                           (True, "mean score 107.0 >= 107")]
