"""MkDocs hook: the learning curve of each shipped checkpoint, from `checkpoints/<name>.curve.png` and `.curve.csv`.

`snack_envs.training.curves.export_curve` writes them beside a checkpoint. This hook adds each to the site as
`curves/<file>` (nothing is written into docs/), and a page holding the line `<!-- checkpoint-curves -->` gets,
in its place, a section per checkpoint (`checkpoints/*.json`): its curve and the CSV behind it, with the
metadata's "curve_note" where there is one (which run the curve is of, when not the checkpoint's own), or a
line saying it has none yet.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.structure.files import File

MARKER = "<!-- checkpoint-curves -->"


def curve_files(folder: Path) -> list[Path]:
    """The curve files (`*.curve.png`, `*.curve.csv`) in `folder`."""
    return sorted([*folder.glob("*.curve.png"), *folder.glob("*.curve.csv")])


def sections(folder: Path, prefix: str = "curves/") -> str:
    """The Markdown for every checkpoint in `folder` (by its metadata file): its curve image and CSV, linked
    under `prefix`, or a line saying it has no curve."""
    out = []
    for meta in sorted(folder.glob("*.json")):
        name = meta.stem
        out.append(f"### `{name}.zip`\n")
        png, csv = folder / f"{name}.curve.png", folder / f"{name}.curve.csv"
        if png.is_file():
            out.append(f"![Learning curve of {name}]({prefix}{png.name})\n")
            if csv.is_file():
                out.append(f"The figures: [`{csv.name}`]({prefix}{csv.name}).\n")
            if note := json.loads(meta.read_text()).get("curve_note"):
                out.append(f"{note}\n")
        else:
            out.append("No curve yet: it was trained before runs exported their learning curves.\n")
    return "\n".join(out)


def on_files(files, config, **kwargs):
    folder = Path(config.config_file_path).parent / "checkpoints"
    for path in curve_files(folder):
        files.append(File.generated(config, f"curves/{path.name}", content=path.read_bytes()))
    return files


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, sections(Path(config.config_file_path).parent / "checkpoints"))
