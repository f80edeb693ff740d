"""Training runs that never lose work (issue 17, "Training runs"): checkpoints after the update, finished
runs left alone, SIGINT / SIGTERM saved and resumable, pruned snapshots, file modes, one meaning of
`timesteps` in both backends, and a training process killed twice and resumed to an exact end."""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import load_config
from snack_envs.training.run import StopSignals, TrainingInterrupted, resumed_seed

torch = pytest.importorskip("torch")
torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]

# A tiny run on the batched engine: 8 envs x 32 steps = 256 learner steps per update.
ROLLOUT = 8 * 32
TINY = ["n_envs=8", "algo.n_steps=32", "algo.batch_size=64", "algo.n_epochs=1", "algo.net_arch=[16]",
        "eval.every=512", "eval.games=2", "eval.final_games=2", "opponents.snapshot_every=256",
        "opponents.max_snapshots=2", "imitation.games=0"]
UMASK = 0o027  # the tiny run is trained under this umask: its files must be 0o640 (dirs aside)


def tiny_config(*extra: str) -> dict:
    return load_config("quickstart", [*TINY, "timesteps=1100", *extra])


def files(run: Path) -> dict[str, str]:
    """Every file of a run by relative path, with a digest of its bytes and its mtime."""
    return {str(p.relative_to(run)): f"{hashlib.sha256(p.read_bytes()).hexdigest()} {p.stat().st_mtime_ns}"
            for p in sorted(run.rglob("*")) if p.is_file()}


def zip_timesteps(path: Path) -> int:
    return json.loads(zipfile.ZipFile(path).read("data"))["num_timesteps"]


def zip_weights(path: Path) -> dict:
    return torch.load(io.BytesIO(zipfile.ZipFile(path).read("policy.pth")), map_location="cpu")


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = zip_weights(a), zip_weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def read(run: Path, name: str) -> dict:
    return json.loads((run / name).read_text())


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """One tiny SB3 run to its end (1100 timesteps asked: 5 updates, 1280), trained under UMASK."""
    from snack_envs.training.backends.sb3 import train

    run = tmp_path_factory.mktemp("finished") / "run"
    old = os.umask(UMASK)
    try:
        result = train(tiny_config(), run)
    finally:
        os.umask(old)
    assert result["timesteps"] == 1280
    return run


@pytest.fixture
def run_copy(finished_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    return run


# --- 1: latest is saved after the update, and a finished run stays finished --------------------------
def test_latest_holds_the_final_weights_and_resuming_a_finished_run_changes_nothing(run_copy, capsys):
    from snack_envs.training.backends.sb3 import resume_checkpoint, train

    run = run_copy
    final, latest = read(run, "final.json"), read(run, "latest.json")
    assert final["timesteps"] == latest["timesteps"] == read(run, "state.json")["timesteps"] == 1280
    assert zip_timesteps(run / "latest.zip") == zip_timesteps(run / "final.zip") == 1280
    assert same_weights(run / "latest.zip", run / "final.zip")  # latest was saved after the last update

    before = files(run)
    config = json.loads((run / "config.json").read_text())
    result = train(config, run, resume=True)  # the same timesteps: finished, nothing rewritten
    assert f"{run} is finished: 1280 timesteps" in capsys.readouterr().out
    assert result["timesteps"] == 1280 and result["checkpoint"] == str(run / "final.zip")
    assert files(run) == before

    config["timesteps"] = 1281  # more asked: one more update, from the final weights, to a new final
    (run / "config.json").write_text(json.dumps(config))
    result = train(config, run, resume=True)
    assert result["timesteps"] == read(run, "final.json")["timesteps"] == zip_timesteps(run / "final.zip") == 1280 + ROLLOUT
    assert same_weights(run / "latest.zip", run / "final.zip")

    # An older run whose latest.zip lags behind final.zip resumes from final.zip, never the older weights.
    shutil.copy(run / "snapshots" / sorted(p.name for p in (run / "snapshots").glob("*.zip"))[0], run / "latest.zip")
    (run / "latest.json").write_text(json.dumps({**read(run, "latest.json"), "timesteps": 768}))
    assert resume_checkpoint(run) == run / "final.zip"


# --- 4: an edited config.json is checked on --resume as a fresh config is, in both backends -------------
@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.update(timestep=5000), r"unknown config key 'timestep' \(did you mean 'timesteps'\?\)"),
        (lambda c: c["algo"].update(learning_rate="1e-4"), r"algo\.learning_rate='1e-4' must be a number \(a string"),
        (lambda c: c["eval"].update(opponents=["heurstic"]), r"eval\.opponents\[0\]='heurstic' is no policy"),
        (lambda c: c.update(timesteps=1.5), r"timesteps=1\.5 must be an integer"),
        (lambda c: c["env"].update(name="snack_wars_v0"), r"env does not fit the run's final\.zip: checkpoint was trained on "
                                                           r"snack_rabbits_v0, not snack_wars_v0"),
    ],
    ids=["unknown-key", "string-for-a-number", "misspelt-policy", "fraction", "another-game"],
)
def test_an_edited_config_json_is_checked_on_resume(run_copy, edit, message):
    from snack_envs.training.backends import rllib, sb3
    from snack_envs.training.config import load_run_config

    run = run_copy
    config = json.loads((run / "config.json").read_text())
    config["timesteps"] = 2e3  # more timesteps, as a float: fine
    edit(config)
    (run / "config.json").write_text(json.dumps(config))
    before = files(run)
    where = re.escape(str(run / "config.json")) + ": "
    with pytest.raises(ConfigError, match=where + message):
        sb3.train(json.loads((run / "config.json").read_text()), run, resume=True)
    if "another game" not in message and "fit" not in message:
        with pytest.raises(ConfigError, match=where + message):
            rllib.train(json.loads((run / "config.json").read_text()), run, resume=True)
        with pytest.raises(ConfigError, match=where + message):
            load_run_config(run)
    assert files(run) == before  # nothing written, nothing lost


