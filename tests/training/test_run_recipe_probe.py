"""Cases a mutation probe of training/run.py and training/recipe.py found no test for, checked without
training: a stand-in (`StandIn`) trains each stage of a recipe as far as the recipe sees it (config.json,
state.json, final.zip and final.json). They pin:

- a recipe's messages (its name, each stage trained, resumed or finished, "recipe done" naming the final
  checkpoint), the config and `recipe` each stage is handed, its recipe.json, and its result: the last
  stage's evaluation with every stage's timesteps and wall time (rounded to 0.1 s) together;
- where a fresh recipe may start (an existing empty folder, a folder whose parent does not exist yet) and
  that one refuses a folder holding a plain run, before writing anything over it; that it checks the config
  it is handed (fresh, or resumed: naming config.json) before any stage trains;
- resuming: a finished stage skipped (one with exactly its timesteps is finished), a started one resumed
  from its own config.json, one cut before its first checkpoint started again in a clean folder, a recipe
  without recipe.json named by its config.json; a finished recipe rewrites nothing, and one cut between
  publishing final.zip and final.json publishes the pair again; a stage folder holding checkpoints but no
  state.json, and a finished recipe's last stage gone, are refused with everything kept;
- a run's bookkeeping: the wall time of a checkpoint made without training and of its lineage, a resume from
  a state.json without a wall time, a solo evaluation in eval.csv / TensorBoard / the progress line, pruning
  a snapshot whose metadata is gone, the final evaluation's games and seed and a signal in it (exit status
  and the line printed), and StopSignals deferring a first signal again once at_once() / critical() end;
- the learning curve: each opponent's win rate over every resumed part, the even line, the episode reward,
  a solo run's mean score on the first axis or, beside win rates, on a second scale, the run's name as title,
  the figure closed once saved, and a checkpoint opponent whose path holds "_vs_" named in the legend by its
  whole path (it was named by what follows the last "_vs_": "vs heuristic/final.zip", read as the heuristic).
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import load_config
from snack_envs.training.recipe import train_recipe
from tests.training.test_cli_fuzz_cases import ONE_STAGE_RECIPE

TWO_STAGES = ONE_STAGE_RECIPE + "  - {timesteps: 128}\n"
WALL_TIMES = {"stage1": 1.25, "stage2": 1.33, "stage3": 0.5}  # the stand-in's; stages 1 and 2 together 2.58 s, 2.6 rounded


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def files(run: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(run)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(run.rglob("*")) if p.is_file()}


class StandIn:
    """Trains a stage as far as a recipe sees it: config.json, state.json, final.zip and final.json (stage k's
    evaluation a win rate of k / 4 against random)."""

    def __init__(self):
        self.calls: list[tuple[str, bool, str | None]] = []
        self.recipes: list[dict | None] = []

    def __call__(self, config: dict, stage_dir: Path, resume: bool = False, recipe: dict | None = None,
                 resume_dir: Path | None = None) -> dict:
        self.calls.append((stage_dir.name, resume, config.get("init_from")))
        self.recipes.append(recipe)
        stage_dir.mkdir(parents=True, exist_ok=True)
        (stage_dir / "config.json").write_text(json.dumps(config))
        (stage_dir / "state.json").write_text(json.dumps({"timesteps": config["timesteps"]}))
        (stage_dir / "final.zip").write_bytes(f"the weights of {stage_dir.name}".encode())
        (stage_dir / "final.json").write_text(json.dumps({
            "timesteps": config["timesteps"], "wall_time_s": WALL_TIMES[stage_dir.name], "evaluation": evaluation(stage_dir.name)}))
        return {}


def evaluation(stage: str) -> dict:
    return {"random": {"win_rate": int(stage.removeprefix("stage")) / 4}}


@pytest.fixture
def recipe(tmp_path) -> dict:
    path = tmp_path / "two.yaml"
    path.write_text(TWO_STAGES)
    return load_config(path)


def trained(recipe: dict, run: Path) -> Path:
    train_recipe(recipe, run, resume=False, recipe={"config": "two.yaml"}, train_stage=StandIn())
    return run


# --- a recipe's stages (training/recipe.py) ---------------------------------------------------------------
def test_a_fresh_recipe_trains_its_stages_in_order_and_says_it_is_done_naming_its_final_checkpoint(recipe, tmp_path, capsys):
    run = tmp_path / "runs" / "run"  # its parent made too
    stand_in = StandIn()
    result = train_recipe(recipe, run, resume=False, recipe={"config": "two.yaml", "overrides": ["seed=0"]}, train_stage=stand_in)
    assert stand_in.calls == [("stage1", False, None), ("stage2", False, str(run / "stage1" / "final.zip"))]
    assert stand_in.recipes == [{"config": "two.yaml", "overrides": ["seed=0"], "stage": k, "stages": 2} for k in (1, 2)]
    assert read(run / "recipe.json") == {"recipe": "two.yaml", "overrides": ["seed=0"], "stages": 2}
    assert capsys.readouterr().out.splitlines() == [
        f"recipe two.yaml: 2 stages -> {run}",
        f"stage 1/2: training snack_rabbits_v0 (2 players) for 64 timesteps -> {run / 'stage1'}",
        f"stage 2/2: training snack_rabbits_v0 (2 players) for 128 timesteps -> {run / 'stage2'}",
        f"recipe done: {run / 'final.zip'} (stage 2's final checkpoint)"]
    assert (run / "final.zip").read_bytes() == b"the weights of stage2"
    assert (run / "final.json").read_bytes() == (run / "stage2" / "final.json").read_bytes()
    assert result == {"checkpoint": str(run / "final.zip"), "evaluation": evaluation("stage2"), "wall_time_s": 2.6,
                      "timesteps": 64 + 128}


def test_a_recipes_result_is_its_last_stages_evaluation_and_all_its_stages_timesteps(recipe, tmp_path):
    recipe = {**recipe, "stages": [{}, {"timesteps": 128}, {"timesteps": 32}]}
    result = train_recipe(recipe, tmp_path / "run", resume=False, recipe=None, train_stage=StandIn())
    assert (result["evaluation"], result["timesteps"], result["wall_time_s"]) == (evaluation("stage3"), 64 + 128 + 32, 3.1)


def test_a_fresh_recipe_may_start_in_an_existing_empty_folder(recipe, tmp_path):
    run = tmp_path / "empty"
    run.mkdir()
    train_recipe(recipe, run, resume=False, recipe=None, train_stage=StandIn())
    assert (run / "final.zip").read_bytes() == b"the weights of stage2"
    assert read(run / "recipe.json") == {"recipe": None, "overrides": [], "stages": 2}


def test_a_fresh_recipe_into_a_folder_holding_a_run_is_refused_and_leaves_the_run_as_it_was(recipe, tmp_path):
    """A plain run's folder (no stage folders in it): the recipe must not write its config.json over the run's."""
    (tmp_path / "config.json").write_text('{"timesteps": 5}')
    (tmp_path / "state.json").write_text('{"timesteps": 5}')
    (tmp_path / "latest.zip").write_bytes(b"weights")
    before = files(tmp_path)
    stand_in = StandIn()
    with pytest.raises(ConfigError, match=re.escape(f"{tmp_path} holds a training run already")):
        train_recipe(recipe, tmp_path, resume=False, recipe=None, train_stage=stand_in)
    assert stand_in.calls == [] and files(tmp_path) == before


@pytest.mark.parametrize("resume", [False, True], ids=["fresh", "resumed"])
def test_a_recipe_handed_an_unchecked_config_refuses_it_before_any_stage_is_trained(resume, recipe, tmp_path):
    """train_recipe checks the config it is given (the sb3 backend's `train` hands a recipe on unchecked), as a
    fresh load and a --resume check it: a bad stage is a ConfigError, naming the run's config.json on resume."""
    run = tmp_path / "run"
    if resume:
        trained(recipe, run)
        for name in ("final.zip", "final.json"):
            (run / name).unlink()
            (run / "stage2" / name).unlink()
    bad = {**recipe, "stages": [{}, {"timesteps": -5}]}
    before = files(run) if resume else None
    stand_in = StandIn()
    source = re.escape(f"{run / 'config.json'}: ") if resume else ""
    with pytest.raises(ConfigError, match=f"^{source}stages\\[1\\]\\.timesteps=-5 is out of range"):
        train_recipe(bad, run, resume=resume, recipe=None, train_stage=stand_in)
    assert stand_in.calls == []
    assert (files(run) == before) if resume else not run.exists()


def test_a_resumed_recipe_skips_its_finished_stage_and_resumes_the_cut_one_from_its_own_config(recipe, tmp_path, capsys):
    run = trained(recipe, tmp_path / "run")
    for name in ("final.zip", "final.json"):  # stage 2 cut after a checkpoint, its config.json edited
        (run / name).unlink()
        (run / "stage2" / name).unlink()
    own = read(run / "stage2" / "config.json")
    (run / "stage2" / "config.json").write_text(json.dumps({**own, "timesteps": 256}))
    capsys.readouterr()
    stand_in = StandIn()
    result = train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=stand_in)
    assert stand_in.calls == [("stage2", True, str(run / "stage1" / "final.zip"))]
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [f"recipe two.yaml: 2 stages -> {run}",
                       f"stage 1/2 is finished: 64 timesteps, {run / 'stage1' / 'final.zip'}",
                       f"stage 2/2: resuming {run / 'stage2'}"]
    assert out[-1] == f"recipe done: {run / 'final.zip'} (stage 2's final checkpoint)"
    assert result["timesteps"] == 64 + 256 and read(run / "final.json")["timesteps"] == 256


