"""Cases found by a bad-input probe of the command-line tools: each a mistake a user could make (a folder that
is no run, a run file edited or damaged, an out-of-range number, an empty path, a path that names a file of
ours), which must end as one line on stderr and exit status 2 before any work is done, leaving what is on disk
as it was (the rule of training/cli.py). The existing cases are in test_cli_errors.py,
test_config_validation.py, test_checkpoint_refusal.py and test_run_robustness.py; these are the ones they
did not cover.

Most run a command's `main` in this process (fast; SystemExit caught); one runs the installed command in a
subprocess, as a user's shell does, to show there is no traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("yaml")

from snack_envs.training import average, curves, evaluate, play, ship, train  # noqa: E402
from snack_envs.training.config import load_config  # noqa: E402
from tests.helpers import CHECKPOINTS, run_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EVAL_HEADER = "timesteps,opponent,win_rate,win_rate_ci95_low,win_rate_ci95_high,mean_score,unfinished\n"


def assert_one_line(code, err: str, prog: str, *names: str) -> None:
    """Exit status 2 and `prog: error: ...` as the last line of stderr, naming each of `names`; no traceback.
    (A progress bar may stand on stderr before it; the error itself is one line.)"""
    assert code == 2, err
    assert "Traceback" not in err, err
    last = err.splitlines()[-1] if err else ""
    assert err.endswith("\n") and last.startswith(f"{prog}: error: "), err
    for name in names:
        assert name in last, f"{name!r} not in {last!r}"


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def tiny_run(folder: Path, env: str = "snack_rabbits") -> Path:
    """A run folder as snack-train writes it, as far as snack-curves reads it: config.json, an eval.csv row
    and final.json (no weights)."""
    folder.mkdir(parents=True)
    config = load_config(env)
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "eval.csv").write_text(EVAL_HEADER + "64,random,0.5,0.3,0.7,10.0,0\n")
    result = {"games": 2, "win_rate": 0.5, "win_rate_ci95": [0.1, 0.9], "hero_mean_score_ci95": [1.0, 0.0, 2.0],
              "unfinished": 0}
    (folder / "final.json").write_text(json.dumps({"timesteps": 128, "evaluation": {"random": result}}))
    return folder


# --- snack-curves -------------------------------------------------------------------------------------------
def test_curves_of_a_folder_that_holds_no_run_is_one_line_in_the_installed_command(tmp_path):
    """It raised FileNotFoundError without a file name, which the wrapper takes for a bug: a traceback."""
    (tmp_path / "empty").mkdir()
    script = Path(sys.executable).parent / "snack-curves"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "snack_envs.training.curves"]
    done = subprocess.run([*command, "empty", "out/x.zip"], capture_output=True, text=True, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("snack-curves: error: ") and "empty" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name, text, names", [
    ("config.json", "garbage", ["config.json", "line 1"]),
    ("config.json", "{}", ["config.json", "env"]),
    ("final.json", "[1]", ["final.json"]),
    ("final.json", "{bad", ["final.json", "line 1"]),
    ("final.json", "{}", ["final.json", "timesteps"]),
    ("eval.csv", EVAL_HEADER + "abc,random,x,,,,\n", ["eval.csv", "line 2"]),
], ids=["config-not-json", "config-without-env", "final-a-list", "final-not-json", "final-without-timesteps",
        "eval-csv-not-numbers"])
def test_curves_of_a_run_with_a_damaged_file_is_one_line_naming_it(name, text, names, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = tiny_run(tmp_path / "run")
    (run / name).write_text(text)
    code, _, err = run_main(curves, ["run", "out/x.zip"], capsys)
    assert_one_line(code, err, "snack-curves", *names)
    assert not (tmp_path / "out").exists()


def test_curves_of_a_run_of_another_game_leave_the_checkpoints_curve_as_it_was(tmp_path, capsys, monkeypatch):
    """A Snack Rabbits run drawn beside the Snack Wars checkpoint replaced that checkpoint's curve."""
    monkeypatch.chdir(tmp_path)
    tiny_run(tmp_path / "run", "snack_rabbits")
    shipped = tmp_path / "ck"
    shipped.mkdir()
    for suffix in (".json", ".curve.csv", ".curve.png"):
        shutil.copyfile(CHECKPOINTS / f"snack_wars_v0{suffix}", shipped / f"snack_wars_v0{suffix}")
    before = digests(shipped)
    for extra in ([], ["--note", "a re-run"]):
        code, _, err = run_main(curves, ["run", "ck/snack_wars_v0.zip", *extra], capsys)
        assert_one_line(code, err, "snack-curves", "snack_rabbits_v0", "snack_wars_v0")
        assert digests(shipped) == before
    code, out, err = run_main(curves, ["run", "ck/mine.zip"], capsys)  # no metadata to compare with: drawn
    assert code == 0 and (shipped / "mine.curve.csv").is_file(), err


