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
traceback.
"""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Callable, NoReturn

from snack_envs import specs
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

        return run

    return decorate


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


def env_name(text: str) -> str:
    """An env of this package by name; an unknown or retired one is refused with the known envs."""
    try:
        specs.get(text)
    except (specs.UnknownEnvError, specs.RetiredEnvError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text
