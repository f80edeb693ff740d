"""Edges of `snack_envs.recording` (replays) found by a mutation probe where no other test noticed the
behaviour breaking: the GIF's timing (fps, the last frame held longer), its looping and its colours; frames
given as PIL images; the MP4's held frames and its padding; what record_episode draws and when it stops."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

from snack_envs.core.game import ConfigError  # noqa: E402
from snack_envs.recording import record_episode, save_gif, save_mp4  # noqa: E402

COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (250, 250, 20)]


def solid(colour, size=(6, 8)) -> np.ndarray:
    frame = np.zeros((*size, 3), np.uint8)
    frame[...] = colour
    return frame


def needs_ffmpeg():
    """imageio.v2, for the MP4 tests, which skip where the render extra is not installed."""
    pytest.importorskip("imageio_ffmpeg", reason='MP4 needs the render extra: pip install -e ".[render]"')
    import imageio.v2 as imageio

    return imageio


def read_gif(path):
    with Image.open(path) as gif:
        out = []
        for i in range(gif.n_frames):
            gif.seek(i)
            out.append((gif.info["duration"], np.asarray(gif.convert("RGB")).copy()))
        return out, gif.info.get("loop")


def test_a_gif_plays_each_frame_for_one_over_fps_holds_the_last_and_loops(tmp_path):
    """fps=4: 250 ms a frame; hold_last=1.5: the last one 1500 ms longer; loop=0 (for ever); the exact colours."""
    frames = [solid(c) for c in COLOURS]
    read, loop = read_gif(save_gif(frames, tmp_path / "a.gif", fps=4, hold_last=1.5))
    assert [d for d, _ in read] == [250, 250, 250, 1750]
    assert loop == 0
    for (_, got), want in zip(read, frames):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("fps, step", [(50, 20), (15, 70), (6, 170), (0.3, 3330)])
def test_a_gif_frame_lasts_one_over_fps_in_the_nearest_whole_hundredths(tmp_path, fps, step):
    """A GIF stores whole hundredths of a second, and Pillow cut 1000 / fps ms down to them: 15 fps played at
    16.7, 6 at 6.3; 60 fps became 10 ms, which browsers show for 100 (10 fps). Each frame now lasts 1 / fps rounded to the
    nearest hundredth, the hold too, and a GIF faster than 50 fps is refused, writing nothing."""
    read, _ = read_gif(save_gif([solid(c) for c in COLOURS[:2]], tmp_path / "a.gif", fps=fps, hold_last=0.127))
    assert [d for d, _ in read] == [step, step + 130]
    with pytest.raises(ConfigError, match=r"a GIF plays at most 50 frames a second .* got fps=51.0; write an .mp4"):
        save_gif([solid(c) for c in COLOURS[:2]], tmp_path / "b.gif", fps=51)
    assert not (tmp_path / "b.gif").exists()


def test_a_gif_takes_pil_images_and_makes_its_folder(tmp_path):
    images = [Image.fromarray(solid(c)) for c in COLOURS[:2]]
    path = save_gif(images, tmp_path / "new" / "folder" / "b.gif", fps=2, hold_last=0)
    read, _ = read_gif(path)
    assert path.exists() and [d for d, _ in read] == [500, 500]
    assert np.array_equal(read[1][1], solid(COLOURS[1]))


@pytest.mark.parametrize("save", [save_gif, save_mp4], ids=["gif", "mp4"])
def test_no_frames_are_refused(save, tmp_path):
    with pytest.raises(ValueError, match="no frames to save"):
        save([], tmp_path / "x.out")


def test_an_mp4_holds_the_last_frame_hold_last_times_fps_and_pads_odd_sizes(tmp_path):
    """fps=2, hold_last=1.5: 3 extra copies of the last frame; hold_last=0: none (below 0 is refused, see the
    end of this file). An odd 5x7 frame is padded to 6x8, RGBA frames lose their alpha."""
    imageio = needs_ffmpeg()

    frames = [np.concatenate([solid(c, size=(5, 7)), np.full((5, 7, 1), 7, np.uint8)], axis=2) for c in COLOURS[:3]]
    for hold_last, extra in ((1.5, 3), (0, 0)):
        path = save_mp4(frames, tmp_path / f"v{extra}{hold_last}.mp4", fps=2, hold_last=hold_last)
        with imageio.get_reader(path, format="FFMPEG") as reader:
            read = [frame for frame in reader]
        assert len(read) == 3 + extra
        assert all(f.shape == (6, 8, 3) for f in read)
        for got, want in zip(read, COLOURS[:3] + [COLOURS[2]] * extra):
            assert np.abs(got.astype(int) - np.array(want)).mean() < 12  # lossy, but the same colour


def test_record_episode_draws_the_viewers_view_at_the_reset_and_after_every_step_to_the_end():
    """One frame at the reset and one after each move, the last at the end of the game; each the viewer's view
    of the position at that moment; on_frame sees the raw env each time."""
    seen = []

    def on_frame(env):
        seen.append((env.num_steps, env.game.game_over, env.render(viewer="player_1")))

    frames = record_episode("snack_wars_v0", seed=3, viewer="player_1", on_frame=on_frame)
    assert len(frames) == len(seen) > 2
    assert [s for s, _, _ in seen] == list(range(len(seen)))
    assert seen[-1][1] and not any(over for _, over, _ in seen[:-1])
    assert all(np.array_equal(f, picture) for f, (_, _, picture) in zip(frames, seen))
    spectator = record_episode("snack_wars_v0", seed=3)
    assert len(spectator) == len(frames) and not all(np.array_equal(a, b) for a, b in zip(frames, spectator))


def test_record_episode_of_a_simultaneous_game_draws_after_every_joint_step_until_truncation():
    """Speed Snacks cut at max_steps=5: the reset and five joint steps, six frames of player_0's view."""
    seen = []

    def on_frame(env):
        seen.append((env.num_steps, list(env.agents), env.render(viewer="player_0")))

    frames = record_episode("speed_snacks_v1", seed=2, viewer="player_0", on_frame=on_frame, max_steps=5)
    assert [s for s, _, _ in seen] == [0, 1, 2, 3, 4, 5] and len(frames) == 6
    assert seen[-1][1] == [] and all(agents for _, agents, _ in seen[:-1])
    assert all(np.array_equal(f, picture) for f, (_, _, picture) in zip(frames, seen))


