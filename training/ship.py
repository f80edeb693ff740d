"""Measure checkpoints against the bar at every player count they play; store the figures and write the README.

    snack-ship                                                  # every checkpoint in ./checkpoints
    snack-ship checkpoints/snack_wars_v0.zip --players 3 --games 200 --dry-run
    snack-ship runs/<run>/final.zip [--note TEXT] [--out DIR]   # measure a run, publish it
    snack-ship checkpoints/snack_time_v0.zip --jobs 2           # its counts in 2 processes

Every match is played on the batched engine (`snack_envs.training.arena`): the agent (deterministic,
argmax) in one seat, rotated so that it sits in each seat equally often, ties split (a win shared by
k seats counts 1/k), 95% Wilson intervals. The bar (issue 19), for each player count n that the
checkpoint's metadata lists (`checkpoints.player_counts`):
- n >= 2, against n - 1 heuristic bots: the 95% lower bound of the agent's win share above 1.2/n
  (0.6 with 2 players);
- against n - 1 random players, and against n - 1 lookahead bots (`snack_envs.lookahead`, which it
  never trained with): at least as strong as the heuristic is in the same seats. "At least as
  strong": the agent's win share is not below the heuristic's by more than the two measurements'
  noise, p_agent >= p_heuristic - 1.96 * sqrt(p_a (1 - p_a) / N_a + p_h (1 - p_h) / N_h), N the
  finished games (a one-sided test at the 2.5% level by the normal approximation: near a share of
  0 or 1, where that approximation is poor, it is stricter than an exact test would be);
- n = 1 (Snack Time solo): a mean score of at least 100 over its games (1,000 by default), and
  at least 107 with the Rat Snacks module; the rulebook's rank distribution beside it.
The lookahead is slower than the other bots: when `--lookahead-games` is not given, its two rows
play as many games as fit in `--lookahead-budget` seconds each (estimated from a few games,
rounded down to a hundred, at most `--games`); the games used are printed and stored.

The figures go into each checkpoint's metadata under "bar" (one entry per count, with its
verdict; other keys kept) and into the folder's README.md (`write_readme`), rewritten from the
metadata of every checkpoint there, the training notes ("note") included. Every match has a fixed
seed (`--seed`), so a re-measure with the stored game counts gives the stored figures exactly
(`tests/training/test_shipped_bar.py`, slow). A checkpoint in the folder is measured in place. One
outside it (a run) is copied in, as `<env>.zip` (`<env>_solo.zip` if it plays only solo, `<env>_<n>p.zip`
if only n of its game's several counts), only if it
clears the bar at every count (`--force`: anyway, marked as missing it); when it misses, its figures
are written beside it (`<run>/<name>.bar.json`) so that a long measure is not lost. `--dry-run`
prints the figures and writes nothing.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_ship  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_ship())

import importlib.util
import json
import math
import shutil
import time
from pathlib import Path
from typing import Any

from snack_envs import specs
from snack_envs.checkpoints import player_counts, read_metadata, write_json_atomic
from snack_envs.snack_time.components import SOLO_RANKS  # the solo mode's ranks (Snack Time's alone)
from snack_envs.training.arena import match, solo
from snack_envs.training.cli import ArgumentParser, command, nonnegative_int, positive_float, positive_int
from snack_envs.training.curves import export_curve
from snack_envs.training.evaluate import Z95
from snack_envs.training.outcomes import bounds_text, mean_of, mean_text

DEFAULT_OUT = Path("checkpoints")  # relative: the current folder's, wherever the package is installed
GAMES, SOLO_GAMES, SEED = 2000, 1000, 2_000_000
LOOKAHEAD_BUDGET_S = 900.0
SOLO_BAR = {False: 100.0, True: 107.0}  # by Rat Snacks
WANTED_COUNTS = {"snack_time_v0": (1, 2, 3, 4)}  # issue 19's counts where not every count the game allows
TIMING = ("seconds", "games_per_s")  # in each stored match, but not part of its figures
MATCHES = ("vs_heuristic", "vs_random", "heuristic_vs_random", "vs_lookahead", "heuristic_vs_lookahead")
SOLOS = ("solo", "heuristic_solo", "solo_rat_snacks", "heuristic_solo_rat_snacks")
RULE = ("n players: vs n-1 heuristic bots, the 95% Wilson lower bound of the win share (ties split) > 1.2/n; "
        "vs n-1 random and vs n-1 lookahead bots, a win share >= the heuristic's there - 1.96 x the standard "
        "error of the difference; solo: mean score >= 100, >= 107 with Rat Snacks")


def lookahead_available() -> bool:
    return importlib.util.find_spec("snack_envs.lookahead") is not None


def figures(result: dict) -> dict:
    """A stored match or solo result without its timings: what a re-measure must reproduce exactly."""
    return {k: v for k, v in result.items() if k not in TIMING}


def hero_renamed(bar: dict, old: str, new: str) -> dict:
    """`bar` with the hero (a solo row's player) named `new` where it was `old`: a run's `final.zip` is
    published as `<env>.zip`, and a re-measure of the published file must give the stored figures exactly,
    the hero's name included."""
    def renamed(row):
        if not isinstance(row, dict):
            return row
        return {**row, **{key: new for key in ("hero", "player") if row.get(key) == old}}

    counts = {n: {key: renamed(row) for key, row in rows.items()} for n, rows in bar["counts"].items()}
    return dict(bar, counts=counts)


# --- measuring -----------------------------------------------------------------------------------------------
def lookahead_games(env_name: str, n: int, games: int, budget_s: float, seed: int, **options) -> int:
    """How many games of a lookahead match fit in `budget_s` seconds (from a few games' time), rounded
    down to a hundred: at least 100, at most `games`."""
    probe = match(env_name, n, "heuristic", "lookahead", games=2 * n, seed=seed, **options)
    fit = int(budget_s * probe["games"] / max(probe["seconds"], 1e-9)) // 100 * 100
    return max(min(games, fit), min(games, 100))


def measure_count(path: Path, n: int, games: int = GAMES, solo_games: int = SOLO_GAMES, seed: int = SEED,
                  look_games: int | None = None, budget_s: float = LOOKAHEAD_BUDGET_S, log=print) -> dict:
    """The bar's matches of checkpoint `path` at `n` players (see the module docstring), with the verdict."""
    meta = read_metadata(path)
    env_name, options = meta["env_name"], meta.get("env_options", {})
    agent = str(path)
    started = time.perf_counter()
    rows: dict[str, Any] = {}

    players = f"{n} player{'s' if n > 1 else ''}"

    def played(key: str, result: dict) -> None:
        rows[key] = result
        if "mean_score_ci95" in result:
            log(f"  {players} {key:26s} {result['games']:5d} games  mean score {mean_text(result['mean_score_ci95'], '.2f')}"
                f"  ({result['games_per_s']} games/s)")
        else:
            low, high = result["win_rate_ci95"]
            log(f"  {players} {key:26s} {result['games']:5d} games  win share {result['win_rate']:.3f} "
                f"[{low:.3f}, {high:.3f}]  ({result['games_per_s']} games/s)")

    if n == 1:  # Snack Time's solo mode, without and with the Rat Snacks module
        for rat in (False, True):
            opts = dict(options, rat_snacks=rat)
            suffix = "_rat_snacks" if rat else ""
            played("solo" + suffix, solo(env_name, agent, solo_games, seed, **opts))
            played("heuristic_solo" + suffix, solo(env_name, "heuristic", solo_games, seed, **opts))
    else:
        played("vs_heuristic", match(env_name, n, agent, "heuristic", games, seed, **options))
        played("vs_random", match(env_name, n, agent, "random", games, seed, **options))
        played("heuristic_vs_random", match(env_name, n, "heuristic", "random", games, seed, **options))
        if lookahead_available():
            if look_games is None:
                look_games = lookahead_games(env_name, n, games, budget_s, seed, **options)
                if look_games < games:
                    log(f"  {n} players: the lookahead rows play {look_games} games (too slow for {games} "
                        f"in {budget_s:.0f} s)")
            played("vs_lookahead", match(env_name, n, agent, "lookahead", look_games, seed, **options))
            played("heuristic_vs_lookahead", match(env_name, n, "heuristic", "lookahead", look_games, seed, **options))
        else:
            log(f"  {n} players: no lookahead bot (snack_envs.lookahead) here: its rows are not measured")
    return dict(rows, verdict=verdict(n, rows), seed=seed, measured_in_s=round(time.perf_counter() - started, 1))


def not_weaker(agent: dict, heuristic: dict) -> tuple[bool, float]:
    """Whether the agent's win share is at least the heuristic's less 1.96 standard errors of their
    difference; returns (that, the lowest share allowed)."""
    p, q = agent["win_rate"], heuristic["win_rate"]
    se = math.sqrt(p * (1 - p) / max(agent["finished"], 1) + q * (1 - q) / max(heuristic["finished"], 1))
    floor = q - Z95 * se
    return p >= floor, floor


def decimals(value: float, bar: float, least: int) -> int:
    """The decimals to show `value` with beside `bar`: `least`, or as many more as it takes for a value
    that is not the bar to read unlike it (99.96 against 100 shows as 99.96, not 100.0; a near miss must
    not read as a pass, nor a bare pass as a miss)."""
    digits = least
    while value != bar and digits < 12 and f"{value:.{digits}f}" == f"{bar:.{digits}f}":
        digits += 1
    return digits


def verdict(n: int, rows: dict) -> dict:
    """The bar applied to one count's results (`measure_count`'s rows): each check with its figure, and
    `passed` (every check passed; one not measured counts as missed)."""
    checks = []

    def check(name: str, passed: bool | None, figure: str) -> None:
        checks.append({"check": name, "passed": passed, "figure": figure})

    if n == 1:
        for key, rat in (("solo", False), ("solo_rat_snacks", True)):
            name = "solo with Rat Snacks" if rat else "solo"
            if key not in rows:
                check(name, None, "not measured")
                continue
            mean = mean_of(rows[key]["mean_score_ci95"])
            bar = SOLO_BAR[rat]
            if mean is None:
                check(name, False, "no game finished")
                continue
            check(name, mean >= bar, f"mean score {mean:.{decimals(mean, bar, 1)}f} {'>=' if mean >= bar else '<'} {bar:.0f}")
    else:
        need = 1.2 / n
        if "vs_heuristic" in rows:
            low = rows["vs_heuristic"]["win_rate_ci95"][0]
            d = decimals(low, need, 3)
            check("vs heuristic", low > need, f"lower bound {low:.{d}f} {'>' if low > need else '<='} {need:.{d}f}")
        else:
            check("vs heuristic", None, "not measured")
        for other in ("random", "lookahead"):
            mine, theirs = rows.get(f"vs_{other}"), rows.get(f"heuristic_vs_{other}")
            if mine is None or theirs is None:
                check(f"vs {other}", None, "not measured")
                continue
            passed, floor = not_weaker(mine, theirs)
            d = decimals(mine["win_rate"], floor, 3)
            check(f"vs {other}", passed, f"{mine['win_rate']:.{d}f} vs the heuristic's {theirs['win_rate']:.{d}f} "
                                         f"(at least {floor:.{d}f})")
    return {"checks": checks, "passed": all(c["passed"] for c in checks)}


def missed(result: dict) -> str:
    """The checks a count's verdict missed, with their figures ("" if it passed)."""
    return "; ".join(f"{c['check']}: {c['figure']}" for c in result["verdict"]["checks"] if not c["passed"])


def _measure_alone(path: Path, n: int, *args) -> dict:
    """measure_count in a worker process of `measure(jobs > 1)`: one torch thread, as each worker is one core;
    its lines printed as they come (a worker's stdout is not a terminal, so it would hold them to the end)."""
    import torch

    torch.set_num_threads(1)
    return measure_count(path, n, *args, log=lambda line: print(line, flush=True))


def measure(path: Path, counts: list[int] | None = None, games: int = GAMES, solo_games: int = SOLO_GAMES,
            seed: int = SEED, look_games: int | None = None, budget_s: float = LOOKAHEAD_BUDGET_S, log=print,
            jobs: int = 1) -> dict:
    """The bar at every count in `counts` (default: every count the checkpoint plays), merged into the bar
    its metadata holds already (counts not measured now are kept). With `jobs` > 1 the counts are measured
    side by side in that many processes, largest count first (it plays the slowest games); every match
    has its own seed, so the figures are the same as measured one count after another."""
    meta = read_metadata(path)
    playable = player_counts(meta)
    counts = playable if counts is None else counts
    unknown = [n for n in counts if n not in playable]
    if unknown:
        raise ValueError(f"{path} plays {playable} players, not {unknown}")
    old = meta.get("bar", {})
    by_count = dict(old.get("counts", {})) if isinstance(old, dict) else {}
    by_count = {k: v for k, v in by_count.items() if int(k) in playable}
    if jobs > 1 and len(counts) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        log(f"{path}: {', '.join(map(str, counts))} players, in {min(jobs, len(counts))} processes")
        with ProcessPoolExecutor(min(jobs, len(counts)), mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {n: pool.submit(_measure_alone, path, n, games, solo_games, seed, look_games, budget_s)
                       for n in sorted(counts, reverse=True)}
            for n in counts:
                by_count[str(n)] = futures[n].result()
    else:
        for n in counts:
            log(f"{path}: {n} player{'s' if n > 1 else ''}")
            by_count[str(n)] = measure_count(path, n, games, solo_games, seed, look_games, budget_s, log)
    by_count = dict(sorted(by_count.items(), key=lambda kv: int(kv[0])))
    passed = all(by_count.get(str(n), {}).get("verdict", {}).get("passed", False) for n in playable)
    return {"rule": RULE, "counts": by_count, "passed": passed}


# --- the README ----------------------------------------------------------------------------------------------
def _share(x: float, games: float) -> str:
    return f"{100 * x / games:.0f}%" if games else "-"


def _match_row(label: str, m: dict) -> str:
    low, high = m["win_rate_ci95"]
    places = " / ".join(_share(p, m["finished"]) for p in m["places"])
    unfinished = f" ({m['unfinished']} unfinished)" if m["unfinished"] else ""
    return (f"{label} | {m['games']:,}{unfinished} | {m['win_rate']:.3f} [{low:.3f}, {high:.3f}] | {places} | "
            f"{mean_text(m['hero_mean_score_ci95'], '.1f')} ({mean_text(m['villain_mean_score_ci95'], '.1f')})")


def _verdict_text(result: dict) -> str:
    return "cleared" if result["verdict"]["passed"] else f"**not cleared**: {missed(result)}"


MATCH_LABELS = {"vs_heuristic": "agent vs {k} heuristic", "vs_random": "agent vs {k} random",
                "heuristic_vs_random": "heuristic vs {k} random", "vs_lookahead": "agent vs {k} lookahead",
                "heuristic_vs_lookahead": "heuristic vs {k} lookahead"}


def checkpoint_section(name: str, meta: dict, env_link: str | None = None) -> str:
    """A checkpoint's part of the README: its training totals, then a table of every count's matches
    (win share, places, mean scores) with the verdict, and Snack Time's solo table."""
    spec = specs.get(meta["env_name"])
    env = f"[`{meta['env_name']}`]({env_link.format(env=meta['env_name'])})" if env_link else f"`{meta['env_name']}`"
    steps = meta.get("lineage_timesteps", meta["timesteps"])  # a fine-tuned run counts the runs behind it
    wall = meta.get("lineage_wall_time_s", meta["wall_time_s"])
    counts = player_counts(meta)
    lines = [f"### {spec.title}: `{name}`", "",
             f"{env}, plays {', '.join(map(str, counts))} player{'s' if counts != [1] else ''}; "
             f"{steps:,} timesteps, {wall / 60:.0f} min of training.", ""]
    bar = meta.get("bar", {})
    by_count = (bar.get("counts") if isinstance(bar, dict) else None) or {}
    if not by_count:
        lines.append("Not measured against this bar yet (`snack-ship`).")
        if isinstance(bar, dict) and "vs_heuristic" in bar:  # an earlier bar's figures (2 players, head to head)
            def rate(m):
                return f"{m['win_rate']:.3f} [{m['win_rate_ci95'][0]:.3f}, {m['win_rate_ci95'][1]:.3f}]"

            lines.append(f"An earlier bar measured it over {bar['games_per_match']:,} games a match: vs the heuristic "
                         f"{rate(bar['vs_heuristic'])}, vs random {rate(bar['vs_random'])}, the heuristic vs random "
                         f"{rate(bar['heuristic_vs_random'])}.")
        return "\n".join(lines + [""])
    table = ["| players | match | games | win share [95% CI] | places (1st / 2nd / ...) | mean score (others') | bar |",
             "|---|---|---|---|---|---|---|"]
    for n in (n for n in counts if n > 1):
        result = by_count.get(str(n))
        if result is None:
            table.append(f"| {n} | not measured | | | | | |")
            continue
        present = [m for m in MATCHES if m in result]
        for i, m in enumerate(present):
            label = MATCH_LABELS[m].format(k=n - 1)
            table.append(f"| {n if i == 0 else ''} | {_match_row(label, result[m])} | "
                         f"{_verdict_text(result) if i == 0 else ''} |")
        if "vs_lookahead" not in result:
            table.append("| | lookahead rows | not measured | | | | |")
    if len(table) > 2:
        lines += table + [""]
    if 1 in counts:
        result = by_count.get("1")
        if result is None:
            return "\n".join(lines + ["Solo: not measured.", ""])
        ranks = [rank for _, rank in SOLO_RANKS]
        lines += ["| solo | games | mean score [95% CI] | " + " | ".join(ranks) + " | bar |",
                  "|---|---|---|" + "---|" * len(ranks) + "---|"]
        for i, key in enumerate(k for k in SOLOS if k in result):
            s = result[key]
            mean = s["mean_score_ci95"]
            figure = "-" if mean is None else f"{mean_text(mean, '.1f')} {bounds_text(mean, '.1f')}"
            label = ("agent" if key.startswith("solo") else "heuristic") + (", Rat Snacks" if "rat" in key else "")
            shares = " | ".join(_share(s["ranks"][r], s["games"] - s["unfinished"]) for r in ranks)
            lines.append(f"| {label} | {s['games']:,} | {figure} | {shares} | "
                         f"{_verdict_text(result) if i == 0 else ''} |")
        lines.append("")
    return "\n".join(lines)


def tables(folder: Path, env_link: str | None = None) -> str:
    """Every checkpoint's section (`checkpoint_section`) in `folder`, the player counts no checkpoint plays,
    and the training notes. A metadata file that lacks a field a section needs is a ValueError naming it."""
    sections, notes, played = [], [], {}
    for meta_path in sorted(Path(folder).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        name = meta_path.with_suffix(".zip").name
        try:
            sections.append(checkpoint_section(name, meta, env_link))
            played.setdefault(meta["env_name"], set()).update(player_counts(meta))
        except (KeyError, TypeError, IndexError, ValueError) as err:
            raise ValueError(f"{meta_path}: the checkpoint table needs the field {err}") from err
        if meta.get("note"):
            notes.append(f"- `{name}`: {meta['note']}")
    missing = []
    for spec in specs.SPECS:
        game = spec.rules_class
        wanted = WANTED_COUNTS.get(spec.env_name, range(game.min_players, game.max_players + 1))
        lacking = [n for n in wanted if n not in played.get(spec.env_name, ())]
        if lacking:
            missing.append(f"{spec.title} ({', '.join(map(str, lacking))})")
    out = "\n".join(sections)
    if missing:
        out += f"\nPlayer counts no checkpoint here plays yet: {'; '.join(missing)}.\n"
    if notes:
        out += "\n## How they were trained, where the config alone does not say\n\n" + "\n".join(notes) + "\n"
    return out


BAR_TEXT = """\
The bar, measured by `snack-ship` at every player count a checkpoint plays
(its metadata's `player_counts`), every match on the batched engine (`snack_envs.training.arena`)
with a fixed seed, the agent playing its argmax action, its seat rotated so that it sits in each seat
equally often. A win shared by k seats counts 1/k; intervals are 95% (Wilson for win shares). With
n players:

- against n-1 heuristic bots, the lower bound of the agent's win share is above 1.2/n (0.6 with 2);
- against n-1 random players, and against n-1 lookahead bots (`snack_envs.lookahead`, which no
  agent trained with), the agent is at least as strong as the heuristic bot is in its place: its
  win share is at least the heuristic's less 1.96 standard errors of the difference;
- Snack Time solo: a mean score of at least 100 (at least 107 with Rat Snacks), with the rulebook's
  ranks beside it.

Places: the agent's finishing place in the finished games, winners first, then by score, seats
equal in both sharing their places (each taking an equal part of the game). Games cut off at
`max_steps` are counted as unfinished and left out of the figures. Mean scores: the agent's, and in
brackets its opponents'. Training times are wall-clock on a shared 2-core machine.
"""


def write_readme(folder: Path = DEFAULT_OUT) -> Path:
    """(Re)write `folder`/README.md from the metadata of the checkpoints there."""
    folder = Path(folder)
    path = folder / "README.md"
    path.write_text(
        "# Shipped checkpoints\n\n"
        "MaskablePPO policies (sb3-contrib), one per game, each with a JSON metadata file (game, env version and\n"
        "options, the player counts it plays, observation and action sizes, training config, seed, timesteps,\n"
        "wall time, library versions, the bar measured). Load one with\n"
        "`snack_envs.checkpoints.load_policy(path, env_name=..., num_players=...)`; it acts from the env's own\n"
        "`obs[\"observation\"]` and `obs[\"action_mask\"]`.\n\n"
        + BAR_TEXT + "\n## The checkpoints\n\n" + tables(folder)
    )
    return path


def repository_lineage(meta: dict) -> dict:
    """`meta` as a published checkpoint keeps it: a recipe's stages in its lineage are named by the recipe and the
    stage alone, without their path in the run's folder ("stage1/final.zip"), which the repository does not hold."""
    lineage = []
    for entry in meta.get("lineage", []):
        path = entry.get("checkpoint")
        in_run = path is not None and not Path(path).is_absolute() and not path.startswith("checkpoints/")
        lineage.append({k: v for k, v in entry.items() if k != "checkpoint"}
                       if in_run and "recipe" in entry and "stage" in entry else entry)
    return dict(meta, lineage=lineage) if "lineage" in meta else meta


def published_name(meta: dict) -> str:
    """The file a run is published as: `<env>.zip`; `<env>_solo.zip` for one that plays only solo, and
    `<env>_<n>p.zip` for one that plays only n of the several counts its game seats: neither may replace
    the game's checkpoint for every count."""
    counts, rules = player_counts(meta), specs.get(meta["env_name"]).rules_class
    if counts == [1]:
        return f"{meta['env_name']}_solo.zip"
    if len(counts) == 1 and rules.min_players < rules.max_players:
        return f"{meta['env_name']}_{counts[0]}p.zip"
    return f"{meta['env_name']}.zip"


# --- the command ---------------------------------------------------------------------------------------------
@command("snack-ship")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-ship",
                            description="Measure checkpoints against the bar at every player count; publish them.")
    parser.add_argument("checkpoints", type=Path, nargs="*",
                        help="checkpoints to measure (default: every .zip in --out); one outside --out is published there")
    parser.add_argument("--players", type=positive_int, nargs="+", default=None,
                        help="measure only these player counts (the others' stored figures are kept)")
    parser.add_argument("--games", type=positive_int, default=GAMES, help=f"games a match (default {GAMES})")
    parser.add_argument("--solo-games", type=positive_int, default=None,
                        help=f"games of a solo row (default {SOLO_GAMES}, at most --games)")
    parser.add_argument("--lookahead-games", type=positive_int, default=None,
                        help="games of the two lookahead rows (default: what fits in --lookahead-budget)")
    parser.add_argument("--lookahead-budget", type=positive_float, default=LOOKAHEAD_BUDGET_S,
                        help=f"seconds for each lookahead row when --lookahead-games is not given (default {LOOKAHEAD_BUDGET_S:.0f})")
    parser.add_argument("--seed", type=nonnegative_int, default=SEED)
    parser.add_argument("--jobs", type=positive_int, default=1,
                        help="measure the player counts side by side in this many processes (default 1; same figures)")
    parser.add_argument("--dry-run", action="store_true", help="print the figures; write nothing")
    parser.add_argument("--force", action="store_true", help="publish a run even if it misses the bar (marked as such)")
    parser.add_argument("--note", default="", help="how it was trained, where its config alone does not say (metadata and README)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the folder of checkpoints, with its README.md (default: ./checkpoints)")
    args = parser.parse_args(argv)
    if args.players is not None:  # each count measured once, in order, however often it is named
        args.players = sorted(set(args.players))
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file; give a folder to publish into")
    paths = args.checkpoints or sorted(args.out.glob("*.zip"))
    if not paths:
        parser.error(f"no checkpoint given and none in {args.out}")
    solo_games = args.solo_games or min(SOLO_GAMES, args.games)
    # Every checkpoint is checked before any is measured. Named ones must play every count of --players;
    # of the folder's own (none named), each plays those of the counts it can, and one that can play none
    # is left as it is.
    plan = []
    for path in paths:
        meta = read_metadata(path)
        playable = player_counts(meta)
        counts = playable if args.players is None else [n for n in args.players if n in playable]
        if args.checkpoints and args.players is not None and counts != args.players:
            parser.error(f"{path} plays {playable} players, not {args.players}")
        if not counts:
            print(f"{path}: plays {playable} players, none of {args.players}: left as it is")
            continue
        plan.append((path, meta, counts))
    for path, meta, counts in plan:
        bar = measure(path, counts, args.games, solo_games, args.seed, args.lookahead_games, args.lookahead_budget,
                      jobs=args.jobs)
        for n, result in bar["counts"].items():
            if int(n) in counts:
                print(f"{path}, {n} player{'s' if n != '1' else ''}: {_verdict_text(result).replace('**', '')}")
        if args.dry_run:
            continue
        in_place = Path(path).resolve().parent == args.out.resolve()
        target = Path(path) if in_place else args.out / published_name(meta)
        if not in_place:  # a run: publish it
            if not bar["passed"] and not args.force:
                kept = Path(path).with_suffix(".bar.json")  # a long measure is not lost: the figures stay by the run
                write_json_atomic(kept, bar)
                print(f"{path}: bar missed: not published (figures in {kept}; --force publishes it marked as missed)")
                continue
            args.out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            meta = repository_lineage(meta)
            bar = hero_renamed(bar, Path(path).stem, target.stem)
            print("published", target)
            if (Path(path).parent / "config.json").is_file():  # a training run's checkpoint: its learning curve too
                print("wrote", *export_curve(Path(path).parent, target))
        if args.note:
            meta = dict(meta, note=args.note)
        write_json_atomic(target.with_suffix(".json"), dict(meta, bar=bar))
    if not args.dry_run and args.out.is_dir():
        print("wrote", write_readme(args.out))
