"""Training, evaluation and play tools for snack-envs: the package `snack_envs.training`.

This folder installs as `snack_envs.training` (pyproject.toml's package-dir; the editable install
maps it the same way), so that nothing installed claims the generic top-level name `training`.
Import it, and run its modules, by that name only (the commands `snack-train`, `snack-eval`,
`snack-play`, `snack-demo`, `snack-ship`, `snack-curves`, `snack-average`, or
`python -m snack_envs.training.<module>`): from the repository root the
folder could also be imported as `training`, which would load each of its files a second time,
under a second name, so that name is refused below.

    train.py       `snack-train`: the command line; reads the config, hands the run to a backend
    cli.py         what the commands share: their entry points; a user's mistake (or a missing extra) is one line
                   and exit status 2, a bug a traceback
    config.py      the configs (configs/*.yaml, shipped as snack_envs.training.configs): merged, overridden, validated
    backends/      one module per training backend: sb3.py (MaskablePPO, the default), rllib.py (Ray RLlib)
    run.py         a run on disk, whichever backend: folder, state.json, eval.csv, checkpoint metadata, curves
    imitate.py     cloning the heuristic into a fresh policy before PPO (the sb3 backend)
    evaluate.py    `snack-eval`: head-to-head matches, tournaments, ratings, replays of a game
    ratings.py     the ratings: a converged Plackett-Luce fit of every finishing order, with 95% intervals
    play.py        `snack-play`: a person at the terminal against agents
    replay.py      a game's positions written as a GIF, an MP4 or a text log
    demo.py        `snack-demo`: random play of every env
    average.py     weight averages of fine-tuned checkpoints
    arena.py       matches on the batched engine: any policies, any player count, many games at once
    ship.py        measuring checkpoints against the bar at every player count, publishing into ./checkpoints/

Every game is played by `snack_envs.core.rollout.play`, or many at once on the batched engine (arena.py);
games are looked up in `snack_envs.specs`.
"""

if __name__ != "snack_envs.training":
    raise ImportError(
        f"{__file__} is the package snack_envs.training, imported here as {__name__!r}: import it as "
        "snack_envs.training (python -m snack_envs.training.train, or snack-train) so that each of its "
        "modules is loaded once, under one name")
