"""The command-line tools (issue 17): a mistake of the user is one line on stderr and exit status 2, never a
traceback; a bug still raises; every `snack-*` command line in README.md runs.

The entry points run in this process (`main([...])`, SystemExit caught) except where a test says why not.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from snack_envs import specs  # noqa: E402
from snack_envs.training import demo, evaluate, play, ship, train  # noqa: E402
from snack_envs.training.cli import UsageError  # noqa: E402
from tests.helpers import CHECKPOINTS, relabelled_checkpoint, run_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {"snack-train": train, "snack-eval": evaluate, "snack-play": play, "snack-demo": demo}
ALL_COMMANDS = {**COMMANDS, "snack-ship": ship}  # ship: the maintainers' tool, not in the README


def assert_one_line_error(code, err: str, prog: str, *names: str) -> str:
    """Exit status 2, and stderr exactly one line: `prog: error: ...` naming each of `names`, no traceback."""
    assert code == 2, err
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
    assert err.startswith(f"{prog}: error: "), err
    for name in names:
        assert name in err, f"{name!r} not in {err!r}"
    return err


def needs_sb3():
    pytest.importorskip("sb3_contrib")


# --- 1. a mistake of the user: one line, status 2 ------------------------------------------------------
MALFORMED_YAML = "env:\n  name: snack_rabbits_v0\n  num_players: [2\ntimesteps: 5\n"  # the list of line 3 is still open at line 4

# (command, argv, what the line must name) for each kind of mistake the issue lists; TMP is the test's folder,
# which holds malformed.yaml (above) and wrong_type.yaml ("timesteps: lots").
USER_ERRORS = [
    ("snack-train", ["--config", "TMP/missing.yaml"], ["missing.yaml"]),  # missing file
    ("snack-train", ["--set", "timestep=5"], ["unknown config key 'timestep'"]),  # unknown key
    ("snack-train", ["--set", "timesteps=abc"], ["timesteps", "integer"]),  # wrong type
    ("snack-train", ["--config", "TMP/wrong_type.yaml"], ["timesteps='lots'"]),  # wrong type, in a file
    ("snack-train", ["--set", "env.name=snack_chess_v0"], ["env.name", "snack_chess_v0"]),  # bad config
    ("snack-train", ["--config", "TMP/malformed.yaml"], ["malformed.yaml", "line 4"]),  # malformed YAML: file and line
    ("snack-train", ["--resume", "TMP/no_run"], ["no_run", "config.json"]),  # missing run folder
    ("snack-train", ["--resume", "TMP/no_run", "--config", "snack_wars"], ["--resume", "drop --config"]),  # ignored
    ("snack-train", ["--resume", "TMP/no_run", "--set", "seed=1"], ["--resume", "--set"]),
    ("snack-train", ["--address", "1.2.3.4:6379"], ["--address", "--backend rllib"]),
    ("snack-train", ["--run-dir", "TMP/malformed.yaml"], ["--run-dir", "malformed.yaml", "is a file"]),  # before training
    ("snack-eval", ["--env", "snack_chess_v0"], ["unknown env 'snack_chess_v0'", *specs.ENV_NAMES]),  # unknown --env
    ("snack-eval", ["--env", "speed_snacks_v0"], ["retired", "speed_snacks_v1"]),
    ("snack-eval", ["--env", "snack_rabbits_v0", "--games", "0"], ["--games", "0"]),  # --games 0
    ("snack-eval", ["--env", "snack_rabbits_v0", "--num-players", "1"], ["played by 2 to 4 players", "num_players=1"]),
    ("snack-eval", ["--env", "snack_rabbits_v0", "--agents", "random", "heurstic"], ["unknown policy 'heurstic'"]),
    ("snack-eval", ["--env", "snack_rabbits_v0", "--agents", "random", "TMP/gone.zip"], ["no checkpoint at", "gone.zip"]),
    ("snack-eval", ["--env", "snack_rabbits_v0", "--out", "TMP/malformed.yaml"], ["--out", "malformed.yaml"]),
    ("snack-ship", ["TMP/gone.zip"], ["no checkpoint at", "gone.zip"]),  # as snack-eval says it
    ("snack-demo", ["--games", "0"], ["--games", "0"]),
    ("snack-demo", ["--seed", "-1"], ["--seed", "-1"]),
    ("snack-play", ["snack_rabbits_v0", "--seat", "5"], ["seat 5", "seats 0 to 1"]),  # --seat 5
    ("snack-play", ["snack_rabbits_v0", "--seat", "-1"], ["seat -1", "seats 0 to 1"]),  # --seat -1
    ("snack-play", ["snack_rabbits_v0", "--num-players", "3", "--seat", "3"], ["seat 3", "seats 0 to 2"]),
    ("snack-play", ["snack_rabbits_v0", "--num-players", "9"], ["num_players=9"]),
    ("snack-play", ["snack_chess_v0"], ["unknown env 'snack_chess_v0'", *specs.ENV_NAMES]),
    ("snack-play", ["snack_rabbits_v0", "--num-players", "3", "--opponents", "heuristic", "random", "random"],
     ["3 opponents for 2 other seats"]),
    ("snack-play", ["snack_time_v0", "--num-players", "1", "--opponents", "heuristic"], ["played solo", "--opponents"]),
]


@pytest.mark.parametrize("prog, argv, names", USER_ERRORS, ids=[f"{c[0]} {' '.join(c[1])}" for c in USER_ERRORS])
def test_a_mistake_of_the_user_is_one_line_and_exit_status_2(prog, argv, names, tmp_path, capsys, monkeypatch):
    (tmp_path / "malformed.yaml").write_text(MALFORMED_YAML)
    (tmp_path / "wrong_type.yaml").write_text("timesteps: lots\n")
    monkeypatch.setattr(play, "choose", lambda *args: pytest.fail("the game started"))
    code, _, err = run_main(ALL_COMMANDS[prog], [a.replace("TMP", str(tmp_path)) for a in argv], capsys)
    assert_one_line_error(code, err, prog, *names)


def test_resuming_a_run_whose_config_json_is_edited_badly_is_one_line_and_exit_status_2(tmp_path, capsys):
    from snack_envs.training.config import load_config

    run = tmp_path / "run"
    run.mkdir()
    config = load_config()
    for text, names in [
        (json.dumps({**config, "timestep": 5}), ["config.json", "timestep"]),  # a typo in a key
        (json.dumps(config, indent=2)[:-3] + ",\n}", ["config.json", "line"]),  # not JSON any more
    ]:
        (run / "config.json").write_text(text)
        code, _, err = run_main(train, ["--resume", str(run)], capsys)
        assert_one_line_error(code, err, "snack-train", *names)


def test_a_checkpoint_for_another_game_is_one_line_and_exit_status_2(capsys):
    needs_sb3()
    code, _, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--agents", "random",
                                       str(CHECKPOINTS / "snack_wars_v0.zip"), "--games", "2"], capsys)
    assert_one_line_error(code, err, "snack-eval", "snack_wars_v0.zip", "trained on snack_wars_v0, not snack_rabbits_v0")


def test_a_checkpoint_for_another_player_count_is_refused_in_one_line_naming_the_count_it_supports(capsys, tmp_path):
    needs_sb3()
    path = relabelled_checkpoint(tmp_path, "snack_wars_v0", [2])
    code, _, err = run_main(play, ["snack_wars_v0", "--opponents", str(path), "heuristic", "--num-players", "3"], capsys)
    assert_one_line_error(code, err, "snack-play", path.name, "supports num_players=2 only", "not num_players=3")


def test_play_refuses_a_seat_the_game_does_not_have():
    for seat in (-1, 2, 5):
        with pytest.raises(UsageError, match=f"no seat {seat}"):
            play.play("snack_rabbits_v0", ["random"], num_players=2, seat=seat, ask=lambda _: "q", say=lambda _: None)


def raising(error: BaseException):
    def raise_it(*args, **kwargs):
        raise error

    return raise_it


@pytest.mark.parametrize("error", [
    specs.UnknownEnvError("unknown env 'x'; known envs: a, b"),
    specs.RetiredEnvError("x_v0 is retired; use x_v1"),
    FileNotFoundError(2, "No such file or directory", "/some/where.zip"),
    PermissionError(13, "Permission denied", "/root/out"),
], ids=lambda e: type(e).__name__)
def test_the_wrapper_turns_each_kind_of_user_error_into_one_line(error, monkeypatch, capsys):
    monkeypatch.setattr(evaluate, "make_policy", raising(error))
    code, _, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--games", "1"], capsys)
    assert_one_line_error(code, err, "snack-eval", str(error.filename) if isinstance(error, OSError) else str(error))


def test_the_wrapper_turns_a_yaml_error_into_one_line_naming_the_line(monkeypatch, capsys):
    import yaml

    try:
        yaml.safe_load("a: [1\nb: 2\n")
    except yaml.YAMLError as error:
        monkeypatch.setattr(train, "load_config", raising(error))
    code, _, err = run_main(train, [], capsys)
    assert_one_line_error(code, err, "snack-train", "malformed YAML", "line 2")


@pytest.mark.parametrize("error", [
    ZeroDivisionError("a bug"),
    ValueError("not the user's"),
    KeyError("not the user's"),
    OSError(5, "Input/output error"),
    FileNotFoundError(2, "a file of ours, not named"),  # no file name: not about a path the user gave
], ids=lambda e: type(e).__name__)
def test_a_bug_still_raises_with_its_traceback(error, monkeypatch):
    """Only the user's mistakes become one line: anything else, even a ValueError or an OSError, propagates."""
    monkeypatch.setattr(evaluate, "tournament", raising(error))
    with pytest.raises(type(error)) as raised:
        evaluate.main(["--env", "snack_rabbits_v0", "--games", "1"])
    assert raised.value is error