def test_resume_takes_an_integral_float_from_config_json(run_copy):
    from snack_envs.training.config import load_run_config

    config = json.loads((run_copy / "config.json").read_text())
    (run_copy / "config.json").write_text(json.dumps({**config, "timesteps": 2e3}))
    assert load_run_config(run_copy)["timesteps"] == 2000 and type(load_run_config(run_copy)["timesteps"]) is int


# --- 2: SIGINT / SIGTERM in process: the run is saved at the last update, resumable, status 128 + signal --
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_training_saves_the_run_at_the_last_update_and_it_resumes_exactly(sig, tmp_path, monkeypatch, capsys):
    from snack_envs.training.backends import sb3

    evaluate_model = sb3.evaluate_model
    calls = []

    def evaluate_then_signal(model, config, games, seed):  # the signal lands in the first periodic evaluation
        calls.append(model.num_timesteps)
        if len(calls) == 1:
            os.kill(os.getpid(), sig)
        return evaluate_model(model, config, games, seed)

    monkeypatch.setattr(sb3, "evaluate_model", evaluate_then_signal)
    run = tmp_path / "run"
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    with pytest.raises(TrainingInterrupted) as stopped:
        sb3.train(tiny_config(), run)
    assert stopped.value.code == 128 + sig == (130 if sig == signal.SIGINT else 143)
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == handlers  # put back
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (f"{signal.Signals(sig).name}: stopped at 512 timesteps; saved {run / 'latest.zip'} "
                                           f"and state.json; resume with: snack-train --resume {run}")
    state = read(run, "state.json")
    assert state["timesteps"] == read(run, "latest.json")["timesteps"] == zip_timesteps(run / "latest.zip") == 512
    assert state["last_eval"] == 0 and not (run / "eval.csv").exists()  # the cut evaluation is done again on resume
    assert not (run / "final.zip").exists()

    monkeypatch.setattr(sb3, "evaluate_model", evaluate_model)
    seeds, make_vec_env = [], sb3.make_vec_env
    monkeypatch.setattr(sb3, "make_vec_env", lambda config, run_dir: seeds.append(config["seed"]) or make_vec_env(config, run_dir))
    result = sb3.train(json.loads((run / "config.json").read_text()), run, resume=True)
    assert result["timesteps"] == read(run, "final.json")["timesteps"] == zip_timesteps(run / "final.zip") == 1280
    # The resumed run deals new games, not again the ones the run began with (seed 0), and a second resume
    # from the same checkpoint would deal the same ones.
    assert seeds == [resumed_seed(0, 512)] and resumed_seed(0, 512) not in (0, resumed_seed(0, 1024), resumed_seed(1, 512))
    assert torch.initial_seed() == resumed_seed(0, 512)  # the model's own sampling too (MaskablePPO.load seeds it with 0)
    lines = (run / "eval.csv").read_text().splitlines()
    assert lines[0].startswith("timesteps,opponent,win_rate,")  # the header row, once
    rows = [int(line.split(",")[0]) for line in lines[1:]]
    assert rows == [512, 512, 1024, 1024]  # each evaluation once, at an update


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_stop_signals_defer_in_training_raise_in_evaluations_and_never_in_a_save():
    from snack_envs.training.run import Interrupted

    before = signal.getsignal(signal.SIGINT)
    with StopSignals() as stop:
        os.kill(os.getpid(), signal.SIGINT)  # first signal, while training: only noted
        assert stop.signum == signal.SIGINT
        with stop.critical():
            os.kill(os.getpid(), signal.SIGTERM)  # in a save: only noted, even a second one
        with pytest.raises(Interrupted) as at_once:
            with stop.at_once():  # an evaluation after a signal: stops at once
                pass
        assert not at_once.value.forced
        with pytest.raises(Interrupted) as forced:
            os.kill(os.getpid(), signal.SIGINT)  # another one while training: stop at once, forced
        assert forced.value.forced
    assert signal.getsignal(signal.SIGINT) is before


