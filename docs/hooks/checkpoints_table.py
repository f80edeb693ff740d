"""MkDocs hook: the tables of shipped checkpoints, built at build time from `checkpoints/*.json`.

A page holding the line `<!-- checkpoints-table -->` gets, in its place, what checkpoints/README.md
shows (`snack_envs.training.ship.tables`): for each checkpoint, the bar `python -m
snack_envs.training.ship` measured at every player count it plays, and the training notes. A
metadata file that lacks a field the tables need fails the build, naming the file.
"""

from __future__ import annotations

from pathlib import Path

MARKER = "<!-- checkpoints-table -->"


def table(folder: Path) -> str:
    """The Markdown tables and training notes of every `*.json` in `folder`, each env name linking to its page."""
    from snack_envs.training.ship import tables

    if not sorted(folder.glob("*.json")):
        raise FileNotFoundError(f"no checkpoint metadata (*.json) in {folder}")
    return tables(folder, env_link="envs/{env}.md")


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    if MARKER not in markdown:
        return markdown
    root = Path(config.config_file_path).parent
    return markdown.replace(MARKER, table(root / "checkpoints"))