@pytest.mark.parametrize("module, prog, argv", [
    (curves, "snack-curves", ["run", ""]),
    (average, "snack-average", ["", "a.zip", "b.zip", "--timesteps", "1", "--wall-time-s", "1"]),
    (train, "snack-train", ["--run-dir", "", "--set", "timesteps=0"]),
    (train, "snack-train", ["--config", ""]),
], ids=["curves-checkpoint", "average-out", "train-run-dir", "train-config"])
def test_an_empty_path_is_one_line(module, prog, argv, tmp_path, capsys, monkeypatch):
    """An empty argument (`--run-dir "$RUN"` with RUN unset) is the current folder to pathlib: snack-train
    trained into it; snack-curves and snack-average raised ValueError."""
    monkeypatch.chdir(tmp_path)
    tiny_run(tmp_path / "run")
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run_main(module, argv, capsys)
    assert_one_line(code, err, prog, "empty")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("config", [".", "/"])
def test_a_config_that_names_the_current_or_root_folder_is_one_line(config, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(train, ["--config", config], capsys)
    assert_one_line(code, err, "snack-train", "config")


@pytest.mark.parametrize("config, names", [
    (os.devnull, ["is not a regular file", "a character device"]),
    ("pipe.yaml", ["is not a regular file", "a named pipe"]),
], ids=["dev-null", "fifo"])
def test_a_config_that_is_no_regular_file_is_one_line_naming_it_so(config, names, tmp_path, capsys, monkeypatch):
    """`--config /dev/null` said the config was not found."""
    monkeypatch.chdir(tmp_path)
    if config == "pipe.yaml":
        os.mkfifo(config)
    code, _, err = run_main(train, ["--config", config, "--run-dir", "run"], capsys)
    assert_one_line(code, err, "snack-train", config, *names)
    assert "not found" not in err and not (tmp_path / "run").exists()


def test_a_config_that_sets_a_key_twice_is_one_line_naming_the_file_the_key_and_the_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("twice.yaml").write_text("extends: quickstart\nalgo:\n  learning_rate: 1e-3\n  learning_rate: 5e-4\n")
    code, _, err = run_main(train, ["--config", "twice.yaml", "--run-dir", "run"], capsys)
    assert_one_line(code, err, "snack-train", "twice.yaml, line 4", "duplicate key 'learning_rate' (first set on line 3)")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("setting, names", [
    ("algo.net_arch=[100000000]", ["algo.net_arch", "4,096"]),
    ("algo.grid.dilations=[100000]", ["algo.grid.dilations", "64"]),
], ids=["net-arch", "grid-dilations"])
def test_a_network_too_large_to_build_is_one_line_before_a_run_folder_is_written(setting, names, tmp_path, capsys, monkeypatch):
    """`--set algo.net_arch=[100000000]` ended in torch's `can't allocate memory` traceback."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(train, ["--set", setting, "--set", "timesteps=64", "--run-dir", "run"], capsys)
    assert_one_line(code, err, "snack-train", *names)
    assert not (tmp_path / "run").exists()


def test_yaml_nested_too_deeply_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(train, ["--set", "timesteps=" + "[" * 3000 + "]" * 3000, "--run-dir", "run"], capsys)
    assert_one_line(code, err, "snack-train", "timesteps", "nested too deeply")
    assert not (tmp_path / "run").exists()


# --- snack-average ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["inf", "nan", "-1"])
def test_average_refuses_a_wall_time_that_is_not_a_finite_number_of_seconds(value, tmp_path, capsys, monkeypatch):
    """--wall-time-s inf was taken, and written to the metadata as `Infinity`, which is not JSON."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(average, ["out.zip", "a.zip", "b.zip", "--timesteps", "1", "--wall-time-s", value], capsys)
    assert_one_line(code, err, "snack-average", "--wall-time-s")
    assert list(tmp_path.iterdir()) == []


# --- snack-ship ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["nan", "inf", "-5", "0"])
def test_ship_refuses_a_lookahead_budget_that_is_not_a_positive_number_before_measuring(value, capsys, monkeypatch):
    """nan and inf ended in a traceback after the measuring had begun; a budget of 0 or less was taken."""
    monkeypatch.setattr(ship, "measure", lambda *a, **k: pytest.fail("measured"))
    code, _, err = run_main(ship, [str(CHECKPOINTS / "snack_rabbits_v0.zip"), "--dry-run", "--lookahead-budget", value],
                            capsys)
    assert_one_line(code, err, "snack-ship", "--lookahead-budget")


# --- snack-train --resume of a run whose files are damaged ----------------------------------------------------
def resumable_run(folder: Path) -> Path:
    """A run stopped at 64 timesteps, from the repository's files: config.json (the quick-start config),
    state.json, and the shipped Snack Rabbits checkpoint as latest.zip with its metadata as latest.json."""
    folder.mkdir(parents=True)
    config = load_config(None, ["timesteps=128", "n_envs=2", "algo.n_steps=32", "algo.batch_size=64", "imitation.games=0",
                                "eval.games=2", "eval.final_games=2"])
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "state.json").write_text(json.dumps({"timesteps": 64, "snapshots": [], "last_eval": 0, "last_snapshot": 0}))
    shutil.copyfile(CHECKPOINTS / "snack_rabbits_v0.zip", folder / "latest.zip")
    shutil.copyfile(CHECKPOINTS / "snack_rabbits_v0.json", folder / "latest.json")
    return folder


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:5000])


