"""Cases found by a mutation probe of training/recipe.py (a recipe of stages trained by one `snack-train`):
behaviour the other recipe tests (test_recipes.py, test_recipe_edges.py, test_cli_fuzz_cases.py) did not pin
down, each on a tiny two-stage recipe (64 timesteps a stage, 2 envs, no imitation) or on no training at all."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.training import train  # noqa: E402
from snack_envs.training.run import EVAL_CSV_HEADER  # noqa: E402
from tests.helpers import run_main  # noqa: E402
from tests.training.test_cli_fuzz_cases import ONE_STAGE_RECIPE, assert_one_line, digests  # noqa: E402

TWO_STAGES = ONE_STAGE_RECIPE + "  - {algo: {learning_rate: 0.0}}\n"


def read(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def recipe_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("probe")
    (folder / "two.yaml").write_text(TWO_STAGES)
    return folder


@pytest.fixture(scope="module")
def trained(recipe_folder) -> tuple[Path, str]:
    """The two-stage recipe trained with `--set seed=3` into run/; the run and what snack-train printed."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        patch.chdir(recipe_folder)
        train.main(["--config", "two.yaml", "--set", "seed=3", "--run-dir", "run"])
    return recipe_folder / "run", out.getvalue()


@pytest.mark.parametrize("stage", ["stage1", "stage2"])  # the first stage; the last
def test_a_fresh_recipe_into_a_folder_whose_stage_holds_a_run_is_refused_and_writes_nothing(recipe_folder, tmp_path, stage, capsys):
    run = tmp_path / "run"
    (run / stage).mkdir(parents=True)
    (run / stage / "state.json").write_text('{"timesteps": 0}')
    before = digests(run)
    code, out, err = run_main(train, ["--config", str(recipe_folder / "two.yaml"), "--run-dir", str(run)], capsys)
    assert_one_line(code, err, "snack-train", str(run / stage), "holds a training run already")
    assert digests(run) == before and sorted(p.name for p in run.iterdir()) == [stage]


def test_a_recipes_overrides_are_recorded_and_reach_every_stage_resumed_or_not(trained, tmp_path, capsys):
    run, out = trained
    assert out.splitlines()[0] == f"recipe two.yaml: 2 stages -> {Path('run')}"
    assert f"trained {2 * 64} timesteps" in out  # the stages' timesteps together
    assert read(run / "recipe.json") == {"recipe": "two.yaml", "overrides": ["seed=3"], "stages": 2}
    for stage in ("stage1", "stage2"):
        assert read(run / stage / "final.json")["recipe_overrides"] == ["seed=3"]

    # stage 2 cut before its first checkpoint (its config.json and a stray eval.csv row, no state.json): started
    # over on --resume in a clean folder, the recipe's overrides kept
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    shutil.rmtree(copy / "stage2")
    (copy / "final.zip").unlink(), (copy / "final.json").unlink()
    (copy / "stage2").mkdir()
    shutil.copyfile(run / "stage2" / "config.json", copy / "stage2" / "config.json")
    (copy / "stage2" / "eval.csv").write_text(",".join(EVAL_CSV_HEADER) + "\n999,random,0.5,0.1,0.9,40.0,0\n")
    code, out, err = run_main(train, ["--resume", str(copy)], capsys)
    assert code == 0, err
    assert "stage 1/2 is finished" in out and "stage 1/2: resuming" not in out and "stage 2/2: training" in out
    assert f"trained {2 * 64} timesteps" in out  # stage 1 counted once
    meta = read(copy / "stage2" / "final.json")
    assert (meta["recipe"], meta["stage"], meta["recipe_overrides"]) == ("two.yaml", 2, ["seed=3"])
    assert (copy / "final.json").read_bytes() == (copy / "stage2" / "final.json").read_bytes()
    evals = copy / "stage2" / "eval.csv"
    assert "999," not in (evals.read_text() if evals.exists() else "")


def test_a_resumed_finished_recipe_returns_its_stages_timesteps_and_wall_time_together(trained, tmp_path):
    from snack_envs.training.config import load_run_config
    from snack_envs.training.recipe import train_recipe

    run = tmp_path / "run"
    shutil.copytree(trained[0], run)
    for stage, wall in (("stage1", 0.3), ("stage2", 0.4)):  # figures whose sum, rounded to 0.1 s, is not whole
        meta = read(run / stage / "final.json")
        (run / stage / "final.json").write_text(json.dumps({**meta, "wall_time_s": wall}))

    def train_stage(*args, **kwargs):
        pytest.fail("a finished stage was trained again")

    result = train_recipe(load_run_config(run), run, resume=True, recipe=None, train_stage=train_stage)
    assert (result["timesteps"], result["wall_time_s"], result["checkpoint"]) == (2 * 64, 0.7, str(run / "final.zip"))
    assert (run / "final.json").read_bytes() == (run / "stage2" / "final.json").read_bytes()  # published again