@pytest.mark.parametrize(
    "module, argv, prog",
    [
        ("snack_envs.training.train", ["--set", "timestep=5"], "snack-train"),
        ("snack_envs.training.evaluate", ["--env", "snack_chess_v0"], "snack-eval"),
        ("snack_envs.training.play", ["snack_rabbits_v0", "--seat", "5"], "snack-play"),
        ("snack_envs.training.demo", ["--games", "0"], "snack-demo"),
    ],
)
def test_the_installed_commands_print_one_line_and_exit_2(module, argv, prog):
    """In a subprocess: what a user's shell sees (the console script where it is installed, else python -m)."""
    script = Path(sys.executable).parent / prog
    command = [str(script)] if script.exists() else [sys.executable, "-m", module]
    done = subprocess.run([*command, *argv], capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL, timeout=120)
    assert_one_line_error(done.returncode, done.stderr, prog)


# --- 4. JSON files get the user's umask ---------------------------------------------------------------
@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_json_files_are_written_with_the_users_umask(mask, tmp_path):
    from snack_envs.checkpoints import write_json_atomic

    old = os.umask(mask)
    try:
        path = tmp_path / "run" / "state.json"
        write_json_atomic(path, {"timesteps": 1})
        plain = tmp_path / "plain.json"
        plain.write_text("{}")  # what open() gives a file
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask == plain.stat().st_mode & 0o777
    assert json.loads(path.read_text()) == {"timesteps": 1}
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]  # no temporary file left