def test_record_episode_stops_at_max_frames():
    seen = []
    frames = record_episode("speed_snacks_v1", seed=0, max_frames=3, on_frame=lambda env: seen.append(env.num_steps))
    assert len(frames) == 3 and seen == [0, 1, 2]


def test_the_defaults_are_two_frames_a_second_and_the_last_held_two_seconds_more(tmp_path):
    """save_gif's and save_mp4's defaults (fps=2, hold_last=2.0): 500 ms a GIF frame, 2500 ms the last; in the
    MP4, 2 s at 2 fps are 4 more copies of the last frame."""
    frames = [solid(c) for c in COLOURS[:3]]
    read, _ = read_gif(save_gif(frames, tmp_path / "d.gif"))
    assert [d for d, _ in read] == [500, 500, 2500]
    imageio = needs_ffmpeg()

    with imageio.get_reader(save_mp4(frames, tmp_path / "d.mp4"), format="FFMPEG") as reader:
        assert reader.get_meta_data()["fps"] == 2 and len([f for f in reader]) == 3 + 4


def test_save_mp4_refuses_frames_of_different_sizes(tmp_path):
    with pytest.raises(ValueError, match="a video needs one size"):
        save_mp4([solid(COLOURS[0], (10, 10)), solid(COLOURS[0], (12, 10))], tmp_path / "x.mp4")
    assert not (tmp_path / "x.mp4").exists()


@pytest.mark.parametrize("save", [save_gif, save_mp4], ids=["gif", "mp4"])
def test_a_replay_path_may_be_a_string_in_new_folders_and_comes_back_as_a_path(save, tmp_path):
    if save is save_mp4:
        needs_ffmpeg()
    target = str(tmp_path / "new" / "folders" / f"s.{save.__name__[-3:]}")  # made, parents too
    path = save([solid(c) for c in COLOURS[:2]], target)
    assert str(path) == target and path.is_file() and path.stat().st_size > 0


def test_an_mp4_pads_only_the_odd_side_and_takes_a_single_frame(tmp_path):
    """A 6x7 frame (even height, odd width) becomes 6x8: one copied column, no extra row; a one-frame replay
    is that frame and its held copies (hold_last=1 at 2 fps: 2)."""
    imageio = needs_ffmpeg()

    path = save_mp4([solid(c, size=(6, 7)) for c in COLOURS[:2]], tmp_path / "p.mp4", hold_last=0)
    with imageio.get_reader(path, format="FFMPEG") as reader:
        assert [f.shape for f in reader] == [(6, 8, 3)] * 2
    path = save_mp4([solid(COLOURS[1], size=(6, 7))], tmp_path / "one.mp4", hold_last=1)
    with imageio.get_reader(path, format="FFMPEG") as reader:
        assert [f.shape for f in reader] == [(6, 8, 3)] * 3


def test_a_gif_keeps_a_colour_found_only_in_the_bottom_row_of_a_frame(tmp_path):
    """The shared palette is sampled from whole frames (with up to 8 frames, all of them): a thin line at the
    bottom edge keeps its exact colour."""
    frames = [solid(COLOURS[2]) for _ in range(2)]
    frames[1][-1, :] = COLOURS[0]
    read, _ = read_gif(save_gif(frames, tmp_path / "edge.gif"))
    assert all(np.array_equal(got, want) for (_, got), want in zip(read, frames))


