"""Training, evaluation and play tools for snack-envs.

    train.py       `snack-train`: the command line; reads the config, hands the run to a backend
    config.py      configs/*.yaml: merged, overridden, validated
    backends/      one module per training backend: sb3.py (MaskablePPO, the default), rllib.py (Ray RLlib)
    run.py         a run on disk, whichever backend: folder, state.json, eval.csv, checkpoint metadata, curves
    opponents.py   the opponent drawn per seat and episode (random / heuristic / snapshots), for both backends
    imitate.py     cloning the heuristic into a fresh policy before PPO (the sb3 backend)
    evaluate.py    `snack-eval`: head-to-head matches, tournaments, Elo, replays of a game
    play.py        `snack-play`: a person at the terminal against agents
    replay.py      a game's positions written as a GIF or a text log
    demo.py        `snack-demo`: random play of every env
    average.py     weight averages of fine-tuned checkpoints
    ship.py        measuring a checkpoint against the bar and publishing it under checkpoints/

Every game is played by `snack_envs.core.rollout.play`; games are looked up in `snack_envs.specs`.
"""