def test_a_failed_json_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    from snack_envs.checkpoints import write_json_atomic

    path = tmp_path / "config.json"
    write_json_atomic(path, {"seed": 1})
    with pytest.raises(TypeError):
        write_json_atomic(path, {1: "a", "b": 2})  # sort_keys cannot order int and str keys
    assert json.loads(path.read_text()) == {"seed": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


# --- 3. every snack-* command line in README.md runs ----------------------------------------------------
def readme_commands() -> list[str]:
    """Each `snack-*` command line in README.md: in its bash blocks (continuation lines joined, comments
    dropped, also after `&&`) and in its inline code."""
    text = (ROOT / "README.md").read_text()
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0]
            for part in line.split("&&"):
                part = part.strip()
                if re.match(r"(\.venv/bin/)?snack-", part):
                    found.append(" ".join(part.split()))
    for code in re.findall(r"`([^`\n]*)`", re.sub(r"```.*?```", "", text, flags=re.S)):
        if code.startswith(".venv/bin/snack-"):
            found.append(code)
    return list(dict.fromkeys(found))


README_COMMANDS = readme_commands()


def test_the_readme_has_a_command_line_for_every_tool():
    progs = {shlex.split(c)[0].rsplit("/", 1)[-1] for c in README_COMMANDS}
    assert progs == set(COMMANDS), progs


def fake_training(calls: list):
    """A backend's `train` that records its arguments: training itself takes minutes (snack-train's runs are
    tested in test_training.py); here the command line, the config it loads and the printed table are."""

    def train(config, run_dir, resume=False, **kwargs):
        calls.append({"config": config, "run_dir": run_dir, "resume": resume, **kwargs})
        r = {"games": 2, "win_rate": 0.5, "win_rate_ci95": [0.1, 0.9], "wins": 1, "ties": 0, "losses": 1,
             "hero_mean_score_ci95": [1.0, 0.0, 2.0], "villain_mean_score_ci95": [1.0, 0.0, 2.0]}
        return {"timesteps": config["timesteps"], "wall_time_s": 0.0, "checkpoint": str(run_dir / "final.zip"),
                "evaluation": {"random": r, "heuristic": r}}

    return train


