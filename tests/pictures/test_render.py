"""render_mode="rgb_array" and "human" on every env, GIF recording, and the replay options of
snack-eval / snack-play."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("PIL")

from pettingzoo.test import render_test  # noqa: E402

import snack_envs  # noqa: E402
from snack_envs import specs  # noqa: E402
from snack_envs.core import picture  # noqa: E402
from snack_envs.recording import record_episode, save_gif  # noqa: E402


def a_picture(frame) -> bool:
    """An HxWx3 uint8 frame with something drawn on it."""
    return (
        isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        and frame.shape[0] >= 300 and frame.shape[1] >= 600 and len(np.unique(frame.reshape(-1, 3)[::97], axis=0)) > 8
    )


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_pettingzoo_render_test_passes_in_every_mode(name, capsys):
    module = specs.get(name).entry_points()
    assert {"ansi", "human", "rgb_array"} <= set(module.env().metadata["render_modes"])
    render_test(lambda render_mode=None: module.env(render_mode=render_mode), custom_tests={"rgb_array": a_picture})


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_rgb_array_draws_each_seat_view_and_the_spectator_view(name):
    env = specs.get(name).raw_env(render_mode="rgb_array", num_players=2)
    assert env.render() is None  # before reset: nothing to draw
    env.reset(seed=3)
    frames = [env.render()] + [env.render(viewer=a) for a in env.possible_agents]
    assert all(a_picture(f) for f in frames)
    assert len({f.shape for f in frames}) == 1
    assert all(not np.array_equal(frames[0], f) for f in frames[1:]), "a seat view is tagged with its seat"


def test_the_gymnasium_adapter_renders_pictures_too():
    from snack_envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv("snack_wars_v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert "rgb_array" in env.metadata["render_modes"] and a_picture(env.render())


def test_human_mode_prints_the_table_where_no_window_can_be_shown(monkeypatch, capsys):
    monkeypatch.setattr(picture, "window_available", lambda: False)
    env = snack_envs.snack_rabbits_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Snack Rabbits" in capsys.readouterr().out
    env.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is $DISPLAY on Linux")
def test_no_window_is_tried_without_a_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(picture._Window, "instance", None)
    assert not picture.window_available()


def test_snack_envs_works_without_pillow_except_for_pictures():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["PIL"] = None  # as if Pillow were not installed
        import snack_envs
        from snack_envs import snack_rabbits_v0
        env = snack_rabbits_v0.env(render_mode="ansi")
        env.reset(seed=0)
        assert "Snack Rabbits" in env.render()
        env = snack_rabbits_v0.env(render_mode="rgb_array")
        env.reset(seed=0)
        try:
            env.render()
        except ImportError as exc:
            assert "snack-envs[render]" in str(exc), exc
        else:
            raise AssertionError("rgb_array without Pillow should raise ImportError")
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(__import__("pathlib").Path(__file__).parents[2]))


# --- recording ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_an_episode_records_as_frames_of_one_size_and_saves_as_a_gif(name, tmp_path):
    from PIL import Image

    frames = record_episode(name, seed=1, max_frames=12, num_players=2)
    assert len(frames) == 12 and all(a_picture(f) for f in frames)
    assert len({f.shape for f in frames}) == 1
    path = save_gif(frames, tmp_path / f"{name}.gif", fps=4)
    with Image.open(path) as gif:
        assert gif.format == "GIF" and gif.size == (frames[0].shape[1], frames[0].shape[0])
        assert 2 <= gif.n_frames <= len(frames)  # identical neighbours merge into one longer frame


def test_a_whole_game_records_from_one_seat_with_given_policies():
    from snack_envs.agents import RandomPolicy

    frames = record_episode("snack_wars_v0", seed=2, viewer="player_1", policies={"player_0": RandomPolicy(0)})
    env = snack_envs.snack_wars_v0.raw_env(render_mode="rgb_array")
    assert len(frames) > 5 and frames[0].shape == (env.reset(seed=2) or env.render()).shape


def test_record_episode_refuses_policies_or_a_viewer_for_agents_the_game_lacks():
    from snack_envs.agents import RandomPolicy
    from snack_envs.core.game import ConfigError

    with pytest.raises(ConfigError, match=r"policies for \['player_7'\], who are not agents of this game"):
        record_episode("snack_wars_v0", seed=2, policies={"player_7": RandomPolicy(0)})
    with pytest.raises(ConfigError, match="viewer='player_2' is not one of"):
        record_episode("snack_wars_v0", seed=2, viewer="player_2", max_frames=1)


def test_save_gif_refuses_frames_of_different_sizes(tmp_path):
    with pytest.raises(ValueError, match="one size"):
        save_gif([np.zeros((10, 10, 3), np.uint8), np.zeros((12, 10, 3), np.uint8)], tmp_path / "x.gif")


def test_snack_eval_replay_writes_a_gif_or_text(tmp_path):
    from PIL import Image

    from snack_envs.agents import RandomPolicy
    from snack_envs.training.evaluate import record_game

    gif = record_game("snack_wars_v0", [RandomPolicy(0), RandomPolicy(1)], 4, tmp_path / "game.gif")
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.n_frames > 5
    text = record_game("snack_wars_v0", [RandomPolicy(0), RandomPolicy(1)], 4, tmp_path / "game.txt").read_text()
    assert text.startswith("snack_wars_v0, seed 4") and "--- position 0 ---" in text


def test_an_mp4_replay_is_an_h264_video_of_every_frame_the_last_one_held(tmp_path):
    pytest.importorskip("imageio_ffmpeg", reason='MP4 needs the render extra: pip install -e ".[render]"')
    import imageio.v2 as imageio

    from snack_envs.agents import RandomPolicy
    from snack_envs.recording import save_mp4
    from snack_envs.training.evaluate import record_game

    frames = record_episode("snack_wars_v0", seed=3, max_frames=6)
    odd = [f[:-1, :-1] for f in frames]  # odd sizes are padded to even ones
    path = save_mp4(odd, tmp_path / "wars.mp4", fps=4, hold_last=1.0)
    with imageio.get_reader(path, format="FFMPEG") as reader:
        meta = reader.get_meta_data()
        read = [frame for frame in reader]
    assert meta["codec"] == "h264" and meta["fps"] == 4
    assert len(read) == 6 + 4 and read[0].shape == (odd[0].shape[0] + 1, odd[0].shape[1] + 1, 3)
    assert np.abs(read[0][:-1, :-1].astype(int) - odd[0]).mean() < 8  # lossy, but the same picture
    video = record_game("snack_wars_v0", [RandomPolicy(0), RandomPolicy(1)], 4, tmp_path / "game.mp4")
    assert video.stat().st_size > 1000 and video.read_bytes()[4:8] == b"ftyp"


def test_mp4_without_imageio_says_which_extra_to_install(tmp_path, monkeypatch):
    from snack_envs.recording import save_mp4

    monkeypatch.setitem(sys.modules, "imageio", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "imageio.v2", None)
    with pytest.raises(ImportError, match=r"snack-envs\[render\]"):
        save_mp4([np.zeros((10, 10, 3), np.uint8)], tmp_path / "x.mp4")


def test_snack_play_replay_writes_the_game_even_when_the_player_quits(tmp_path):
    from PIL import Image

    from snack_envs.training.play import play

    for path in (tmp_path / "quit.gif", tmp_path / "quit.txt"):
        said = []
        answers = iter(["999", "q"])  # an illegal answer, asked again, then quit
        result = play("snack_rabbits_v0", ["random"], seed=1, ask=lambda prompt: next(answers), say=said.append,  # noqa: B023
                      replay=path)
        assert result is None and f"wrote {path}" in said
    with Image.open(tmp_path / "quit.gif") as image:
        assert image.format == "GIF"
    assert "--- position 0 ---" in (tmp_path / "quit.txt").read_text()


def test_record_episode_takes_functions_and_act_only_objects_and_replays_alike_for_a_seed():
    class FirstLegal:  # act alone, no reset
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    def last_legal(obs):
        return int(np.flatnonzero(obs["action_mask"])[-1])

    policies = {"player_0": FirstLegal(), "player_1": last_legal}
    frames = record_episode("snack_rabbits_v0", seed=5, policies=policies, max_frames=8)
    again = record_episode("snack_rabbits_v0", seed=5, policies=policies, max_frames=8)
    assert len(frames) == 8 and all(np.array_equal(a, b) for a, b in zip(frames, again))


@pytest.mark.parametrize("name", ["snack_rabbits_v0", "speed_snacks_v1"])
def test_snack_play_plays_a_whole_game_and_tells_what_the_opponents_did(name):
    from snack_envs import specs
    from snack_envs.training.play import play

    said = []

    def first_listed(prompt):  # the first legal action the table lists
        return next(line.split("]")[0].strip(" [") for line in reversed(said) if line.startswith("  ["))

    result = play(name, ["random"], seed=3, ask=first_listed, say=said.append)
    assert result["scores"] is not None and set(result["winners"]) <= {"player_0", "player_1"}
    assert any(line.startswith("winner(s): ") for line in said)
    narrated = any(line.startswith("player_1 (random): ") for line in said)
    assert narrated == (not specs.get(name).simultaneous)  # a turn-based game tells each opponent move