def test_a_stage_stopped_before_its_first_checkpoint_starts_again_in_a_clean_folder(recipe, tmp_path, capsys):
    run = trained(recipe, tmp_path / "run")
    for name in ("final.zip", "final.json"):
        (run / name).unlink()
    for path in (run / "stage2").iterdir():
        path.unlink()
    (run / "stage2" / "eval.csv").write_text("a stray row\n")  # nothing in it to keep
    stand_in = StandIn()
    train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=stand_in)
    assert stand_in.calls == [("stage2", False, str(run / "stage1" / "final.zip"))]
    assert not (run / "stage2" / "eval.csv").exists() and (run / "final.zip").read_bytes() == b"the weights of stage2"


def test_a_recipe_resumed_without_its_recipe_json_names_its_config_json_and_goes_on(recipe, tmp_path, capsys):
    run = trained(recipe, tmp_path / "run")
    (run / "recipe.json").unlink()
    (run / "stage2" / "state.json").unlink()  # stage 2 stopped before its first checkpoint
    for name in ("final.zip", "final.json"):
        (run / name).unlink()
        (run / "stage2" / name).unlink()
    capsys.readouterr()
    stand_in = StandIn()
    train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=stand_in)
    assert capsys.readouterr().out.splitlines()[0] == f"recipe {run / 'config.json'}: 2 stages -> {run}"
    assert stand_in.calls == [("stage2", False, str(run / "stage1" / "final.zip"))]
    assert stand_in.recipes == [{"config": None, "overrides": [], "stage": 2, "stages": 2}]


