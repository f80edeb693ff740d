"""A package of an optional extra that is not installed: one clear error naming the pip command, never a bare
"No module named ...". The commands print it as one line and exit with status 2, even for --help; the library
raises `snack_envs.extras.MissingExtraError` (a ModuleNotFoundError). A missing module that is none of our
extras' is a bug, and keeps its traceback.

Each case runs in a subprocess in which the package is hidden (`sys.modules[name] = None`, which makes its
import fail as if it were not installed): this process has every extra installed and imported.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from snack_envs import extras
from tests.helpers import CHECKPOINTS

ROOT = Path(__file__).resolve().parents[1]
WARS = str(CHECKPOINTS / "snack_wars_v0.zip")


def without(package: str, code: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter in which `package` cannot be imported."""
    hidden = f"import sys; sys.modules[{package!r}] = None\n"
    return subprocess.run([sys.executable, "-c", hidden + code], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


# (hidden package, console script, its argv, what its one line must name)
COMMANDS = [
    ("yaml", "snack_train", ["--help"], ["snack-train needs PyYAML", 'pip install "snack-envs[train]"']),
    ("numba", "snack_eval", ["--help"], ["snack-eval needs numba", 'pip install "snack-envs[train]"']),
    ("numba", "snack_ship", ["--help"], ["snack-ship needs numba", 'pip install "snack-envs[train]"']),
    ("torch", "snack_play", ["snack_wars_v0", "--opponents", WARS], ["checkpoint needs torch", '"snack-envs[train]"']),
    ("PIL", "snack_play", ["snack_rabbits_v0", "--replay", "game.gif"], ["needs Pillow", '"snack-envs[render]"']),
]


@pytest.mark.parametrize("package, script, argv, names", COMMANDS, ids=[f"{c[1]}-without-{c[0]}" for c in COMMANDS])
def test_a_command_missing_an_extra_says_which_in_one_line_and_exits_2(package, script, argv, names, tmp_path):
    done = without(package, f"from snack_envs.training import cli; cli.{script}({argv!r})", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"{script.replace('_', '-')}: error: "), done.stderr
    for name in names:
        assert name in done.stderr, done.stderr



# python -m snack_envs.training.<module>: what `-m` does, in the interpreter that hides the package
MODULES = [("yaml", "train", "snack-train needs PyYAML"), ("numba", "evaluate", "snack-eval needs numba"),
           ("numba", "ship", "snack-ship needs numba")]


@pytest.mark.parametrize("package, module, name", MODULES, ids=[f"{m[1]}-without-{m[0]}" for m in MODULES])
def test_python_dash_m_missing_an_extra_is_one_line_too(package, module, name, tmp_path):
    done = without(package, "import runpy, sys; sys.argv = ['-m', '--help']; "
                            f"runpy.run_module('snack_envs.training.{module}', run_name='__main__', alter_sys=True)",
                   cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert name in done.stderr and 'pip install "snack-envs[train]"' in done.stderr, done.stderr


def test_python_dash_m_runs_the_tool(tmp_path):
    done = subprocess.run([sys.executable, "-m", "snack_envs.training.demo", "--games", "1"], cwd=ROOT,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the demo printed nothing"

def test_the_commands_that_need_only_the_base_install_start_without_the_extras(tmp_path):
    for package in ("numba", "torch", "yaml", "PIL"):
        done = without(package, "from snack_envs.training import cli; cli.snack_demo(['--games', '1'])", cwd=tmp_path)
        assert done.returncode == 0, (package, done.stderr)


@pytest.mark.parametrize("package, code, names", [
    ("numba", "from snack_envs import batched; batched.make('snack_wars_v0', 2)",
     ["the batched engine", "needs numba", 'pip install "snack-envs[fast]"']),
    ("torch", f"from snack_envs.checkpoints import load_policy; load_policy({WARS!r})",
     ["loading a checkpoint needs torch", 'pip install "snack-envs[train]"']),
    ("PIL", "import snack_envs.snack_rabbits_v0 as g; e = g.env(render_mode='rgb_array'); e.reset(seed=0); e.render()",
     ["drawing pictures", "needs Pillow", 'pip install "snack-envs[render]"']),
])
def test_the_library_raises_missing_extra_error_naming_the_pip_command(package, code, names):
    done = without(package, code)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("snack_envs.extras.MissingExtraError: "), done.stderr[-2000:]
    for name in names:
        assert name in last, last


def test_a_missing_module_that_is_no_extras_is_a_bug_and_keeps_its_traceback(capsys):
    from snack_envs.training.cli import command

    @command("snack-test")
    def main(argv=None):
        import snack_envs.no_such_module  # noqa: F401

    with pytest.raises(ModuleNotFoundError) as raised:
        main([])
    assert not isinstance(raised.value, extras.MissingExtraError)
    assert capsys.readouterr().err == ""
    assert extras.explain(ModuleNotFoundError("x", name="snack_envs.no_such_module")) is None
    with pytest.raises(ModuleNotFoundError) as raised, extras.needed("anything"):
        raise ModuleNotFoundError("no llvmlite", name="llvmlite")  # a dependency's own dependency: its traceback
    assert not isinstance(raised.value, extras.MissingExtraError)


def test_a_submodule_of_an_extras_package_names_the_package_and_its_extra():
    explained = extras.explain(ModuleNotFoundError("no", name="torch.utils.tensorboard"), "logging")
    assert isinstance(explained, ModuleNotFoundError) and explained.name == "torch.utils.tensorboard"
    assert str(explained) == 'logging needs torch, which is not installed: pip install "snack-envs[train]"'
