"""Learning curves for a shipped checkpoint: its win share against each evaluation opponent over training.

    snack-curves runs/<run> checkpoints/speed_snacks_v1.zip
    snack-curves runs/<rerun> checkpoints/<name>.zip --note "A re-run of its recipe: ..."

    from snack_envs.training.curves import export_curve
    export_curve("runs/<run>", "checkpoints/speed_snacks_v1.zip")   # -> checkpoints/speed_snacks_v1.curve.csv, .curve.png

A run's evaluations are its eval.csv (training/run.py: a row per periodic
evaluation and opponent, keyed "heuristic@3p" where the run plays several player
counts) and the final evaluation in its final.json. A recipe's run (training/recipe.py)
has them in each stage's folder; they are read stage after stage. The x axis is
the timesteps of the whole lineage: a run's own timesteps plus those of every run
it started from (`init_from`, earlier stages), its metadata's `lineage_timesteps`
less its `timesteps` (from final.json, else latest.json).

`<name>.curve.csv`, beside the checkpoint, is tidy: one row per evaluation, opponent
and player count (timesteps, stage, stage_timesteps, opponent, num_players,
even_share = 1/n, win_rate with ties split and its 95% interval, mean_score,
unfinished, kind: periodic or final; a solo evaluation, opponent "solo" and
num_players 1, has a mean score and empty win-rate cells). `<name>.curve.png`
draws a panel per player count, a line per opponent with its interval shaded,
the even share 1/n dashed and the stage boundaries dotted; solo's panel draws
the mean score. The docs show them (docs/learning-curves.md).
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_curves  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_curves())

import csv
import io
import re
from pathlib import Path

from snack_envs.checkpoints import write_atomic, write_json_atomic
from snack_envs.core.game import ConfigError
from snack_envs.training.cli import ArgumentParser, UsageError, command, nonempty_path
from snack_envs.training.config import read_run_json
from snack_envs.training.outcomes import eval_figures

COLUMNS = ["timesteps", "stage", "stage_timesteps", "opponent", "num_players", "even_share", "win_rate",
           "win_rate_ci95_low", "win_rate_ci95_high", "mean_score", "unfinished", "kind"]
KEY = re.compile(r"^(?P<opponent>.+)@(?P<n>\d+)p$")  # "heuristic@3p": evaluated at 3 players


def curve_paths(checkpoint_path: str | Path) -> tuple[Path, Path]:
    """Where the curve of the checkpoint `<dir>/<name>.zip` goes: `<dir>/<name>.curve.csv` and `.curve.png`."""
    checkpoint_path = Path(checkpoint_path)
    stem = checkpoint_path.name.removesuffix(".zip")
    return checkpoint_path.with_name(f"{stem}.curve.csv"), checkpoint_path.with_name(f"{stem}.curve.png")


def run_folders(run_dir: str | Path) -> list[Path]:
    """The run folders of a run, in training order: a recipe's stage1/, stage2/, ..., else the run itself."""
    run_dir = Path(run_dir)
    stages = []
    while (run_dir / f"stage{len(stages) + 1}").is_dir():
        stages.append(run_dir / f"stage{len(stages) + 1}")
    return stages or [run_dir]


def _meta(folder: Path) -> dict | None:
    for name in ("final.json", "latest.json"):
        if (folder / name).is_file():
            return read_run_json(folder / name, "a checkpoint's metadata", ("timesteps",))
    return None


def _env(folder: Path) -> dict:
    """The `env` of the run in `folder`'s config.json (a ConfigError if it has none)."""
    env = read_run_json(folder / "config.json", "a run's config", ("env",))["env"]
    if not isinstance(env, dict) or "num_players" not in env:
        raise ConfigError(f"{folder / 'config.json'} is not a run's config: its env lacks num_players")
    return env


def _counts(folder: Path, meta: dict | None) -> list[int]:
    """The player counts the run in `folder` played (its config.json, else its metadata)."""
    if (folder / "config.json").is_file():
        n = _env(folder)["num_players"]
        return list(n) if isinstance(n, list) else [n]
    if meta:
        return list(meta.get("player_counts") or [meta["num_players"]])
    raise FileNotFoundError(2, "no training run there (no config.json, final.json or latest.json)", str(folder))


def run_env_name(run_dir: str | Path) -> str | None:
    """The env the run in `run_dir` trained (a recipe's: its last stage's): from its config.json, else its
    metadata; None where neither says."""
    folder = run_folders(run_dir)[-1]
    if (folder / "config.json").is_file():
        return _env(folder).get("name")
    meta = _meta(folder)
    return meta.get("env_name") if meta else None


