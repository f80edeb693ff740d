"""MkDocs hook: a short animated replay (GIF) of every env, made at build time.

Each env plays one game with random legal moves from a fixed seed
(`snack_envs.recording.record_episode`: the same seed gives the same game in
any process), drawn from the spectator's seat; a game longer than
`MAX_FRAMES` frames keeps that many, evenly spaced from the first to the last
(the end, with the scores), and `save_gif` saves them. The GIFs are added to the site as
`replays/<env_name>.gif`; nothing is written into docs/. Needs Pillow (the
`render` extra, which the `docs` extra pulls in).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from mkdocs.structure.files import File

SEED = 0
MAX_FRAMES = 40  # a short replay: at most 20 s at the envs' 2 frames a second, plus the end held 2 s
_cache: dict[str, bytes] = {}  # env name -> GIF bytes, kept between rebuilds of `mkdocs serve`


def replay_gif(env_name: str) -> bytes:
    """The GIF bytes of the replay of `env_name`."""
    if env_name not in _cache:
        from snack_envs import specs
        from snack_envs.recording import record_episode, save_gif

        fps = specs.get(env_name).env_class.metadata.get("render_fps", 2)
        frames = record_episode(env_name, seed=SEED)
        if len(frames) > MAX_FRAMES:
            frames = [frames[round(k * (len(frames) - 1) / (MAX_FRAMES - 1))] for k in range(MAX_FRAMES)]
        with tempfile.TemporaryDirectory() as tmp:
            _cache[env_name] = save_gif(frames, Path(tmp) / "replay.gif", fps=fps).read_bytes()
    return _cache[env_name]


def on_files(files, config, **kwargs):
    from snack_envs import ENV_NAMES

    for env_name in ENV_NAMES:
        files.append(File.generated(config, f"replays/{env_name}.gif", content=replay_gif(env_name)))
    return files