def test_resuming_a_finished_recipe_says_so_and_rewrites_nothing(recipe, tmp_path, capsys):
    run = trained(recipe, tmp_path / "run")
    before = files(run)
    capsys.readouterr()
    stand_in = StandIn()
    result = train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=stand_in)
    assert stand_in.calls == [] and files(run) == before
    assert capsys.readouterr().out.splitlines()[1:] == [
        f"stage 1/2 is finished: 64 timesteps, {run / 'stage1' / 'final.zip'}",
        f"stage 2/2 is finished: 128 timesteps, {run / 'stage2' / 'final.zip'}",
        f"{run} is finished: 2 stages, final checkpoint {run / 'final.zip'}"]
    assert (result["timesteps"], result["wall_time_s"], result["checkpoint"]) == (64 + 128, 2.6, str(run / "final.zip"))


def test_a_recipe_cut_while_publishing_its_final_checkpoint_publishes_it_whole_on_resume(recipe, tmp_path, capsys):
    """publish() copies final.zip, then final.json: cut between the two, the recipe's final.zip is the last
    stage's and its final.json an older one; resuming must not take that pair for the published checkpoint."""
    run = trained(recipe, tmp_path / "run")
    (run / "final.json").write_text(json.dumps({"timesteps": 1, "wall_time_s": 0.5}))  # an older final.json
    capsys.readouterr()
    train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=StandIn())
    assert (run / "final.json").read_bytes() == (run / "stage2" / "final.json").read_bytes()
    assert (run / "final.zip").read_bytes() == b"the weights of stage2"
    assert capsys.readouterr().out.splitlines()[-1] == f"recipe done: {run / 'final.zip'} (stage 2's final checkpoint)"