def _opponent(key: str, counts: list[int]) -> tuple[str, int]:
    """An evaluation key ("heuristic", or "heuristic@3p" in a run of several player counts) -> (opponent, count)."""
    match = KEY.match(key)
    if match and len(counts) > 1:
        return match["opponent"], int(match["n"])
    return key, counts[0]


def _number(cell) -> float:
    """A cell as a float; NaN where it is empty (a solo evaluation has no win rate; no finished game, no mean score)."""
    return float("nan") if cell in ("", None) else float(cell)


def read_curve(run_dir: str | Path) -> list[dict]:
    """Every evaluation of a run (a recipe's: of every stage), as the rows of the curve (see the module
    docstring), in training order, x being the timesteps of the whole lineage."""
    rows: list[dict] = []
    offset = 0
    for stage, folder in enumerate(run_folders(run_dir), 1):
        meta = _meta(folder)
        if meta is not None:
            offset = meta.get("lineage_timesteps", meta["timesteps"]) - meta["timesteps"]
        counts = _counts(folder, meta)

        def row(steps, key, win_rate, low, high, mean_score, unfinished, kind):  # called in this iteration only
            opponent, n = _opponent(key, counts)  # noqa: B023
            return {"timesteps": offset + steps, "stage": stage, "stage_timesteps": steps, "opponent": opponent,  # noqa: B023
                    "num_players": n, "even_share": 1 / n, "win_rate": _number(win_rate), "win_rate_ci95_low": _number(low),
                    "win_rate_ci95_high": _number(high), "mean_score": _number(mean_score), "unfinished": int(unfinished),
                    "kind": kind}

        last = 0
        if (folder / "eval.csv").is_file():
            with (folder / "eval.csv").open(newline="") as f:
                reader = csv.DictReader(f)
                for r in reader:
                    try:
                        last = int(r["timesteps"])
                        rows.append(row(last, r["opponent"], r["win_rate"], r["win_rate_ci95_low"], r["win_rate_ci95_high"],
                                        r["mean_score"], r.get("unfinished") or 0, "periodic"))
                    except (KeyError, TypeError, ValueError) as error:  # a column missing, or a cell no number
                        raise ConfigError(f"{folder / 'eval.csv'}, line {reader.line_num}: not a row of a run's "
                                          f"evaluations ({type(error).__name__}: {error})") from None
        final = _meta(folder) if (folder / "final.json").is_file() else None
        if final:
            last = final["timesteps"]
            for key, r in final.get("evaluation", {}).items():
                rows.append(row(last, key, *eval_figures(r), r.get("unfinished", 0), "final"))
        offset += last  # where the next stage starts, should its metadata not say
    return rows


