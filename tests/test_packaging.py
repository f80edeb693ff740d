"""The package as a new user gets it: a wheel built from this tree, installed without the repository.

Fast: the wheel's files. One top-level package (`snack_envs`; the training tools inside it as
`snack_envs.training`, never a generic top-level `training`), every source module in it, the
configs inside the package (`snack_envs/training/configs/`), `py.typed`, the licence, the
version of pyproject.toml, the commands' entry points.

Slow: the wheel installed three ways that share no file with the repository, with `--no-deps`
(the dependencies come from this test's own environment, put on the path as a plain folder, so
that its editable install of snack-envs stays out of sight) and no network: into a `--prefix`
folder, into `--user` (a user base of its own), and into a fresh venv. In each, run from a
folder that has its own `training/` package, the commands work: `snack-train --config
snack_wars` (a shipped config by name), `snack-eval`, and `snack-ship`,
which publishes into the current folder, not into the installed package; and the folder's
own `training` package is still its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# What the build reads: pyproject.toml, the readme and licence it names, and the package folders.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "snack_envs", "training", "configs")
FOLDERS = {"snack_envs": "snack_envs", "snack_envs/training": "training", "snack_envs/training/configs": "configs"}


def build_wheel(out: Path) -> Path:
    """Build the wheel from a copy of the sources (a stale build/ of the tree cannot leak into it), offline,
    with this environment's setuptools (the dev extra asks for one that reads pyproject's licence fields)."""
    source = out / "source"
    source.mkdir(parents=True)
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "--quiet", str(source), "-w", str(out / "dist")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip wheel failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    wheels = list((out / "dist").glob("snack_envs-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_sdist_holds_every_file_git_tracks_so_its_tests_run_from_it(tmp_path):
    """MANIFEST.in: an sdist missing tests/conftest.py, tests/helpers.py or the checkpoints would ship a test
    suite that cannot run (downstream packagers run it from the sdist)."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no list of the tracked files")
    tracked = set(listed.stdout.splitlines())
    source = tmp_path / "source"
    for name in tracked:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(tmp_path / 'dist')!r})"],
                          cwd=source, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"build_sdist failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    (sdist,) = (tmp_path / "dist").glob("snack_envs-*.tar.gz")
    with tarfile.open(sdist) as archive:
        held = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert not tracked - held, f"tracked files missing from the sdist: {sorted(tracked - held)[:20]}"
    assert not any(name.endswith(".pyc") for name in held)


def test_the_wheel_holds_one_top_level_package_with_the_configs_py_typed_and_the_licence(wheel):
    version = PYPROJECT["project"]["version"]
    assert wheel.name == f"snack_envs-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"snack_envs-{version}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    tops = {name.split("/")[0] for name in names if not name.startswith(info)}
    assert tops == {"snack_envs"}, f"the wheel installs top-level names besides snack_envs: {sorted(tops)}"
    # Every module and config of the tree, at its installed path (pyproject's explicit package list is complete).
    expected = {"snack_envs/py.typed"}
    for installed, folder in FOLDERS.items():
        for path in (ROOT / folder).glob("*.py" if folder == "configs" else "**/*.py"):
            expected.add(f"{installed}/{path.relative_to(ROOT / folder).as_posix()}")
    configs = {p.name for p in (ROOT / "configs").glob("*.yaml")}
    assert {"base.yaml", "quickstart.yaml", "snack_wars.yaml"} <= configs
    expected |= {f"snack_envs/training/configs/{name}" for name in configs}
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    assert f"{info}/licenses/LICENSE" in names
    assert f"\nVersion: {version}\n" in metadata and "\nLicense-Expression: MIT\n" in metadata
    assert "License-File: LICENSE" in metadata
    for command in ("snack-train", "snack-eval", "snack-play", "snack-demo", "snack-ship", "snack-curves", "snack-average"):
        assert f"{command} = snack_envs.training.cli:{command.replace('-', '_')}" in entry_points  # the launcher
    assert "= training." not in entry_points


# --- installed without the repository --------------------------------------------------------------------

DEPENDENCIES = sysconfig.get_path("purelib")  # this environment's site-packages: numpy, torch, sb3, ...
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)  # the interpreter under this venv: no editable install


def run(args, cwd, env, timeout=600) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done.stdout


def pip_install(target_python: str, wheel: Path, *options: str) -> None:
    """pip (this environment's) installs the wheel for `target_python`: no dependencies, no network."""
    run([sys.executable, "-m", "pip", "--python", target_python, "install", "--no-deps", "--no-index",
         "--no-warn-script-location", "--quiet", *options, wheel], cwd=wheel.parent, env=dict(os.environ))