@pytest.mark.parametrize("line", README_COMMANDS, ids=README_COMMANDS)
def test_every_readme_command_line_runs(line, tmp_path, capsys, monkeypatch):
    """Each runs in a folder of the test's (outputs land there). snack-eval and snack-play play for real
    (snack-eval 2 games a pairing, not 1000; the person at snack-play's terminal picks the first legal
    action); snack-demo plays 5 games an env instead of 200; snack-train loads its config and hands it to
    a recorded backend (training takes minutes; test_training.py trains)."""
    from snack_envs.training.config import load_config

    words = shlex.split(line)
    prog, argv = words[0].rsplit("/", 1)[-1], words[1:]
    for folder in ("checkpoints", "configs"):  # run from a folder of the test's, beside the repository's files
        (tmp_path / folder).symlink_to(ROOT / folder)
    monkeypatch.chdir(tmp_path)
    if prog == "snack-train":
        calls: list = []
        monkeypatch.setattr(train.sb3, "train", fake_training(calls))
        monkeypatch.setattr(train.rllib, "train", fake_training(calls))
        if "runs/<run>" in argv:  # a run of the user's: one that a fresh run of the quick-start config wrote
            run = tmp_path / "runs" / "run"
            run.mkdir(parents=True)
            (run / "config.json").write_text(json.dumps(load_config()))
            argv = ["runs/run" if a == "runs/<run>" else a for a in argv]
        code, out, err = run_main(train, argv, capsys)
        assert code == 0, err
        assert len(calls) == 1 and "trained" in out
        config = calls[0]["config"]
        assert config["timesteps"] > 0 and config["env"]["name"] in specs.ENV_NAMES
        for a, b in zip(argv, argv[1:]):
            if a == "--set":
                key, value = b.split("=")
                section, _, sub = key.rpartition(".")
                got = (config[section] if section else config)[sub]
                assert str(got) == value or isinstance(got, (int, float)) and got == float(value), (key, got)
        if "--address" in argv:
            assert calls[0]["address"] == argv[argv.index("--address") + 1]
        return
    if prog == "snack-eval":
        needs_sb3()
        pytest.importorskip("matplotlib")
        head_to_head = evaluate.head_to_head
        monkeypatch.setattr(evaluate, "head_to_head", lambda env, hero, villain, games, *a, **k:
                            head_to_head(env, hero, villain, min(games, 2), *a, **k))  # 2 games a pairing
        code, out, err = run_main(evaluate, argv, capsys)
        assert code == 0, err
        assert "head to head" in out
        if "--out" in argv:
            assert (tmp_path / argv[argv.index("--out") + 1] / "results.json").exists()
    elif prog == "snack-play":
        needs_sb3()
        original = play.choose

        def first_legal(actions, describe, ask, say):
            return original(actions, describe, lambda prompt: str(actions[0]), say)

        monkeypatch.setattr(play, "choose", first_legal)
        code, out, err = run_main(play, argv, capsys)
        assert code == 0, err
        assert "winner(s):" in out or "truncated" in out
    elif prog == "snack-demo":
        code, out, err = run_main(demo, [*argv, "--games", "5"], capsys)
        assert code == 0, err
        assert all(name in out for name in specs.ENV_NAMES)
    else:
        pytest.fail(f"no runner for {prog}")
    assert "Traceback" not in err


def test_snack_trains_closing_table_shows_the_unfinished_games_beside_the_finished_counts(tmp_path, monkeypatch, capsys):
    from snack_envs.training import train
    from snack_envs.training.backends import sb3

    result = {"timesteps": 64, "wall_time_s": 1.0, "checkpoint": str(tmp_path / "final.zip"), "evaluation": {
        "heuristic": {"games": 10, "unfinished": 3, "win_rate": 0.5, "win_rate_ci95": [0.2, 0.8], "wins": 3, "ties": 1,
                      "losses": 3, "hero_mean_score_ci95": [5.0, 4.0, 6.0], "villain_mean_score_ci95": [4.0, 3.0, 5.0]}}}
    monkeypatch.setattr(sb3, "train", lambda config, run_dir, resume=False, **kwargs: result)
    train.main(["--run-dir", str(tmp_path / "run")])
    header, row = capsys.readouterr().out.strip().splitlines()[-2:]
    assert header.split()[:3] == ["opponent", "games", "unfinished"] and row.split()[:3] == ["heuristic", "10", "3"]