@pytest.mark.parametrize("damage, names", [
    (lambda run: (run / "latest.json").write_text("garbage"), ["latest.json", "line 1"]),
    (lambda run: (run / "latest.json").write_text("[1]"), ["latest.json"]),
    (lambda run: ((run / "final.json").write_text("[1]"), shutil.copyfile(run / "latest.zip", run / "final.zip")),
     ["final.json"]),
    (lambda run: ((run / "final.json").write_text("{}"), shutil.copyfile(run / "latest.zip", run / "final.zip")),
     ["final.json", "timesteps"]),
    (lambda run: ((run / "final.json").write_text('{"timesteps": "64", "wall_time_s": 1.0}'),
                  shutil.copyfile(run / "latest.zip", run / "final.zip")), ["final.json", "timesteps", "whole number"]),
    (lambda run: (run / "state.json").write_text('{"timesteps": 64.5, "snapshots": []}'),
     ["state.json", "timesteps", "whole number"]),
    (lambda run: truncate(run / "latest.zip"), ["latest.zip"]),
], ids=["latest-json-not-json", "latest-json-a-list", "final-json-a-list", "final-json-without-timesteps",
        "final-json-timesteps-no-number", "state-json-timesteps-no-number", "latest-zip-truncated"])
def test_resuming_a_run_with_a_damaged_file_is_one_line_and_changes_nothing(damage, names, tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    run = resumable_run(tmp_path / "run")
    damage(run)
    before = digests(run)
    code, _, err = run_main(train, ["--resume", str(run)], capsys)
    assert_one_line(code, err, "snack-train", *names)
    assert digests(run) == before


def finished_sb3_run(folder: Path) -> Path:
    """A run the sb3 backend finished: `resumable_run` with the same checkpoint as final.zip and final.json."""
    run = resumable_run(folder)
    shutil.copyfile(run / "latest.zip", run / "final.zip")
    shutil.copyfile(run / "latest.json", run / "final.json")
    return run


def finished_rllib_run(folder: Path) -> Path:
    """A run the rllib backend finished, as far as its files show it: config.json, state.json, the Algorithm
    checkpoint folders checkpoint/ and final/, and final.json in the rllib backend's format."""
    run = resumable_run(folder)
    (run / "latest.zip").unlink()
    (run / "latest.json").unlink()
    for name in ("checkpoint", "final"):
        (run / name).mkdir()
        (run / name / "algorithm_state.pkl").write_bytes(b"not used")
    (run / "final.json").write_text(json.dumps({"format": "snack-envs-rllib-checkpoint/1", "timesteps": 128}))
    return run


@pytest.mark.parametrize("make, backend, names", [
    (finished_sb3_run, "rllib", ["trained with the sb3 backend", "final.zip", "not rllib"]),
    (finished_rllib_run, "sb3", ["trained with the rllib backend", "not sb3", "--backend rllib"]),
    (resumable_run, "rllib", ["trained with the sb3 backend", "latest.zip", "not rllib"]),
], ids=["finished-sb3-run-with-rllib", "finished-rllib-run-with-sb3", "stopped-sb3-run-with-rllib"])
def test_resuming_a_run_with_another_backend_than_trained_it_is_one_line_and_changes_nothing(make, backend, names, tmp_path,
                                                                                               capsys):
    """--backend rllib on a finished sb3 run said it was finished with a `final` checkpoint that is not there
    (and exited 0); on a stopped one, that the run had no checkpoint folder. The sb3 backend on an rllib run
    named a final.zip that is not there."""
    run = make(tmp_path / "run")
    before, paths = digests(run), sorted(run.rglob("*"))
    code, out, err = run_main(train, ["--resume", str(run), "--backend", backend], capsys)
    assert_one_line(code, err, "snack-train", str(run), *names)
    assert "training" not in out  # the run's line is printed once the checks have passed
    assert digests(run) == before and sorted(run.rglob("*")) == paths


# --- env options --------------------------------------------------------------------------------------------
def test_a_max_steps_too_large_for_the_engine_is_refused_on_load_before_a_run_folder_is_written(tmp_path):
    """env.options={max_steps: 1e23 as an integer} passed the config check and ended in a numba TypingError
    in the batched engine, after the run's folder was made. In a subprocess: the installed command."""
    script = Path(sys.executable).parent / "snack-train"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "snack_envs.training.train"]
    settings = ["env.options={max_steps: 99999999999999999999999}", "timesteps=64", "n_envs=2", "algo.n_steps=32",
                "algo.batch_size=64", "imitation.games=0", "eval.games=2", "eval.final_games=2"]
    done = subprocess.run([*command, "--run-dir", "run", *[a for s in settings for a in ("--set", s)]], capture_output=True,
                          text=True, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("snack-train: error: ") and "max_steps" in done.stderr
    assert not (tmp_path / "run").exists()


# --- replays and outputs: checked before the game or the tournament; never over a file of ours ---------------
def test_play_refuses_a_replay_path_that_would_write_over_a_checkpoint(tmp_path, capsys, monkeypatch):
    """`--replay` wrote its text log over the checkpoint the user named by mistake."""
    monkeypatch.chdir(tmp_path)
    for name in ("snack_rabbits_v0.zip", "snack_rabbits_v0.json"):
        shutil.copyfile(CHECKPOINTS / name, tmp_path / name)
    before = digests(tmp_path)
    monkeypatch.setattr(play, "choose", lambda *args: pytest.fail("the game started"))
    for path in ("snack_rabbits_v0.zip", "snack_rabbits_v0.json"):
        code, _, err = run_main(play, ["snack_rabbits_v0", "--opponents", "random", "--seed", "1", "--replay", path], capsys)
        assert_one_line(code, err, "snack-play", path)
    assert digests(tmp_path) == before


@pytest.mark.parametrize("flag, value, names", [
    ("--replay", "folder", ["--replay", "folder"]),
    ("--replay", "results.json", ["results.json"]),
    ("--out", "a_file/results", ["a_file"]),
], ids=["replay-a-folder", "replay-over-a-json-file", "out-under-a-file"])
def test_eval_checks_its_output_paths_before_the_tournament(flag, value, names, tmp_path, capsys, monkeypatch):
    """These failed only when writing, after every game of the tournament had been played."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "a_file").write_text("mine\n")
    (tmp_path / "results.json").write_text("{}\n")
    before = digests(tmp_path)
    monkeypatch.setattr(evaluate, "tournament", lambda *a, **k: pytest.fail("the tournament started"))
    code, _, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--games", "1", flag, value], capsys)
    assert_one_line(code, err, "snack-eval", *names)
    assert digests(tmp_path) == before


# --- checkpoints that are no zip file: the fix belongs in snack_envs/checkpoints.py (load_model) ----------------
def not_a_zip(folder: Path, kind: str) -> Path:
    path = folder / f"{kind}.zip"
    if kind == "garbage":
        path.write_text("hello\n")
    elif kind == "truncated":
        path.write_bytes((CHECKPOINTS / "snack_rabbits_v0.zip").read_bytes()[:5000])
    elif kind == "empty-zip":
        zipfile.ZipFile(path, "w").close()
    shutil.copyfile(CHECKPOINTS / "snack_rabbits_v0.json", path.with_suffix(".json"))
    return path


@pytest.mark.parametrize("kind", ["garbage", "truncated", "empty-zip"])
def test_a_checkpoint_that_is_no_zip_file_is_one_line_in_snack_eval(kind, tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    path = not_a_zip(tmp_path, kind)
    code, _, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--games", "1", "--agents", "random", str(path)], capsys)
    assert_one_line(code, err, "snack-eval", path.name)


def test_the_metadata_file_named_as_a_checkpoint_is_one_line(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    shutil.copyfile(CHECKPOINTS / "snack_rabbits_v0.json", tmp_path / "snack_rabbits_v0.json")
    code, _, err = run_main(play, ["snack_rabbits_v0", "--opponents", str(tmp_path / "snack_rabbits_v0.json")], capsys)
    assert_one_line(code, err, "snack-play", "snack_rabbits_v0.json")


# --- snack-train --backend rllib --address ----------------------------------------------------------------------
@pytest.mark.parametrize("address", ["notanaddress", "127.0.0.1:²"])
def test_a_malformed_ray_address_is_one_line(tmp_path, capsys, address):
    """Ray's ValueError ("Invalid address format") came through as a traceback; so did a port of digits that
    are no int ("²": str.isdigit, int() fails)."""
    pytest.importorskip("ray.rllib")
    code, _, err = run_main(train, ["--backend", "rllib", "--address", address, "--run-dir", str(tmp_path / "run"),
                                    "--set", "timesteps=0"], capsys)
    assert_one_line(code, err, "snack-train", f"--address {address}")


def test_a_ray_address_that_nothing_answers_at_is_one_line_at_once(tmp_path, capsys, monkeypatch):
    """Ray retried an unreachable cluster for over two minutes before it failed; the address is now tried first,
    before the run's folder is written (its config.json was left behind) or its "training ..." line printed."""
    ray = pytest.importorskip("ray")
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inits = []
    monkeypatch.setattr(ray, "init", lambda **kwargs: inits.append(kwargs))
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        run_dir = tmp_path / address.replace("/", "_")
        code, out, err = run_main(train, ["--backend", "rllib", "--address", address, "--run-dir", str(run_dir),
                                          "--set", "timesteps=0"], capsys)
        assert_one_line(code, err, "snack-train", f"--address {address}", "nothing answers")
        assert "training" not in out and not run_dir.exists()
    assert inits == []


# --- snack-train --resume of a recipe whose stage folder is gone ------------------------------------------------
ONE_STAGE_RECIPE = """\
extends: quickstart
timesteps: 64
n_envs: 2
algo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}
eval: {every: 64, games: 2, final_games: 2}
imitation: {games: 0}
stages:
  - {}
"""


@pytest.fixture(scope="module")
def finished_recipe(tmp_path_factory) -> Path:
    pytest.importorskip("sb3_contrib")
    folder = tmp_path_factory.mktemp("recipe")
    (folder / "one.yaml").write_text(ONE_STAGE_RECIPE)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        train.main(["--config", "one.yaml", "--run-dir", "run"])
    return folder / "run"


@pytest.mark.parametrize("remove", ["stage1", "stage1/state.json"], ids=["stage-folder", "stage-state-json"])
def test_resuming_a_finished_recipe_whose_stage_is_gone_keeps_its_checkpoints(remove, finished_recipe, tmp_path, capsys):
    """With stage1/ removed, --resume trained the stage again and replaced the recipe's final.zip; with only
    its state.json gone, it deleted the stage's folder, final.zip and all, to start it over."""
    run = tmp_path / "run"
    shutil.copytree(finished_recipe, run)
    capsys.readouterr()
    target = run / remove
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    before = digests(run)
    code, _, err = run_main(train, ["--resume", str(run)], capsys)
    assert_one_line(code, err, "snack-train", "stage1")
    assert digests(run) == before


# --- snack-play: the replay of a game left by Ctrl-D or Ctrl-C ------------------------------------------------
@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt], ids=["ctrl-d", "ctrl-c"])
def test_a_game_left_by_closing_the_input_still_writes_its_replay(stop, tmp_path):
    """`q` wrote the replay; the end of the input (Ctrl-D, or stdin closed) and Ctrl-C lost it."""
    path = tmp_path / "game.txt"

    def ask(prompt):
        raise stop

    with pytest.raises(stop):
        play.play("snack_rabbits_v0", ["random"], seed=1, ask=ask, say=lambda text: None, replay=path)
    assert path.is_file() and "position 0" in path.read_text()