# --- bad input, refused before a game is played or a file written -------------------------------------------
@pytest.mark.parametrize("key, value, message", [
    ("seed", "x", r"play: seed must be a non-negative int or None, got 'x'"),
    ("seed", -1, r"play: seed must be a non-negative int or None, got -1"),
    ("policies", 0, r"policies must be a dict agent -> policy, got 0"),
    ("policies", ["random"], r"policies must be a dict agent -> policy, got \['random'\]"),
    ("max_frames", 0, r"max_frames must be a positive int or None, got 0"),
    ("max_frames", True, r"max_frames must be a positive int or None, got True"),
    ("max_frames", 2.5, r"max_frames must be a positive int or None, got 2.5"),
])
def test_record_episode_refuses_a_bad_seed_policies_or_frame_limit(key, value, message):
    from snack_envs.core.game import ConfigError

    with pytest.raises(ConfigError, match=message):
        record_episode("snack_rabbits_v0", **{key: value})
    assert len(record_episode("snack_rabbits_v0", seed=np.int64(1), max_frames=np.int64(2))) == 2


@pytest.mark.parametrize("save", [save_gif, save_mp4])
@pytest.mark.parametrize("key, value, message", [
    ("fps", 0, r"fps must be above 0 and at most 100, got 0.0"),
    ("fps", 1e9, r"fps must be above 0 and at most 100, got 1000000000.0"),
    ("fps", float("nan"), r"recording: fps must be a finite number, got nan"),
    ("fps", "2", r"recording: fps must be a finite number, got '2'"),
    ("hold_last", -1, r"hold_last must be 0 to 600 seconds, got -1.0"),
    ("hold_last", 1e9, r"hold_last must be 0 to 600 seconds"),
])
def test_a_replay_refuses_an_fps_or_hold_out_of_range_writing_nothing(tmp_path, save, key, value, message):
    """A video holds its last frame as copies: fps=1e9 asked for two billion of them (the process was killed
    for memory); 0 divided by zero; NaN, a string or a negative hold failed deep inside Pillow or ffmpeg."""
    from snack_envs.core.game import ConfigError

    path = tmp_path / f"replay.{'gif' if save is save_gif else 'mp4'}"
    with pytest.raises(ConfigError, match=message):
        save([solid(c) for c in COLOURS], path, **{key: value})
    assert not path.exists()


@pytest.mark.parametrize("save", [save_gif, save_mp4], ids=["gif", "mp4"])
@pytest.mark.parametrize("frame, message", [
    (solid(COLOURS[0]).astype(np.float64) / 255, r"frame 1 .*: a float64 array of shape \(6, 8, 3\)"),  # all black
    (solid(COLOURS[0])[..., 0], r"frame 1 .*: a uint8 array of shape \(6, 8\)"),
    ("red", r"frame 1 is not an HxWx3 uint8 array \(or HxWx4, or a PIL image\): 'red'"),
    (solid(COLOURS[0], size=(6, 9)), r"frames of different sizes \[\(6, 8\), \(6, 9\)\] \(height, width\)"),
])
def test_a_replay_refuses_a_frame_that_is_no_picture_naming_it_and_writing_nothing(tmp_path, save, frame, message):
    """Frames were cast to uint8 (floats in [0, 1] made a black film, ints above 255 wrapped round) or failed in
    Pillow or ffmpeg (a string, a grey 2-D frame in an MP4); sizes were compared in PIL's (width, height)."""
    path = tmp_path / f"replay.{'gif' if save is save_gif else 'mp4'}"
    with pytest.raises(ValueError, match=message):
        save([solid(COLOURS[1]), frame], path)
    assert not path.exists()


def test_save_gif_writes_a_gif_whatever_the_path_is_named(tmp_path):
    """Pillow picks the format by the name's suffix: save_gif to "replay.png" wrote an animated PNG."""
    path = save_gif([solid(c) for c in COLOURS[:2]], tmp_path / "replay.png")
    with Image.open(path) as image:
        assert image.format == "GIF" and image.n_frames == 2


def test_record_episode_hands_a_policy_s_action_to_the_env_uncast_and_refuses_what_is_no_policy():
    """A function's answer went through int(): 1.7 played 1, "3" played 3, True played 1. The env takes ints
    only, as everywhere else; and a policy that is neither callable nor has `act` is named before play."""
    from snack_envs.core.game import ConfigError, IllegalActionError

    for answer in (1.7, "3", True):
        with pytest.raises(IllegalActionError, match=r"an action must be an int"):
            record_episode("snack_rabbits_v0", seed=1, policies={"player_0": lambda obs: answer})  # noqa: B023
    with pytest.raises(ConfigError, match=r"policies\['player_1'\] must be a policy \(with act or act_game\) or a"):
        record_episode("snack_rabbits_v0", seed=1, policies={"player_1": 3})
    first_legal = {"player_0": lambda obs: np.flatnonzero(obs["action_mask"])[0]}  # a numpy int is an int
    assert len(record_episode("snack_rabbits_v0", seed=1, policies=first_legal, max_frames=3)) == 3
