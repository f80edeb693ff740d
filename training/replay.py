"""Record one game between agents as a replay file: an animated GIF of the table (.gif, needs Pillow),
or a text log of every position (any other suffix, e.g. .txt)."""

from __future__ import annotations

from pathlib import Path

from snack_envs.agents import Policy
from training.evaluate import play_game


def record_game(env_name: str, lineup: list[Policy], seed: int, path: Path, **env_kwargs) -> Path:
    """Play `lineup` (one policy per seat) and write every position the spectator sees to `path`."""
    path = Path(path)
    frames: list = []
    names = [f"seat {s} ({p.name})" for s, p in enumerate(lineup)]
    gif = path.suffix.lower() == ".gif"
    if gif:
        from snack_envs.core.picture import draw_game

    def on_frame(env):
        frames.append(draw_game(env.game, None, names) if gif else env.game.render_text(names=names))

    result = play_game(env_name, lineup, seed, on_frame=on_frame, **env_kwargs)
    header = f"{env_name}, seed {seed}: " + ", ".join(f"seat {s} {p.name}" for s, p in enumerate(lineup))
    return save_frames(frames, path, header, f"scores by seat: {result['scores']}; winners: {result['winners']}")


def save_frames(frames: list, path: Path, header: str = "", footer: str = "") -> Path:
    """Write a game's frames: pictures as a GIF (`path` ending in .gif), text positions as a text log."""
    path = Path(path)
    if path.suffix.lower() == ".gif":
        from snack_envs.recording import save_gif

        return save_gif(frames, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(f"--- position {i} ---\n{f}" for i, f in enumerate(frames))
    path.write_text(f"{header}\n\n{body}\n\n{footer}\n")
    return path