@pytest.mark.parametrize("name", ["latest.zip", "final.zip"])
def test_an_unfinished_recipes_stage_holding_checkpoints_without_state_json_is_refused_and_kept(name, recipe, tmp_path):
    """A stage folder with checkpoints but no state.json (deleted, or damaged) cannot be resumed, and starting the
    stage over would delete its checkpoints: resuming refuses, naming them, and leaves the folder as it was."""
    run = trained(recipe, tmp_path / "run")
    for published in ("final.zip", "final.json"):
        (run / published).unlink()  # the recipe not finished: stage 2 is to be trained
    (run / "stage2" / "state.json").unlink()
    (run / "stage2" / "final.zip").unlink()
    (run / "stage2" / name).write_bytes(b"weights")
    before = files(run)
    stand_in = StandIn()
    with pytest.raises(ConfigError, match=re.escape(f"{run / 'stage2'} holds {name} but no state.json: it cannot be resumed")):
        train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=stand_in)
    assert stand_in.calls == [] and files(run) == before


@pytest.mark.parametrize("gone", ["stage2", "stage2/state.json"])
def test_resuming_a_finished_recipe_whose_last_stage_is_gone_is_refused_and_keeps_its_final_checkpoint(gone, recipe, tmp_path):
    """Training the last stage again would replace the recipe's published final.zip (the first stage gone is
    test_cli_fuzz_cases' case)."""
    run = trained(recipe, tmp_path / "run")
    target = run / gone
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    before = files(run)
    stand_in = StandIn()
    with pytest.raises(ConfigError, match=re.escape(f"{run} is a finished recipe ({run / 'final.zip'}), but {run / 'stage2'} "
                                                    "holds no run (no state.json): resuming would train stage 2 again")):
        train_recipe(read(run / "config.json"), run, resume=True, recipe=None, train_stage=stand_in)
    assert stand_in.calls == [] and files(run) == before


# --- a run's bookkeeping (training/run.py) -----------------------------------------------------------------
def test_the_wall_time_of_a_checkpoint_made_without_training_is_the_time_since_it_started(monkeypatch):
    """An average's or a pick's stage (training/recipe.py) has no time of its own before: its metadata's
    wall_time_s is the time since it started, and what its lineage took comes on top of it."""
    from snack_envs.training import run as run_module
    from snack_envs.training.run import checkpoint_metadata

    monkeypatch.setattr(run_module.time, "time", lambda: 1002.25)
    lineage = [{"checkpoint": "stage1/final.zip", "timesteps": 64, "wall_time_s": 10.03}]
    meta = checkpoint_metadata(load_config("quickstart"), 0, {"started": 1000.0, "lineage": lineage})
    assert (meta["wall_time_s"], meta["lineage_wall_time_s"]) == (2.2, 12.2)
    assert (meta["timesteps"], meta["lineage_timesteps"]) == (0, 64)


def test_a_run_resumed_from_a_state_json_without_its_wall_time_counts_from_zero(tmp_path):
    from snack_envs.training.run import start_run

    (tmp_path / "state.json").write_text('{"timesteps": 512, "last_eval": 512, "last_snapshot": 0, "snapshots": []}')
    state = start_run({"timesteps": 1024}, tmp_path, resume=True)
    assert (state["timesteps"], state["wall_time_before"]) == (512, 0.0)


def test_a_solo_evaluation_logs_its_mean_score_and_leaves_the_win_rate_cells_empty(tmp_path, capsys):
    from snack_envs.training.run import write_eval

    tags = []
    solo = {"mean_score_ci95": [31.5, 28.0, 35.0], "unfinished": 1}
    unfinished = {"mean_score_ci95": None, "unfinished": 4}  # no game finished: no mean score to log
    write_eval(tmp_path, 256, {"solo@1p": solo, "none@1p": unfinished}, lambda tag, value: tags.append((tag, value)))
    assert tags == [("eval/mean_score_solo@1p", 31.5)]
    assert (tmp_path / "eval.csv").read_text().splitlines()[1:] == ["256,solo@1p,,,,31.5,1", "256,none@1p,,,,,4"]
    assert "[256 steps] solo@1p: mean score 31.5, none@1p: mean score -" in capsys.readouterr().out