# --- the kill test: a training process stopped by SIGINT, then SIGTERM, resumed to an exact end ---------
KILL_ROLLOUT = 16 * 32
KILL_TIMESTEPS = 8000  # not a whole number of updates: the run ends at the first update past it, 8192
KILL_ARGS = ["--config", "quickstart", "--set", f"timesteps={KILL_TIMESTEPS}", "--set", "n_envs=16", "--set", "algo.n_steps=32",
             "--set", "algo.batch_size=128", "--set", "algo.n_epochs=1", "--set", "algo.net_arch=[16]",
             "--set", "eval.every=2048", "--set", "eval.games=2", "--set", "eval.final_games=2",
             "--set", "opponents.snapshot_every=1024", "--set", "opponents.max_snapshots=2", "--set", "imitation.games=0"]


class Training:
    """`python -m snack_envs.training.train ARGS` in a subprocess, its stdout lines read as they come. One thread
    owns each pipe (stdout lines into a queue, stderr into a list), so nothing else reads or closes them."""

    def __init__(self, *args: str, own_group: bool = False):
        """`own_group`: in a process group of its own, which `stop(..., group=True)` signals whole, as a
        terminal's Ctrl-C does."""
        # PYTHONFAULTHANDLER: a process that does not end in time is sent SIGABRT and says where each thread was
        self.proc = subprocess.Popen([sys.executable, "-m", "snack_envs.training.train", *args], cwd=ROOT, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=own_group,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"})
        self.lines: queue.Queue = queue.Queue()
        self.err: list[str] = []
        self.readers = [threading.Thread(target=self._read, daemon=True), threading.Thread(target=self._drain, daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)

    def _drain(self):
        for line in self.proc.stderr:
            self.err.append(line)

    def ended(self) -> str:
        """Wait for the process and both readers; its stderr. A process still running after 60 s fails the
        test with its threads' stacks."""
        try:
            self.proc.wait(timeout=60)
            hung = False
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            self.proc.wait(timeout=30)
            hung = True
        for reader in self.readers:
            reader.join(timeout=10)
        if hung:
            raise AssertionError("the training process did not end within 60 s; its stderr:\n" + "".join(self.err))
        return "".join(self.err)

    def wait_for_evaluation_after(self, steps: int, timeout: float = 60, what: str = "vs") -> int:
        """Block until the run prints an evaluation ("[N steps] vs ...", or another `what`) past `steps`; returns N."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.proc.poll() is None, f"training ended early: {self.ended()}"
                continue
            if (m := re.match(rf"\[(\d+) steps\] {what} ", line.strip())) and int(m.group(1)) > steps:
                return int(m.group(1))
        raise AssertionError(f"no evaluation past {steps} steps within {timeout} s")

    def stop(self, sig: int, group: bool = False) -> tuple[int, str]:
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        err = self.ended()
        return self.proc.returncode, err


def assert_consistent_checkpoint(run: Path) -> int:
    state = read(run, "state.json")
    steps = state["timesteps"]
    assert steps == read(run, "latest.json")["timesteps"] == zip_timesteps(run / "latest.zip")
    assert steps > 0 and steps % KILL_ROLLOUT == 0  # saved at an update
    assert sorted(p.name for p in (run / "snapshots").glob("*.zip")) == sorted(Path(p).name for p in state["snapshots"])
    return steps


def test_a_training_process_sent_sigint_then_sigterm_resumes_to_the_exact_end(tmp_path):
    run = tmp_path / "run"
    training = Training("--run-dir", str(run), *KILL_ARGS)
    training.wait_for_evaluation_after(0)
    code, err = training.stop(signal.SIGINT)
    assert code == 130 and "Traceback" not in err, err
    assert [line for line in err.splitlines() if "resume" in line] == [
        f"SIGINT: stopped at {read(run, 'state.json')['timesteps']} timesteps; saved {run / 'latest.zip'} and state.json; "
        f"resume with: snack-train --resume {run}"]
    first = assert_consistent_checkpoint(run)
    assert not (run / "final.zip").exists()

    training = Training("--resume", str(run))
    training.wait_for_evaluation_after(first)
    code, err = training.stop(signal.SIGTERM)
    assert code == 143 and "Traceback" not in err, err
    assert [line for line in err.splitlines() if "resume with" in line][0].startswith("SIGTERM: stopped at ")
    second = assert_consistent_checkpoint(run)
    assert second > first

    done = subprocess.run([sys.executable, "-m", "snack_envs.training.train", "--resume", str(run)], cwd=ROOT, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    end = math.ceil(KILL_TIMESTEPS / KILL_ROLLOUT) * KILL_ROLLOUT  # 8192: an uninterrupted run's count
    final, state = read(run, "final.json"), read(run, "state.json")
    assert final["timesteps"] == state["timesteps"] == zip_timesteps(run / "final.zip") == end
    assert final["env_name"] == "snack_rabbits_v0" and set(final["evaluation"]) == {"random", "heuristic"}
    assert same_weights(run / "latest.zip", run / "final.zip")
    steps = [int(line.split(",")[0]) for line in (run / "eval.csv").read_text().splitlines()[1:]]  # after the header
    assert steps == sorted(steps) and steps == [s for s in range(2048, end, 2048) for _ in range(2)]  # each once
    assert len(list((run / "snapshots").glob("*.zip"))) == 2


@pytest.mark.slow
def test_an_rllib_training_process_sent_sigint_then_sigterm_resumes_to_the_end(tmp_path):
    pytest.importorskip("ray.rllib")
    run = tmp_path / "run"
    args = ["--backend", "rllib", "--set", "vec_env=dummy", "--set", "timesteps=1000", "--set", "n_envs=2",
            "--set", "algo.n_steps=64", "--set", "algo.batch_size=64", "--set", "algo.n_epochs=1", "--set", "algo.net_arch=[16]",
            "--set", "eval.every=128", "--set", "eval.games=2", "--set", "eval.final_games=2",
            "--set", "opponents.snapshot_every=128", "--set", "opponents.max_snapshots=2"]
    saved = 0
    for sig, flag in ((signal.SIGINT, ["--run-dir", str(run), *args]), (signal.SIGTERM, ["--resume", str(run), "--backend", "rllib"])):
        training = Training(*flag)
        training.wait_for_evaluation_after(saved, timeout=120, what="iteration")
        code, err = training.stop(sig)
        assert code == 128 + sig and "Traceback" not in err, err
        state = read(run, "state.json")
        assert state["timesteps"] > saved and [line for line in err.splitlines() if "resume with" in line] == [
            f"{signal.Signals(sig).name}: stopped at {state['timesteps']} timesteps; saved {run / 'checkpoint'} and state.json; "
            f"resume with: snack-train --resume {run} --backend rllib"]
        saved = state["timesteps"]
    done = subprocess.run([sys.executable, "-m", "snack_envs.training.train", "--resume", str(run), "--backend", "rllib"], cwd=ROOT,
                          text=True, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    final, state = read(run, "final.json"), read(run, "state.json")
    assert final["timesteps"] == state["timesteps"] >= 1000 and (run / "final").is_dir()
    assert len(state["snapshots"]) == 2


# --- 6: `timesteps` counts the learner's steps in the RLlib backend too -------------------------------
def test_rllib_counts_the_learners_steps_not_every_seats():
    from snack_envs.training.backends.rllib import learner_steps

    result = {"env_runners": {"num_env_steps_sampled": 128, "num_module_steps_sampled": {"main": 61, "heuristic": 67}}}
    assert learner_steps(result) == 61
    base = (ROOT / "configs" / "base.yaml").read_text()
    assert re.search(r"^timesteps: \d+ +# the learner's steps \(its own decisions, not its opponents'\), in both backends",
                     base, re.M)


class FakeAlgo:
    """Stands in for an RLlib Algorithm: 128 env steps an iteration, 61 of them the learner's."""

    iterations = 0
    signal_at = None  # (iteration, signal) to send to this process

    def __init__(self):
        self.iteration = 0

    def train(self):
        self.iteration += 1
        FakeAlgo.iterations += 1
        if FakeAlgo.signal_at and FakeAlgo.iterations == FakeAlgo.signal_at[0]:
            os.kill(os.getpid(), FakeAlgo.signal_at[1])
        return {"env_runners": {"num_env_steps_sampled": 128, "num_module_steps_sampled": {"main": 61, "random": 67},
                                "module_episode_returns_mean": {"main": 0.0}}}

    def save_to_path(self, path):
        Path(path).mkdir(parents=True)
        (Path(path) / "iteration").write_text(str(FakeAlgo.iterations))

    def restore_from_path(self, path):
        pass

    def get_module(self, module_id):
        return None

    def stop(self):
        pass


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_rllib_run_stops_at_learner_timesteps_saves_on_sigterm_and_leaves_a_finished_run_alone(tmp_path, monkeypatch, capsys):
    pytest.importorskip("ray.rllib")
    import types

    from snack_envs.training.backends import rllib

    fake_eval = {"games": 2, "win_rate": 0.5, "win_rate_ci95": [0.1, 0.9], "hero_mean_score_ci95": [1.0, 0.0, 2.0],
                 "wins": 1, "ties": 0, "losses": 1, "unfinished": 0, "villain_mean_score_ci95": [1.0, 0.0, 2.0]}
    seeds = []
    monkeypatch.setattr(rllib, "build_config", lambda config, snapshots=(): seeds.append(config["seed"]) or types.SimpleNamespace(build_algo=FakeAlgo))
    monkeypatch.setattr(rllib, "start_ray", lambda address, config: False)
    monkeypatch.setattr(rllib, "evaluate_module", lambda module, config, games, seed: {s: fake_eval for s in config["eval"]["opponents"]})
    config = load_config("snack_rabbits", ["vec_env=dummy", "n_envs=2", "algo.n_steps=64", "algo.batch_size=64",
                                           "timesteps=500", "eval.every=200", "opponents.self=0"])
    run = tmp_path / "run"
    FakeAlgo.iterations, FakeAlgo.signal_at = 0, (3, signal.SIGTERM)
    with pytest.raises(TrainingInterrupted) as stopped:
        rllib.train(config, run)
    assert stopped.value.code == 143
    assert capsys.readouterr().err.strip().endswith(f"resume with: snack-train --resume {run} --backend rllib")
    assert read(run, "state.json")["timesteps"] == 3 * 61 and (run / "checkpoint" / "iteration").read_text() == "3"

    FakeAlgo.signal_at = None
    result = rllib.train(config, run, resume=True)
    assert result["timesteps"] == read(run, "final.json")["timesteps"] == 9 * 61  # 549: learner steps, not 9 * 128
    assert seeds == [0, resumed_seed(0, 3 * 61)]  # the resumed run deals new games, as the SB3 backend's does
    before = files(run)
    rllib.train(config, run, resume=True)
    assert "is finished: 549 timesteps" in capsys.readouterr().out and files(run) == before


# --- 7: snapshots on disk are the pool's ---------------------------------------------------------------
def test_snapshots_beyond_max_snapshots_are_deleted_from_disk(finished_run):
    state = read(finished_run, "state.json")
    on_disk = sorted(p.name for p in (finished_run / "snapshots").iterdir())
    assert state["snapshots"] == [str(finished_run / "snapshots" / f"step{s}.zip") for s in (768, 1024)]  # max_snapshots=2
    assert on_disk == ["step1024.json", "step1024.zip", "step768.json", "step768.zip"]
    assert {"latest.zip", "final.zip"} <= {p.name for p in finished_run.iterdir()}  # the evaluation checkpoints stay


# --- 8: the run's files get the user's umask --------------------------------------------------------------
def test_the_runs_json_files_have_the_mode_the_umask_gives(finished_run):
    written = sorted(p for p in finished_run.rglob("*") if p.is_file() and p.suffix in (".json", ".zip", ".csv"))
    names = {str(p.relative_to(finished_run)) for p in written}
    assert {"config.json", "state.json", "latest.json", "final.json", "snapshots/step1024.json", "eval.csv"} <= names
    modes = {str(p.relative_to(finished_run)): oct(p.stat().st_mode & 0o777) for p in written}
    assert set(modes.values()) == {oct(0o666 & ~UMASK)}, modes
    assert not [p for p in finished_run.rglob("*.tmp")]  # no temporary file left behind


# --- a fresh run never trains over a run already in its folder ------------------------------------------
def test_a_fresh_run_refuses_a_folder_that_holds_a_run(run_copy):
    from snack_envs.training.backends.sb3 import train

    before = files(run_copy)
    with pytest.raises(ConfigError, match="holds a training run already: resume it"):
        train(tiny_config(), run_copy)
    assert files(run_copy) == before


# --- a run stopped in its imitation resumes it, losing only the part being played -----------------------
IMITATING = ["imitation.games=5", "imitation.epochs=1", "imitation.dagger_rounds=2", "imitation.dagger_games=4",
             "imitation.dagger_epochs=1", "timesteps=256", "eval.every=100000"]


def imitation_files(run: Path) -> list[str]:
    return sorted(p.name for p in (run / "imitation").iterdir())


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_a_run_stopped_in_its_imitation_resumes_it_and_imitates_as_a_run_never_stopped(tmp_path, monkeypatch, capsys):
    """The imitation saves its samples part by part (2 games a part here) and its weights after each fit; a
    SIGINT in DAgger round 2's second part stops the run with a line naming what is kept; --resume plays only
    the parts not saved, fits what was not fitted, and gives the weights, stats and checkpoint of a run
    never stopped. A resume with other imitation settings is refused, changing nothing."""
    from snack_envs.training import imitate
    from snack_envs.training.backends import sb3

    monkeypatch.setattr(imitate, "PART_GAMES", 2)
    whole = tmp_path / "whole"
    sb3.train(tiny_config(*IMITATING), whole)
    capsys.readouterr()
    # clone: 3 parts (2, 2, 1 games); rounds 1 and 2: 2 parts each
    assert imitation_files(whole) == sorted(
        ["settings.json", "clone-2p-0.npz", "clone-2p-2.npz", "clone-2p-4.npz", "round1-2p-0.npz", "round1-2p-2.npz",
         "round2-2p-0.npz", "round2-2p-2.npz"] + [f"{phase}.{ext}" for phase in ("clone", "round1", "round2")
                                                  for ext in ("pt", "json")])

    collect, parts = imitate.collect, []

    def collect_then_stop(env, config, games, seed, student=None):
        parts.append(seed)
        if len(parts) == 7:  # round 2's second part: the first six (clone 3, round 1 2, round 2 1) are saved
            os.kill(os.getpid(), signal.SIGINT)
        return collect(env, config, games, seed, student)

    monkeypatch.setattr(imitate, "collect", collect_then_stop)
    cut = tmp_path / "cut"
    with pytest.raises(TrainingInterrupted):
        sb3.train(tiny_config(*IMITATING), cut)
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (f"SIGINT: stopped in the imitation: its finished parts are kept in "
                                           f"{cut / 'imitation'}; resume with: snack-train --resume {cut}")
    assert "round2-2p-0.npz" in imitation_files(cut) and "round2-2p-2.npz" not in imitation_files(cut)
    assert "round1.pt" in imitation_files(cut) and "round2.pt" not in imitation_files(cut)

    edited = json.loads((cut / "config.json").read_text())
    edited["imitation"]["dagger_games"] = 6
    before = files(cut)
    with pytest.raises(ConfigError, match=r"holds an imitation begun with other imitation settings than the config's now"):
        sb3.train(edited, cut, resume=True)
    assert files(cut) == before

    parts.clear()
    result = sb3.train(json.loads((cut / "config.json").read_text()), cut, resume=True)
    assert "taking up" in capsys.readouterr().out
    assert len(parts) == 1  # only round 2's second part was played again
    assert result["timesteps"] == 256
    for name in imitation_files(whole):
        if name.endswith(".pt"):
            a, b = (torch.load(run / "imitation" / name) for run in (whole, cut))
            assert all(torch.equal(a[k], b[k]) for k in a), name
    stats = [read(run, "final.json")["imitation"] for run in (whole, cut)]
    for s in stats:
        s.pop("seconds")
        for r in s["dagger"]:
            r.pop("seconds")
    assert stats[0] == stats[1] and [r["round"] for r in stats[0]["dagger"]] == [1, 2]
    assert same_weights(whole / "final.zip", cut / "final.zip")


def test_a_training_process_stopped_in_its_imitation_with_workers_exits_at_once_and_resumes_it(tmp_path):
    """Ctrl-C (SIGINT to the whole process group) in a run whose imitation plays in 2 worker processes: the run
    exits with 130 and its one line, with no worker's traceback (the workers ignore SIGINT: the run ends
    them); the parts saved stay, and --resume plays the rest and finishes."""
    run = tmp_path / "run"
    args = [*KILL_ARGS[:-2], "--set", "timesteps=2048",  # less its imitation.games=0
            "--set", "imitation.games=1500", "--set", "imitation.epochs=1", "--set", "imitation.workers=2"]
    training = Training("--run-dir", str(run), *args, own_group=True)
    deadline = time.time() + 120
    while not list((run / "imitation").glob("clone-2p-*.npz")):
        assert time.time() < deadline and training.proc.poll() is None, f"no part saved: {training.ended()}"
        time.sleep(0.05)
    started = time.time()
    code, err = training.stop(signal.SIGINT, group=True)
    assert code == 130 and "Traceback" not in err, err
    assert time.time() - started < 20
    assert err.strip().splitlines()[-1] == (f"SIGINT: stopped in the imitation: its finished parts are kept in "
                                           f"{run / 'imitation'}; resume with: snack-train --resume {run}")
    saved = len(list((run / "imitation").glob("clone-2p-*.npz")))
    assert 1 <= saved < 15 and not (run / "imitation" / "clone.json").exists()

    done = subprocess.run([sys.executable, "-m", "snack_envs.training.train", "--resume", str(run)], cwd=ROOT, text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "taking up" not in done.stdout  # nothing was fitted before the stop, only parts saved
    assert len(list((run / "imitation").glob("clone-2p-*.npz"))) == 15
    assert read(run, "final.json")["imitation"]["games"] == 1500
    assert read(run, "final.json")["timesteps"] == 2048


def test_an_imitation_fitted_to_its_end_is_taken_up_without_playing_or_reading_its_samples(tmp_path, monkeypatch):
    """A run stopped after its imitation but before its first checkpoint: kickstart again in the same folder
    plays no game, reads no part, returns the same stats and leaves the model with the last fit's weights."""
    from functools import partial

    from sb3_contrib import MaskablePPO

    from snack_envs.training import imitate
    from snack_envs.training.backends.sb3 import SelfPlayEnv, make_vec_env, policy_for, ppo_settings

    config = tiny_config(*IMITATING)
    monkeypatch.setattr(imitate, "PART_GAMES", 2)

    def fresh_model():
        policy, kwargs = policy_for(config["env"]["name"], config["algo"])
        return MaskablePPO(policy, make_vec_env(config, tmp_path), seed=0, device="cpu", policy_kwargs=kwargs,
                           **ppo_settings(config["algo"]))

    first = fresh_model()
    stats = imitate.kickstart(first, config, partial(SelfPlayEnv, config), tmp_path / "imitation")
    monkeypatch.setattr(imitate, "collect", lambda *args, **kwargs: pytest.fail("played a game"))
    monkeypatch.setattr(imitate, "_read_npz", lambda path: pytest.fail(f"read {path.name}"))
    again = fresh_model()
    assert imitate.kickstart(again, config, partial(SelfPlayEnv, config), tmp_path / "imitation") == stats
    a, b = first.policy.state_dict(), again.policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
