"""Episodes as pictures: record a game frame by frame and save it as an animated GIF (Pillow) or an
MP4 video (imageio with imageio-ffmpeg); the `render` extra installs all three.

    from snack_envs.recording import record_episode, save_gif, save_mp4

    frames = record_episode("snack_wars_v0", seed=0, num_players=3)   # random legal play, spectator view
    save_gif(frames, "wars.gif", fps=2)
    save_mp4(frames, "wars.mp4", fps=2)                               # H.264, plays in any browser

    # one seat's view (what that player may see), with your own policies
    frames = record_episode("speed_snacks_v1", seed=1, viewer="player_0",
                            policies={"player_0": my_policy, "player_1": other_policy})

`record_episode` draws a frame after the reset and after every move (every
joint step of a simultaneous game), playing the game with
`snack_envs.core.rollout.play`. A policy is an object with
`act(observation, action_mask) -> int` (the policies of `snack_envs.agents`,
trained checkpoints included; reset with the seed of its seat, see
`rollout.policy_seed`) or a function `f(obs_dict) -> int`; agents without one
play uniformly random legal moves. Frames are HxWx3 uint8 arrays,
the same as `render()` in "rgb_array" mode, all of one size.

From the command line, `snack-eval ... --replay game.gif` and `snack-play ...
--replay game.gif` write a game as a GIF (`.mp4`: as a video, `.txt`: as text).

`save_mp4` needs imageio and imageio-ffmpeg (`pip install "snack-envs[render]"`;
imageio-ffmpeg's wheel carries its own ffmpeg binary). Every env also has
`render_mode="rgb_array"` and `metadata["render_fps"]`, so Gymnasium's
`gymnasium.wrappers.RecordVideo` (around
`snack_envs.single_agent.SingleAgentEnv(..., render_mode="rgb_array")`) and
PettingZoo's video wrappers can record them too, but those need `moviepy`,
which snack-envs does not install.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from snack_envs import extras, specs
from snack_envs.agents import RandomPolicy
from snack_envs.core.env import check_viewer
from snack_envs.core.game import ConfigError, check_count, finite_float
from snack_envs.core.picture import pillow
from snack_envs.core.rollout import is_policy, play

DEFAULT_FPS = 2


class _FunctionPolicy:
    """A function `f(obs_dict) -> int`, or an object with `act` alone, as a policy."""

    def __init__(self, policy: Any):
        self.policy = policy
        self.name = getattr(policy, "name", getattr(policy, "__name__", "function"))

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # Not cast: the env takes an int and refuses anything else (1.7 or "3" is no action, not 1 or 3).
        if hasattr(self.policy, "act"):
            return self.policy.act(observation, action_mask)
        return self.policy({"observation": observation, "action_mask": action_mask})


def _as_policy(agent: str, policy: Any):
    if policy is None:
        return RandomPolicy()
    if is_policy(policy):
        return policy
    if not (hasattr(policy, "act") or callable(policy)):
        raise ConfigError(f"policies[{agent!r}] must be a policy (with act or act_game) or a function "
                          f"obs -> action, got {policy!r}")
    return _FunctionPolicy(policy)


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
    env = specs.get(env_name).raw_env(render_mode="rgb_array", **env_kwargs)
    if policies is None:
        policies = {}
    if not isinstance(policies, Mapping):
        raise ConfigError(f"policies must be a dict agent -> policy, got {policies!r}")
    check_count(max_frames, "max_frames", or_none=True)
    unknown = [a for a in policies if a not in env.possible_agents]
    if unknown:
        raise ConfigError(f"policies for {unknown}, who are not agents of this game ({env.possible_agents})")
    check_viewer(viewer, env.possible_agents)  # before a game is played, not at its first frame
    players = {a: _as_policy(a, policies.get(a)) for a in env.possible_agents}
    frames: list[np.ndarray] = []

    def frame(env, actions) -> bool:
        frames.append(env.render(viewer=viewer))
        if on_frame is not None:
            on_frame(env)
        return max_frames is not None and len(frames) >= max_frames

    play(env, players, seed=seed, watch=frame)
    env.close()
    return frames


MAX_FPS, MAX_HOLD_S = 100, 600  # frames a second (a GIF: MAX_GIF_FPS); a hold of ten minutes
# A GIF frame lasts whole hundredths of a second, and browsers show one of under 2 hundredths for 10: faster
# than 50 frames a second, a GIF would play at 10.
MAX_GIF_FPS = 50


def _check_timing(fps: Any, hold_last: Any) -> tuple[float, float]:
    """`fps` (in (0, MAX_FPS]) and `hold_last` (seconds in [0, MAX_HOLD_S]) as floats, else a ConfigError
    naming which (a video holds its last frame as copies: a huge fps or hold would fill the memory)."""
    fps, hold_last = finite_float(fps, "fps", "recording"), finite_float(hold_last, "hold_last", "recording")
    if not 0 < fps <= MAX_FPS:
        raise ConfigError(f"recording: fps must be above 0 and at most {MAX_FPS}, got {fps}")
    if not 0 <= hold_last <= MAX_HOLD_S:
        raise ConfigError(f"recording: hold_last must be 0 to {MAX_HOLD_S} seconds, got {hold_last}")
    return fps, hold_last


def _frame_arrays(frames: Iterable[Any], what: str) -> list[np.ndarray]:
    """`frames` as HxWx3 uint8 arrays (PIL images converted, an alpha channel dropped), all of one size, or a
    ValueError naming the first frame that is none (floats are not cast: 0.5 is no shade), or the sizes."""
    arrays = []
    for i, frame in enumerate(frames):
        array = np.asarray(frame.convert("RGB")) if hasattr(frame, "convert") else np.asarray(frame)
        if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] not in (3, 4):
            got = f"a {array.dtype} array of shape {array.shape}" if isinstance(frame, np.ndarray) else repr(frame)[:80]
            raise ValueError(f"frame {i} is not an HxWx3 uint8 array (or HxWx4, or a PIL image): {got}")
        arrays.append(array[..., :3])
    if not arrays:
        raise ValueError("no frames to save")
    sizes = sorted({array.shape[:2] for array in arrays})
    if len(sizes) > 1:
        raise ValueError(f"frames of different sizes {sizes} (height, width): {what} needs one size")
    return arrays


def save_gif(frames: Iterable[Any], path: str | Path, fps: float = DEFAULT_FPS, hold_last: float = 2.0) -> Path:
    """Write `frames` (HxWx3 uint8 arrays or PIL images, of one size) as a looping GIF at `fps` frames
    a second, the last one held `hold_last` seconds longer (fps above 0 and at most 50, hold_last 0 to 600).
    A GIF times its frames in whole hundredths of a second: each lasts 1/fps rounded to one. Returns the path."""
    fps, hold_last = _check_timing(fps, hold_last)
    if fps > MAX_GIF_FPS:
        raise ConfigError(f"recording: a GIF plays at most {MAX_GIF_FPS} frames a second (browsers show a faster "
                          f"one at 10), got fps={fps}; write an .mp4 for more")
    Image, _, _ = pillow()
    images = [Image.fromarray(array) for array in _frame_arrays(frames, "a GIF")]
    # Pictures use few colours: one shared palette keeps the file small and the colours steady.
    # The palette comes from a few frames spread over the episode, side by side.
    picks = [images[i] for i in sorted({round(k * (len(images) - 1) / 7) for k in range(8)})]
    width, height = images[0].size
    sample = Image.new("RGB", (width * len(picks), height))
    for k, im in enumerate(picks):
        sample.paste(im, (k * width, 0))
    palette = sample.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    colours = (palette.getpalette() + [0] * 768)[:768]
    paletted = []
    for im in images:  # one identical palette on every frame lets Pillow store only what changed
        frame = Image.fromarray(np.asarray(im.quantize(palette=palette, dither=Image.Dither.NONE)), "P")
        frame.putpalette(colours)
        paletted.append(frame)
    step = 10 * round(100 / fps)  # ms, whole hundredths: Pillow would cut 1000 / fps down to them
    durations = [step] * len(paletted)
    durations[-1] += 10 * round(100 * hold_last)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    paletted[0].save(path, format="GIF", save_all=True, append_images=paletted[1:], duration=durations, loop=0)
    return path


def imageio_v2():
    """imageio's v2 API with its ffmpeg plugin (imageio-ffmpeg), imported on first use."""
    with extras.needed("writing MP4 replays"):
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (the ffmpeg binary; imageio alone cannot write MP4)
    return imageio


def save_mp4(frames: Iterable[Any], path: str | Path, fps: float = DEFAULT_FPS, hold_last: float = 2.0) -> Path:
    """Write `frames` (HxWx3 uint8 arrays or PIL images, of one size) as an H.264 MP4 at `fps` frames a
    second, the last one held `hold_last` seconds longer (bounded as in `save_gif`). Frames of odd width or
    height are padded by one pixel (copies of their last row or column): H.264's usual pixel format needs
    even sizes. Returns the path."""
    fps, hold_last = _check_timing(fps, hold_last)
    arrays = _frame_arrays(frames, "a video")
    imageio = imageio_v2()
    height, width = arrays[0].shape[:2]
    pad = ((0, height % 2), (0, width % 2), (0, 0))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    held = int(round(hold_last * fps))
    with imageio.get_writer(path, format="FFMPEG", mode="I", fps=fps, codec="libx264", pixelformat="yuv420p",
                            macro_block_size=1, ffmpeg_log_level="error") as writer:
        for array in arrays + arrays[-1:] * held:
            writer.append_data(np.pad(array, pad, mode="edge"))
    return path


__all__ = ["record_episode", "save_gif", "save_mp4"]
