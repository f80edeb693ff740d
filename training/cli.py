"""What the command-line tools share: one line and exit status 2 for a mistake of the user, a traceback for a bug.

    @command("snack-eval")
    def main(argv=None) -> None:
        parser = ArgumentParser(prog="snack-eval", description=...)
        parser.add_argument("--env", type=env_name, required=True)
        parser.add_argument("--games", type=positive_int, default=200)

A mistake of the user (a bad config, key or value, a malformed YAML file, a
missing or unfitting checkpoint, an unknown env, an argument out of range)
prints `snack-eval: error: <what is wrong>` on one line of stderr and exits
with status 2, as argparse does for a bad argument (whose errors this
`ArgumentParser` also prints on one line). Which exceptions are the user's is
listed in `user_errors()`; anything else is a bug and raises with its
traceback. A package of an extra that is not installed (numba for snack-eval,
PyYAML for snack-train, Pillow for a GIF replay, ...) is one line too, naming
the pip command that installs it (`snack_envs.extras`): the console scripts
enter through `launcher`, which imports the tool only when it runs, so even
`--help` says so rather than raising at import.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import math
import sys
from pathlib import Path
from typing import Callable, NoReturn

from snack_envs import extras, specs
from snack_envs.checkpoints import CheckpointError
from snack_envs.core.game import ConfigError

EXIT_USER_ERROR = 2  # argparse's status for a bad command line


class UsageError(ValueError):
    """A command-line value that does not fit what it is used for (a seat the game does not have, ...)."""


# OSErrors about a path the user gave (a missing --resume folder, an --out path that is a file, ...);
# one without a file name is not the user's.
PATH_ERRORS = (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError)


def user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that report a mistake of the user, not a bug."""
    errors: list[type[BaseException]] = [UsageError, ConfigError, CheckpointError, specs.UnknownEnvError, specs.RetiredEnvError]
    try:
        import yaml
    except ImportError:  # the envs-only install has no YAML configs
        pass
    else:
        errors.append(yaml.YAMLError)
    return (*errors, *PATH_ERRORS)


def one_line(error: BaseException | str) -> str:
    mark = getattr(error, "problem_mark", None)  # a yaml.MarkedYAMLError: where the YAML goes wrong
    if isinstance(error, PATH_ERRORS) and error.filename is not None:
        text = f"{error.strerror or error}: {error.filename}"
    elif mark is not None:
        where = "" if mark.name.startswith("<") else f"{mark.name}, "
        text = f"malformed YAML: {where}line {mark.line + 1}, column {mark.column + 1}: {error.problem}"
    else:
        text = str(error) or type(error).__name__
    return " ".join(text.split())


def fail(prog: str, error: BaseException | str) -> NoReturn:
    """Print `prog: error: <error>` as one line on stderr and exit with status 2."""
    print(f"{prog}: error: {one_line(error)}", file=sys.stderr)
    raise SystemExit(EXIT_USER_ERROR)


def command(prog: str) -> Callable[[Callable], Callable]:
    """Decorate a command's `main(argv=None)`: the user's mistakes end it with `fail` (see the module docstring)."""
    errors = user_errors()

    def decorate(main: Callable) -> Callable:
        @functools.wraps(main)
        def run(argv=None):
            try:
                return main(argv)
            except errors as error:
                if isinstance(error, PATH_ERRORS) and error.filename is None:
                    raise  # not about a path of the user's
                fail(prog, error)
            except ModuleNotFoundError as error:
                fail_if_extra_missing(prog, error)
                raise

        return run

    return decorate


def fail_if_extra_missing(prog: str, error: ModuleNotFoundError, extra: str | None = None) -> None:
    """`fail` naming the extra to install (`extra`, else the package's own) where `error` is a package of one
    of our extras; else return."""
    explained = extras.explain(error, prog, extra)
    if explained is not None:
        fail(prog, explained)


def launcher(prog: str, module: str, extra: str | None) -> Callable:
    """A console script's entry point: the `main` of `snack_envs.training.<module>`, imported when it runs.
    `extra` is what the command needs to start (None: the base install); a missing package names it."""

    def main(argv=None):
        try:
            tool = importlib.import_module(f"snack_envs.training.{module}")
        except ModuleNotFoundError as error:
            fail_if_extra_missing(prog, error, extra)
            raise
        return tool.main(argv)

    main.__name__ = main.__qualname__ = prog.replace("-", "_")
    return main


# The console scripts (pyproject.toml's [project.scripts]); each is also `python -m snack_envs.training.<module>`.
snack_demo = launcher("snack-demo", "demo", None)
snack_play = launcher("snack-play", "play", None)  # a checkpoint opponent needs `train`, a GIF replay `render`
snack_train = launcher("snack-train", "train", "train")
snack_eval = launcher("snack-eval", "evaluate", "train")
snack_ship = launcher("snack-ship", "ship", "train")
snack_curves = launcher("snack-curves", "curves", "train")
snack_average = launcher("snack-average", "average", "train")


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose errors (exit status 2) take one line: the usage is left to --help."""

    def error(self, message: str) -> NoReturn:
        fail(self.prog, f"{message} (see {self.prog} --help)")


def int_at_least(low: int):
    """An argparse type: an integer of at least `low`, else a one-line error naming the value."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"  # argparse names the type in its messages
    return parse


positive_int, nonnegative_int = int_at_least(1), int_at_least(0)


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0 (seconds, ...); NaN and infinities are refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
    return value


positive_float.__name__ = "number > 0"


def nonempty_path(text: str) -> Path:
    """An argparse type: a path; an empty one (`--run-dir "$DIR"` with DIR unset) is refused, not read as
    the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: give a file or folder (\".\" for the current folder)")
    return Path(text)


def env_name(text: str) -> str:
    """An env of this package by name; an unknown or retired one is refused with the known envs."""
    try:
        specs.get(text)
    except (specs.UnknownEnvError, specs.RetiredEnvError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text
