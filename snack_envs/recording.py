"""Episodes as pictures: record a game frame by frame and save it as an animated GIF (Pillow).

    from snack_envs.recording import record_episode, save_gif

    frames = record_episode("snack_wars_v0", seed=0, num_players=3)   # random legal play, spectator view
    save_gif(frames, "wars.gif", fps=2)

    # one seat's view (what that player may see), with your own policies
    frames = record_episode("speed_snacks_v0", seed=1, viewer="player_0",
                            policies={"player_0": my_policy, "player_1": other_policy})

`record_episode` draws a frame after the reset and after every move (every
joint step of a simultaneous game). A policy is an object with
`act(observation, action_mask) -> int` (the policies of `snack_envs.agents`,
trained checkpoints included) or a function `f(obs_dict) -> int`; agents
without one play uniformly random legal moves. Frames are HxWx3 uint8 arrays,
the same as `render()` in "rgb_array" mode, all of one size.

From the command line, `snack-eval ... --replay game.gif` and `snack-play ...
--replay game.gif` write a game as a GIF (`.txt`: as text).

MP4: every env has `render_mode="rgb_array"` and `metadata["render_fps"]`, so
PettingZoo's `pettingzoo.utils.wrappers.RecordVideo` (AEC) and
`RecordVideoParallel`, and Gymnasium's `gymnasium.wrappers.RecordVideo` around
`snack_envs.single_agent.SingleAgentEnv(..., render_mode="rgb_array")`, can
record them; they need `moviepy`, which snack-envs does not install.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from snack_envs.core.picture import pillow

DEFAULT_FPS = 2


def _act(policy: Any, obs: dict, rng: np.random.Generator) -> int:
    if policy is None:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[rng.integers(len(legal))])
    if hasattr(policy, "act"):
        return int(policy.act(obs["observation"], obs["action_mask"]))
    return int(policy(obs))


def record_episode(
    env_name: str,
    seed: int | None = None,
    policies: Mapping[str, Any] | None = None,
    viewer: str | None = None,
    max_frames: int | None = None,
    on_frame: Callable[[Any], None] | None = None,
    **env_kwargs,
) -> list[np.ndarray]:
    """Play one game of `env_name` and return its frames (see the module docstring).

    `viewer` (an agent name) draws every frame from that seat; None (the
    default) is the spectator's view. `max_frames` stops early. `env_kwargs`
    go to the env (num_players, game options...); `on_frame(env)` is called
    with the raw env at every frame."""
    module = importlib.import_module(f"snack_envs.{env_name}")
    policies = dict(policies or {})
    rng = np.random.default_rng(seed)
    frames: list[np.ndarray] = []

    def frame(env) -> bool:
        frames.append(env.render(viewer=viewer))
        if on_frame is not None:
            on_frame(env)
        return max_frames is not None and len(frames) >= max_frames

    if getattr(module, "IS_PARALLEL", False):
        env = module.raw_parallel_env(render_mode="rgb_array", **env_kwargs)
        observations, _ = env.reset(seed=seed)
        stop = frame(env)
        while env.agents and not stop:
            actions = {a: _act(policies.get(a), observations[a], rng) for a in env.agents}
            observations, *_ = env.step(actions)
            stop = frame(env)
    else:
        env = module.raw_env(render_mode="rgb_array", **env_kwargs)
        env.reset(seed=seed)
        stop = frame(env)
        while not stop and not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            agent = env.agent_selection
            env.step(_act(policies.get(agent), env.observe(agent), rng))
            stop = frame(env)
    env.close()
    return frames


def save_gif(frames: Iterable[Any], path: str | Path, fps: float = DEFAULT_FPS, hold_last: float = 2.0) -> Path:
    """Write `frames` (HxWx3 uint8 arrays or PIL images, of one size) as a looping GIF at `fps` frames
    a second, the last one held `hold_last` seconds longer. Returns the path."""
    Image, _, _ = pillow()
    images = [f if hasattr(f, "save") else Image.fromarray(np.asarray(f, dtype=np.uint8)) for f in frames]
    if not images:
        raise ValueError("no frames to save")
    sizes = {im.size for im in images}
    if len(sizes) > 1:
        raise ValueError(f"frames of different sizes {sorted(sizes)}: a GIF needs one size")
    # Pictures use few colours: one shared palette keeps the file small and the colours steady.
    # The palette comes from a few frames spread over the episode, side by side.
    picks = [images[i] for i in sorted({round(k * (len(images) - 1) / 7) for k in range(8)})]
    width, height = images[0].size
    sample = Image.new("RGB", (width * len(picks), height))
    for k, im in enumerate(picks):
        sample.paste(im.convert("RGB"), (k * width, 0))
    palette = sample.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    colours = (palette.getpalette() + [0] * 768)[:768]
    paletted = []
    for im in images:  # one identical palette on every frame lets Pillow store only what changed
        frame = Image.fromarray(np.asarray(im.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)), "P")
        frame.putpalette(colours)
        paletted.append(frame)
    step = int(round(1000 / fps))
    durations = [step] * len(paletted)
    durations[-1] += int(round(1000 * hold_last))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    paletted[0].save(path, save_all=True, append_images=paletted[1:], duration=durations, loop=0)
    return path


__all__ = ["record_episode", "save_gif"]
