"""The optional dependencies: which extra of snack-envs installs each, and one clear error where one is missing.

The PettingZoo envs need only the base install; the batched engine, checkpoints, training,
pictures and the integrations need extras (pyproject.toml). Code that needs one imports it
inside `needed(...)`:

    with extras.needed("the batched engine"):
        import numba

so that a missing package is a `MissingExtraError` (a ModuleNotFoundError) whose message names
the pip command that installs it, rather than a bare "No module named 'numba'". The command-line
tools print that message on one line and exit with status 2 (snack_envs.training.cli).
"""

from __future__ import annotations

import contextlib
from typing import Iterator

# top-level module -> (its distribution on PyPI, the extra of snack-envs that installs it)
PROVIDER = {
    "numba": ("numba", "fast"),
    "torch": ("torch", "train"),
    "stable_baselines3": ("stable-baselines3", "train"),
    "sb3_contrib": ("sb3-contrib", "train"),
    "tensorboard": ("tensorboard", "train"),
    "tqdm": ("tqdm", "train"),
    "rich": ("rich", "train"),
    "yaml": ("PyYAML", "train"),
    "matplotlib": ("matplotlib", "train"),
    "scipy": ("scipy", "train"),
    "PIL": ("Pillow", "render"),
    "imageio": ("imageio", "render"),
    "imageio_ffmpeg": ("imageio-ffmpeg", "render"),
    "ray": ("ray[rllib]", "rllib"),
    "torchrl": ("torchrl", "torchrl"),
    "tensordict": ("tensordict", "torchrl"),
    "mkdocs": ("mkdocs", "docs"),
}


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency that is not installed; the message says which extra installs it."""


def explain(error: ModuleNotFoundError, purpose: str = "this", extra: str | None = None) -> MissingExtraError | None:
    """`error` as a MissingExtraError saying that `purpose` needs the missing package and which extra
    installs it (`extra`, where the caller needs more of it than the one package: a command's whole
    extra); None where the missing module is none of our extras' (a bug of ours, or a broken install
    of a dependency, which keeps its traceback). A MissingExtraError is returned as it is unless `extra`
    is given."""
    if isinstance(error, MissingExtraError) and extra is None:
        return error
    top = (error.name or "").partition(".")[0]
    if top not in PROVIDER:
        return None
    package, own_extra = PROVIDER[top]
    return MissingExtraError(
        f'{purpose} needs {package}, which is not installed: pip install "snack-envs[{extra or own_extra}]"',
        name=error.name)


@contextlib.contextmanager
def needed(purpose: str) -> Iterator[None]:
    """Turn a missing optional package imported inside the block into a MissingExtraError about `purpose`."""
    try:
        yield
    except ModuleNotFoundError as error:
        explained = explain(error, purpose)
        if explained is None or explained is error:
            raise
        raise explained from None
