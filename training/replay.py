"""Record one game between agents as a replay file: a text log of every position (.txt)."""

from __future__ import annotations

from pathlib import Path

from snack_envs.agents import Policy
from training.evaluate import play_game


def record_game(env_name: str, lineup: list[Policy], seed: int, path: Path, **env_kwargs) -> Path:
    """Play `lineup` (one policy per seat) and write every position the spectator sees to `path`."""
    path = Path(path)
    frames: list[str] = []

    def on_frame(env):
        frames.append(env.game.render_text(names=[f"seat {s} ({p.name})" for s, p in enumerate(lineup)]))

    result = play_game(env_name, lineup, seed, on_frame=on_frame, **env_kwargs)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = f"{env_name}, seed {seed}: " + ", ".join(f"seat {s} {p.name}" for s, p in enumerate(lineup))
    body = "\n\n".join(f"--- position {i} ---\n{f}" for i, f in enumerate(frames))
    path.write_text(f"{header}\n\n{body}\n\nscores by seat: {result['scores']}; winners: {result['winners']}\n")
    return path