def install(layout: str, wheel: Path, tmp: Path) -> tuple[str, Path, dict, Path]:
    """Install the wheel in `layout`; (the python to run, its scripts folder, the environment, its site-packages)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "VIRTUAL_ENV")}
    env.update(PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1")
    if layout == "venv":  # a fresh venv; the dependencies through a .pth file, as if installed there
        run([BASE_PYTHON, "-m", "venv", "--without-pip", tmp / "venv"], cwd=tmp, env=env)
        python = str(tmp / "venv" / "bin" / "python")
        pip_install(python, wheel)
        site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp, env).strip())
        (site / "_dependencies.pth").write_text(DEPENDENCIES + "\n")
        return python, tmp / "venv" / "bin", env, site
    if layout == "prefix":  # pip install --prefix: the user puts the folder on PYTHONPATH
        pip_install(BASE_PYTHON, wheel, "--prefix", str(tmp / "prefix"))
        site = Path(sysconfig.get_path("purelib", vars={"base": str(tmp / "prefix"), "platbase": str(tmp / "prefix")}))
        env["PYTHONPATH"] = os.pathsep.join([str(site), DEPENDENCIES])
        return BASE_PYTHON, tmp / "prefix" / "bin", env, site
    assert layout == "user"  # pip install --user, into a user base of its own
    env.pop("PYTHONNOUSERSITE")
    env["PYTHONUSERBASE"] = str(tmp / "userbase")
    pip_env = dict(os.environ, PYTHONUSERBASE=env["PYTHONUSERBASE"])
    run([sys.executable, "-m", "pip", "--python", BASE_PYTHON, "install", "--user", "--no-deps", "--no-index",
         "--no-warn-script-location", "--quiet", wheel], cwd=tmp, env=pip_env)
    site = Path(run([BASE_PYTHON, "-c", "import site; print(site.getusersitepackages())"], tmp, env).strip())
    env["PYTHONPATH"] = DEPENDENCIES
    return BASE_PYTHON, tmp / "userbase" / "bin", env, site


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["prefix", "user", "venv"])
def test_the_installed_wheel_trains_evaluates_and_ships_from_a_folder_with_its_own_training_package(wheel, tmp_path, layout):
    python, scripts, env, site = install(layout, wheel, tmp_path)
    assert (site / "snack_envs" / "training" / "configs" / "snack_wars.yaml").is_file()
    assert not (site / "training").exists()
    work = tmp_path / "work"  # the user's project, with a `training` package of its own
    (work / "training").mkdir(parents=True)
    (work / "training" / "__init__.py").write_text("")
    (work / "training" / "ship.py").write_text("print('their own training.ship')\n")

    where = json.loads(run([python, "-c", (
        "import json, snack_envs, training.ship, snack_envs.training.config as config;"
        "print(json.dumps([snack_envs.__version__, snack_envs.__file__, str(config.CONFIG_DIR), training.ship.__file__]))")],
        work, env).splitlines()[-1])
    assert where[0] == PYPROJECT["project"]["version"]
    assert Path(where[1]).is_relative_to(site) and Path(where[2]) == site / "snack_envs" / "training" / "configs"
    assert Path(where[3]) == work / "training" / "ship.py"  # theirs, not shadowed by (nor shadowing) ours

    def command(name, *args):  # a console script, run by the layout's python (no editable install in sight)
        return run([python, scripts / name, *args], work, env)

    if layout == "user":  # the same commands, on a checkpoint of the repository's (training is the same as above)
        (work / "run").mkdir()
        shutil.copy2(ROOT / "checkpoints" / "snack_wars_v0.zip", work / "run" / "final.zip")
        shutil.copy2(ROOT / "checkpoints" / "snack_wars_v0.json", work / "run" / "final.json")
        refused = subprocess.run([python, scripts / "snack-train", "--config", "snack_wars", "--set", "timestep=5"],
                                 cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert refused.returncode == 2 and "did you mean 'timesteps'" in refused.stderr, refused.stderr  # found, read
    else:
        trained = command("snack-train", "--config", "snack_wars", "--set", "timesteps=2048", "--set", "eval.games=10",
                          "--set", "eval.final_games=10", "--set", "algo.net_arch=[32]", "--set", "algo.n_epochs=1",
                          "--run-dir", "run")
        assert "trained 2048 timesteps" in trained, trained
    checkpoint = work / "run" / "final.zip"
    assert checkpoint.is_file()
    evaluated = command("snack-eval", "--env", "snack_wars_v0", "--agents", "random", "heuristic", "run/final.zip",
                        "--games", "2", "--out", "eval")
    assert "heuristic" in evaluated and (work / "eval" / "results.json").is_file()
    shipped = command("snack-ship", "run/final.zip", "--games", "2", "--force")
    assert "published checkpoints/snack_wars_v0.zip" in shipped, shipped
    assert (work / "checkpoints" / "snack_wars_v0.zip").is_file() and (work / "checkpoints" / "README.md").is_file()
    assert not list(site.rglob("checkpoints")), "ship wrote into the installed package"
