"""MkDocs hook: the table of shipped checkpoints, built at build time from `checkpoints/*.json`.

A page holding the line `<!-- checkpoints-table -->` gets, in its place, one row per metadata
file (the bar `python -m snack_envs.training.ship` measured, the training totals) and the training notes.
A metadata file that lacks a field the table needs fails the build, naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path

MARKER = "<!-- checkpoints-table -->"
HEADER = (
    "| checkpoint | env | players | games a match | timesteps | training | vs heuristic | vs random "
    "| heuristic vs random | bar |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def _rate(match: dict) -> str:
    low, high = match["win_rate_ci95"]
    return f"{match['win_rate']:.3f} [{low:.3f}, {high:.3f}]"


def _scores(match: dict) -> str:
    return f"{match['hero_mean_score_ci95'][0]:.1f} vs {match['villain_mean_score_ci95'][0]:.1f}"


def row(name: str, meta: dict) -> str:
    """One table row for the checkpoint `name` (.zip) from its metadata."""
    env = f"[`{meta['env_name']}`](envs/{meta['env_name']}.md)"
    # A fine-tuned run counts the runs behind it (init_from); an averaged checkpoint states its totals.
    steps = meta.get("lineage_timesteps", meta["timesteps"])
    wall = meta.get("lineage_wall_time_s", meta["wall_time_s"])
    bar = meta.get("bar")
    if not bar:
        return f"| `{name}` | {env} | {meta['num_players']} | - | {steps:,} | {wall / 60:.0f} min | - | - | - | not measured |"
    h, r, hr = bar["vs_heuristic"], bar["vs_random"], bar["heuristic_vs_random"]
    return (
        f"| `{name}` | {env} | {meta['num_players']} | {bar['games_per_match']:,} | {steps:,} | {wall / 60:.0f} min "
        f"| {_rate(h)} (scores {_scores(h)}) | {_rate(r)} | {_rate(hr)} | {'yes' if bar['passed'] else '**no**'} |"
    )


def table(folder: Path) -> str:
    """The Markdown table and training notes of every `*.json` in `folder`."""
    rows, notes = [], []
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no checkpoint metadata (*.json) in {folder}")
    for path in paths:
        meta = json.loads(path.read_text())
        name = path.with_suffix(".zip").name
        try:
            rows.append(row(name, meta))
        except (KeyError, TypeError, IndexError) as err:
            raise ValueError(f"{path}: the checkpoint table needs the field {err}") from err
        if meta.get("note"):
            notes.append(f"- `{name}`: {meta['note']}")
    out = HEADER + "\n" + "\n".join(rows) + "\n"
    if notes:
        out += "\nHow they were trained, where the config alone does not say:\n\n" + "\n".join(notes) + "\n"
    return out


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    if MARKER not in markdown:
        return markdown
    root = Path(config.config_file_path).parent
    return markdown.replace(MARKER, table(root / "checkpoints"))