AVERAGE_AND_SELECT = TWO_STAGES + """\
  - {average: [1, 2]}
  - {select: {stage: 1, at: [32], against: random, players: [2], games: 2, seeds: [0]}}
"""


def test_a_stage_that_trains_nothing_is_made_on_resume_though_its_folder_exists(tmp_path, capsys):
    """An average's or a pick's folder left without its final.zip and final.json (made by hand, or a crash
    before they were written) is no reason to stop: resuming makes the stage in it."""
    (tmp_path / "four.yaml").write_text(AVERAGE_AND_SELECT)
    run = tmp_path / "run"
    code, _, err = run_main(train, ["--config", str(tmp_path / "four.yaml"), "--run-dir", str(run)], capsys)
    assert code == 0, err
    made = {k: read(run / f"stage{k}" / "final.json") for k in (3, 4)}
    for k in (3, 4):
        shutil.rmtree(run / f"stage{k}")
        (run / f"stage{k}").mkdir()
    (run / "final.zip").unlink(), (run / "final.json").unlink()
    code, out, err = run_main(train, ["--resume", str(run)], capsys)
    assert code == 0, err
    assert "stage 3/4: averaging" in out and "stage 4/4: picking" in out
    again = {k: read(run / f"stage{k}" / "final.json") for k in (3, 4)}
    assert [e["checkpoint"] for e in again[3]["averaged_from"]] == [e["checkpoint"] for e in made[3]["averaged_from"]]
    assert again[4]["selected"] == made[4]["selected"]
    assert (run / "final.json").read_bytes() == (run / "stage4" / "final.json").read_bytes()


def test_an_averages_lineage_keeps_another_recipes_stages_behind_stage_1_before_its_own():
    """`joined_lineage` sorted every entry by its stage number, so a stage 1 started (`init_from`) from another
    recipe's checkpoint had that recipe's stages interleaved with its own in the average's lineage."""
    from snack_envs.training.recipe import joined_lineage

    def entry(recipe: str, stage: int | None, timesteps: int = 64) -> dict:
        if stage is None:  # a run outside a recipe
            return {"checkpoint": f"{recipe}.zip", "timesteps": timesteps}
        return {"recipe": recipe, "stage": stage, "checkpoint": f"{recipe}/stage{stage}.zip", "timesteps": timesteps}

    def names(lineage: list[dict]) -> list[str]:
        return [e["checkpoint"] for e in lineage]

    theirs = [entry("theirs", k, 1000) for k in (1, 2, 3)]
    mine1, mine2 = entry("mine", 1), entry("mine", 2)
    assert names(joined_lineage([[*theirs, mine1], [*theirs, mine1, mine2]])) == [
        "theirs/stage1.zip", "theirs/stage2.zip", "theirs/stage3.zip", "mine/stage1.zip", "mine/stage2.zip"]
    # stages in no order of their own: by stage; a lone run behind stage 2 before it; a branch's source once, whole
    assert names(joined_lineage([[mine2], [mine1]])) == ["mine/stage1.zip", "mine/stage2.zip"]
    lone = entry("lone", None)
    assert names(joined_lineage([[mine1], [lone, mine2]])) == ["lone.zip", "mine/stage1.zip", "mine/stage2.zip"]
    joined = joined_lineage([[entry("mine", 1, 32), mine2], [mine1]])
    assert names(joined) == ["mine/stage1.zip", "mine/stage2.zip"] and joined[0]["timesteps"] == 64


def test_a_finished_stages_metadata_without_its_wall_time_is_one_line_on_resume(trained, tmp_path, capsys):
    """The totals of a resumed recipe add up its stages' wall times: a final.json without one ended in a
    KeyError after the recipe said it was finished."""
    run = tmp_path / "run"
    shutil.copytree(trained[0], run)
    meta = read(run / "stage2" / "final.json")
    del meta["wall_time_s"]
    (run / "stage2" / "final.json").write_text(json.dumps(meta))
    before = digests(run)
    code, _, err = run_main(train, ["--resume", str(run)], capsys)
    assert_one_line(code, err, "snack-train", str(run / "stage2" / "final.json"), "lacks wall_time_s")
    assert digests(run) == before
