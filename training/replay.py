"""Replay files: the positions of one game as the spectator sees them, written as an animated GIF of
the table (a .gif path, needs Pillow), an MP4 video of it (a .mp4 path, needs imageio and
imageio-ffmpeg: the `render` extra) or a text log of every position (any other suffix, e.g. .txt).

`snack-eval --replay` (snack_envs.training.evaluate.record_game) and `snack-play --replay` write them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence


PICTURES = (".gif", ".mp4")
WORK_FILES = (".zip", ".json", ".yaml", ".yml", ".csv")  # checkpoints, their metadata, runs' files, configs, results


def check_path(path: str | Path) -> Path:
    """`path` as the path of a replay to write, checked before the game is played: a UsageError if it is a
    folder, or an existing file of one's work (a checkpoint, metadata, a config, results) that a replay
    would write over."""
    from snack_envs.training.cli import UsageError

    path = Path(path)
    if path.is_dir():
        raise UsageError(f"--replay {path} is a folder; give a file for the replay (.gif or .mp4 pictures, else text)")
    if path.suffix.lower() in WORK_FILES and path.exists():
        raise UsageError(f"--replay {path} exists and is no replay (a {path.suffix} file: a checkpoint, its metadata, "
                         f"a config or results); give a new path for the replay (.gif or .mp4 pictures, else text)")
    return path


class Replay:
    """Collects a game's frames for `path` (`check_path`): `snap(env)` after the reset and every step, then
    `save()`. `names` label the seats (default: the env's agent names by seat)."""

    def __init__(self, path: str | Path, names: Sequence[str] | None = None):
        self.path = check_path(path)
        self.names = names
        self.pictures = self.path.suffix.lower() in PICTURES  # pictures of the table (GIF or MP4), else text
        self.frames: list = []

    def snap(self, env) -> None:
        names = self.names or env.seat_agents
        if self.pictures:
            from snack_envs.core.picture import draw_game

            self.frames.append(draw_game(env.game, None, names))
        else:
            self.frames.append(env.game.render_text(names=names))

    def save(self, header: str = "", footer: str = "") -> Path:
        return save_frames(self.frames, self.path, header, footer)


def save_frames(frames: list, path: Path, header: str = "", footer: str = "") -> Path:
    """Write a game's frames: pictures as a GIF or MP4 (`path` ending in .gif, .mp4), text positions as a
    text log."""
    path = Path(path)
    if path.suffix.lower() in PICTURES:
        from snack_envs import recording

        return (recording.save_mp4 if path.suffix.lower() == ".mp4" else recording.save_gif)(frames, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(f"--- position {i} ---\n{f}" for i, f in enumerate(frames))
    path.write_text(f"{header}\n\n{body}\n\n{footer}\n")
    return path