def test_pruning_a_dropped_snapshot_whose_metadata_is_gone_deletes_its_weights_without_an_error(tmp_path):
    """A run cut between writing a snapshot's weights and its metadata leaves a .zip alone."""
    from snack_envs.training.run import prune_snapshots

    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "step256.zip").write_bytes(b"zip")
    (tmp_path / "snapshots" / "step512.zip").write_bytes(b"zip")
    (tmp_path / "snapshots" / "step512.json").write_text("{}")
    prune_snapshots(tmp_path, {"snapshots": ["snapshots/step512.zip"]})
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == ["step512.json", "step512.zip"]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_a_final_evaluation_plays_final_games_on_its_own_seed_and_a_signal_in_it_stops_the_run_at_once(monkeypatch, capsys):
    import signal

    from snack_envs.training import run as run_module
    from snack_envs.training.run import StopSignals, TrainingInterrupted, evaluate_final

    played = []

    def evaluate(hero, config, games, seed):
        played.append((hero, games, seed))
        if len(played) == 2:
            signal.raise_signal(signal.SIGTERM)
        return {"random": {"win_rate": 0.5}}

    monkeypatch.setattr(run_module, "evaluate", evaluate)
    config = {"eval": {"games": 2, "final_games": 7}}
    with StopSignals() as stop:
        assert evaluate_final("hero", config, stop, "stopped in the final evaluation") == {"random": {"win_rate": 0.5}}
        assert played == [("hero", 7, 1_000_000)] and stop.signum is None
        with pytest.raises(TrainingInterrupted) as stopped:
            evaluate_final("hero", config, stop, "stopped in the final evaluation")
    assert (stopped.value.code, str(stopped.value)) == (143, "SIGTERM: stopped in the final evaluation")
    assert capsys.readouterr().err == "\nSIGTERM: stopped in the final evaluation\n"


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_stop_signals_defer_a_first_signal_again_once_an_evaluation_or_a_save_is_over():
    """at_once() and critical() hold only while they last: after them a first signal is noted, not raised."""
    import signal

    from snack_envs.training.run import Interrupted, StopSignals

    with StopSignals() as stop:
        with stop.at_once():
            with stop.at_once():  # nested: still at once when the inner one ends
                pass
            with pytest.raises(Interrupted) as at_once:
                signal.raise_signal(signal.SIGINT)
        assert (at_once.value.signum, at_once.value.forced) == (signal.SIGINT, False)
    with StopSignals() as stop:
        with stop.at_once():
            pass
        with stop.critical():
            with stop.critical():
                pass
            signal.raise_signal(signal.SIGTERM)  # in a save: noted
            signal.raise_signal(signal.SIGINT)  # a second one, still in the save: noted too
        assert stop.signum == signal.SIGTERM
    with StopSignals() as stop:
        with stop.at_once():
            pass
        with stop.critical():
            pass
        signal.raise_signal(signal.SIGINT)  # training again: only noted
        assert stop.signum == signal.SIGINT
        with pytest.raises(Interrupted) as forced:
            signal.raise_signal(signal.SIGINT)
        assert forced.value.forced