def write_csv(rows: list[dict], path: Path) -> Path:
    """The curve's rows as a CSV (COLUMNS), written whole or not at all (`write_atomic`)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(path, lambda f: f.write(text.getvalue().encode()), "wb")
    return path


def plot(rows: list[dict], path: Path, title: str) -> Path:
    """The curve as a PNG: a panel per player count, a line per opponent (95% interval shaded, final
    evaluations as larger markers), the even share 1/n dashed, stage boundaries dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = sorted({r["num_players"] for r in rows}) or [2]
    fig, axes = plt.subplots(1, len(counts), figsize=(5.5 * len(counts), 4), squeeze=False)
    starts = sorted({(r["stage"], r["timesteps"] - r["stage_timesteps"]) for r in rows})
    boundaries = sorted({x for stage, x in starts if stage > 1})
    every_opponent = list(dict.fromkeys(r["opponent"] for r in rows))  # one colour each, the same in every panel
    for ax, n in zip(axes[0], counts):
        if n == 1:  # solo: the mean score over training, on its own scale
            points = sorted((r for r in rows if r["num_players"] == 1), key=lambda r: (r["timesteps"], r["kind"] == "final"))
            ax.plot([r["timesteps"] for r in points], [r["mean_score"] for r in points], color="C3", marker=".",
                    label="mean score")
            finals = [r for r in points if r["kind"] == "final"]
            ax.scatter([r["timesteps"] for r in finals], [r["mean_score"] for r in finals], color="C3", s=40, zorder=3)
            scored = [r["mean_score"] for r in points if r["mean_score"] == r["mean_score"]]  # NaN: no game finished
            ax.set(ylabel="mean score", title="solo", ylim=(0, max(scored, default=1.0) * 1.1))
        for opponent in dict.fromkeys(r["opponent"] for r in rows if r["num_players"] == n > 1):
            points = sorted((r for r in rows if r["num_players"] == n and r["opponent"] == opponent),
                            key=lambda r: (r["timesteps"], r["kind"] == "final"))
            xs = [r["timesteps"] for r in points]
            colour = f"C{every_opponent.index(opponent)}"
            ax.plot(xs, [r["win_rate"] for r in points], color=colour, marker=".", label=f"vs {opponent}")
            ax.fill_between(xs, [r["win_rate_ci95_low"] for r in points], [r["win_rate_ci95_high"] for r in points],
                            color=colour, alpha=0.15, lw=0)
            finals = [r for r in points if r["kind"] == "final"]
            ax.scatter([r["timesteps"] for r in finals], [r["win_rate"] for r in finals], color=colour, s=40, zorder=3)
        if n > 1:
            ax.axhline(1 / n, color="grey", lw=1, ls="--", label=f"even share 1/{n}")
            ax.set(title=f"{n} players", ylim=(0, 1))
        for x in boundaries:
            ax.axvline(x, color="grey", lw=0.8, ls=":")
        ax.set(xlabel="timesteps (whole lineage)")
        ax.legend(loc="lower right", fontsize="small")
    multi = [ax for ax, n in zip(axes[0], counts) if n > 1]
    if multi:
        multi[0].set_ylabel("win share (ties split)")
    fig.suptitle(title)
    fig.tight_layout()
    write_atomic(path, lambda f: fig.savefig(f, dpi=90, format="png"), "wb")
    plt.close(fig)
    return path


def export_curve(run_dir: str | Path, checkpoint_path: str | Path) -> tuple[Path, Path]:
    """Write the learning curve of the run in `run_dir` (a recipe's: all its stages) beside the checkpoint
    `checkpoint_path` (`<name>.zip`, which need not exist yet): `<name>.curve.csv` and `<name>.curve.png`.
    Returns their paths. A FileNotFoundError if the run has no evaluation at all."""
    rows = read_curve(run_dir)
    if not rows:
        raise FileNotFoundError(2, "the run has no evaluation (no eval.csv, no final.json) to draw", str(run_dir))
    csv_path, png_path = curve_paths(checkpoint_path)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    write_csv(rows, csv_path)
    figure = "win share" if any(r["num_players"] > 1 for r in rows) else "mean score"
    plot(rows, png_path, f"{Path(checkpoint_path).name}: {figure} over training ({Path(run_dir).name})")
    return csv_path, png_path


@command("snack-curves")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-curves", description=__doc__.splitlines()[0])
    parser.add_argument("run", type=nonempty_path, help="the run folder (a recipe's: the folder holding stage1/, stage2/, ...)")
    parser.add_argument("checkpoint", type=nonempty_path, help="the checkpoint (.zip) the curve goes beside, e.g. checkpoints/<name>.zip")
    parser.add_argument("--note", default="", help="which run the curve is of, where it is not the checkpoint's own run: "
                                                   "stored as the metadata's curve_note and shown under the curve in the docs")
    args = parser.parse_args(argv)
    if not args.run.is_dir():
        raise FileNotFoundError(2, "no run folder", str(args.run))
    if not args.checkpoint.name:
        parser.error(f"checkpoint {args.checkpoint} names no file: give the checkpoint's path, e.g. checkpoints/<name>.zip")
    meta_path = args.checkpoint.with_suffix(".json")
    meta = read_run_json(meta_path, "a checkpoint's metadata") if meta_path.is_file() else None
    if args.note and meta is None:
        parser.error(f"--note needs the checkpoint's metadata, and {meta_path} is not there")
    if meta is not None:  # a checkpoint's curve is drawn from a run of its game, never over it from another's
        trained, ran = meta.get("env_name"), run_env_name(args.run)
        if trained and ran and trained != ran:
            raise UsageError(f"{args.run} is a run of {ran}, but {args.checkpoint} is a checkpoint of {trained}: "
                             f"its curve is drawn from a run of {trained}")
    for path in export_curve(args.run, args.checkpoint):
        print("wrote", path)
    if args.note:
        write_json_atomic(meta_path, dict(meta, curve_note=args.note))
        print("wrote", meta_path)