# --- the learning curve (training/run.py) ------------------------------------------------------------------
@pytest.fixture
def drawn(monkeypatch):
    """The figures learning_curve saves (it closes them after saving)."""
    import matplotlib.figure

    figures = []
    savefig = matplotlib.figure.Figure.savefig

    def keep(figure, *args, **kwargs):
        figures.append(figure)
        return savefig(figure, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    return figures


def scalars(folder: Path, points: dict[str, list[tuple[int, float]]]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(folder))
    for tag, series in points.items():
        for step, value in series:
            writer.add_scalar(tag, value, step)
    writer.close()


def plotted(axis) -> dict[str, tuple[list, list]]:
    return {line.get_label(): ([int(x) for x in line.get_xdata()], [float(y) for y in line.get_ydata()])
            for line in axis.get_lines()}


def test_a_learning_curve_draws_each_opponents_win_rate_over_every_resume_and_the_episode_reward(tmp_path, drawn):
    pytest.importorskip("tensorboard")
    import matplotlib.pyplot as plt

    from snack_envs.training.run import learning_curve

    run = tmp_path / "my-run"
    scalars(run / "tb" / "PPO_1", {"eval/win_rate_vs_random": [(256, 0.25), (512, 0.5)], "rollout/ep_rew_mean": [(256, 1.0)]})
    scalars(run / "tb" / "PPO_2", {"eval/win_rate_vs_random": [(768, 0.75)], "eval/win_rate_vs_heuristic": [(768, 0.125)]})
    open_before = plt.get_fignums()
    path = learning_curve(run)
    assert path == run / "learning_curve.png" and path.stat().st_size > 0
    assert plt.get_fignums() == open_before  # closed once saved: a process drawing many runs' curves keeps none open
    (figure,) = drawn
    evals, episodes = figure.axes
    assert figure.get_suptitle() == "my-run"
    lines = plotted(evals)
    assert lines["vs random"] == ([256, 512, 768], [0.25, 0.5, 0.75]) and lines["vs heuristic"] == ([768], [0.125])
    assert ([0, 1], [0.5, 0.5]) in lines.values()  # the even line
    assert (evals.get_title(), evals.get_xlabel(), evals.get_ylabel()) == ("masked evaluation", "timesteps", "win rate (ties 1/2)")
    assert tuple(evals.get_ylim()) == (0, 1)
    assert sorted(text.get_text() for text in evals.get_legend().get_texts()) == ["vs heuristic", "vs random"]
    assert list(plotted(episodes).values()) == [([256], [1.0])]
    assert (episodes.get_title(), episodes.get_ylabel()) == ("training episodes", "mean episode reward (last 100)")


def test_a_solo_runs_learning_curve_draws_its_mean_score_on_the_first_axis_without_a_win_rate(tmp_path, drawn):
    pytest.importorskip("tensorboard")
    from snack_envs.training.run import learning_curve

    run = tmp_path / "solo-run"
    scalars(run / "tb" / "PPO_1", {"eval/mean_score_solo": [(256, 12.0), (512, 15.5)]})
    learning_curve(run)
    (figure,) = drawn
    evals, episodes = figure.axes
    assert plotted(evals) == {"solo (mean score)": ([256, 512], [12.0, 15.5])}  # no even line: no win rate
    assert evals.get_ylabel() == "mean score" and [text.get_text() for text in evals.get_legend().get_texts()] == ["solo (mean score)"]
    assert plotted(episodes) == {}


def test_a_run_with_win_rates_and_a_solo_count_draws_the_mean_score_on_a_second_scale(tmp_path, drawn):
    pytest.importorskip("tensorboard")
    from snack_envs.training.run import learning_curve

    run = tmp_path / "mixed"
    scalars(run / "tb" / "PPO_1", {"eval/win_rate_vs_random@2p": [(256, 0.5)], "eval/mean_score_solo@1p": [(256, 20.0)]})
    learning_curve(run)
    (figure,) = drawn
    evals, episodes, twin = figure.axes
    assert "vs random@2p" in plotted(evals) and evals.get_ylabel() == "win rate (ties 1/2)"
    assert plotted(twin) == {"solo@1p (mean score)": ([256], [20.0])} and twin.get_ylabel() == "mean score"
    assert [text.get_text() for text in twin.get_legend().get_texts()] == ["solo@1p (mean score)"]
    assert [text.get_text() for text in evals.get_legend().get_texts()] == ["vs random@2p"]


def test_a_learning_curve_names_a_checkpoint_opponent_whose_path_holds_vs_by_its_whole_path(tmp_path, drawn):
    pytest.importorskip("tensorboard")
    from snack_envs.training.run import learning_curve

    run = tmp_path / "run"
    scalars(run / "tb" / "PPO_1", {"eval/win_rate_vs_runs/ppo_vs_heuristic/final.zip": [(256, 0.5)]})
    learning_curve(run)
    (figure,) = drawn
    assert "vs runs/ppo_vs_heuristic/final.zip" in plotted(figure.axes[0])
