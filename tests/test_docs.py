"""The documentation site builds with `mkdocs build --strict` (a broken link, a missing page or snippet, an
unresolvable reference in a docstring fails it), and its pages show what they promise: each env page its
actions, observation slices, rules, picture and replay; the checkpoint table every checkpoint; the
integration pages the example files as they are. No network: nothing in mkdocs.yml fetches anything."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snack_envs import specs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["pettingzoo", "gymnasium", "sb3", "rllib", "torchrl"]
API_PAGES = {  # page -> a name its module defines
    "specs": "GameSpec",
    "batched": "available",
    "core.batched": "BatchedEnv",
    "agents": "make_policy",
    "checkpoints": "load_policy",
    "opponents": "OpponentMix",
    "lookahead": "LookaheadPolicy",
    "search": "SearchPolicy",
    "single_agent": "SingleAgentEnv",
    "core.env": "TurnBasedEnv",
    "core.game": "IllegalActionError",
    "core.parallel": "SimultaneousEnv",
    "recording": "record_episode",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason=f"the docs extra is not installed ({module}): pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    start = time.perf_counter()
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stdout[-3000:]}\n{build.stderr[-6000:]}"
    assert "requires either Black or Ruff" not in build.stderr, "the docs extra lacks the signature formatter (ruff)"
    print(f"docs built in {time.perf_counter() - start:.1f} s")
    return out


def page_text(site: Path, page: str) -> str:
    """The text of a built page's article, tags removed (code keeps its characters and line breaks)."""
    path = site / page / "index.html"
    assert path.exists(), f"no page {page}/ in the site"
    article = path.read_text().split('<article class="md-content__inner', 1)[1].split("</article>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", article))


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("spec", specs.SPECS, ids=lambda s: s.env_name)
def test_env_page(site, spec):
    text = page_text(site, f"envs/{spec.env_name}")
    flat = words(text)
    env = spec.raw_env()
    num_actions = env.action_space(env.possible_agents[0]).n
    # The env docstring as it is at run time (an f-string): its actions, options and observation slices.
    assert f"Discrete({num_actions})" in flat, "the env docstring's action table is not on the page"
    for row in ("Agents", "Actions", "Observation", "Rewards", "Options", "Version"):
        assert row in text
    for field in spec.module("observation").LAYOUT.fields:
        assert field.name in text, f"observation slice {field.name} missing"
    entry_points = ["env", "raw_env", "parallel_env"] + (["raw_parallel_env"] if spec.simultaneous else [])
    for name in entry_points:
        assert f"{name}(**kwargs)" in flat.replace(" ", ""), f"entry point {name} missing"
    # The rules the env implements, with the readings chosen where the rulebook is silent.
    assert "Readings chosen where the rulebook is silent" in flat
    rules_doc = words(spec.module("rules").__doc__.splitlines()[0])
    assert rules_doc in flat
    # The picture and the replay.
    source = (site / "envs" / spec.env_name / "index.html").read_text()
    assert f"../../images/{spec.name}.png" in source and (site / "images" / f"{spec.name}.png").exists()
    assert f"../../replays/{spec.env_name}.gif" in source
    assert (site / "replays" / f"{spec.env_name}.gif").read_bytes()[:6] == b"GIF89a"


def test_checkpoints_page_lists_every_checkpoint(site):
    text = words(page_text(site, "checkpoints"))
    metas = sorted((ROOT / "checkpoints").glob("*.json"))
    assert metas
    for path in metas:
        meta = json.loads(path.read_text())
        assert f"{path.stem}.zip" in text
        for n, measured in meta.get("bar", {}).get("counts", {}).items():  # as `snack-ship` stores it
            figure = (f"{measured['vs_heuristic']['win_rate']:.3f}" if "vs_heuristic" in measured
                      else f"{measured['solo']['mean_score_ci95'][0]:.1f}")
            assert figure in text, f"{path.name}, {n} players: its figure against the heuristic is not in the table"


def test_integration_pages_show_the_examples_the_tests_run(site):
    text = page_text(site, "integrations")
    for stack in EXAMPLES:
        for line in (ROOT / "examples" / f"{stack}_example.py").read_text().splitlines():
            assert line.strip() in text, f"{stack}_example.py: {line!r} is not on the page"
    batched = page_text(site, "batched")
    for line in (ROOT / "examples" / "batched_example.py").read_text().splitlines():
        assert line.strip() in batched


def test_training_evaluation_play_and_rules_pages(site):
    assert "snack-train --config snack_wars" in page_text(site, "training")
    assert "vec_env:" in page_text(site, "training")  # configs/base.yaml, included as it is
    assert "snack-eval --env" in page_text(site, "evaluation")
    assert "snack-play snack_rabbits_v0" in page_text(site, "play")
    rules = words(page_text(site, "rules"))
    for option in ("killed_when", "menu_fulfil", "menu_tie_first"):
        assert option in rules


@pytest.mark.parametrize("module", sorted(API_PAGES))
def test_api_page(site, module):
    text = page_text(site, f"api/{module}")
    assert f"snack_envs.{module}" in text and API_PAGES[module] in text


def test_every_registry_id_the_docs_name_is_registered():
    """The ids in README.md and docs/ (`snack_envs/<game>-v<N>` for PettingZoo, `SnackWars-v0` and the like for
    Gymnasium) are the ones `import snack_envs` registers: Speed Snacks is v1, not v0."""
    from snack_envs import registration

    pettingzoo_ids = {spec.pettingzoo_id for spec in specs.SPECS}
    gymnasium_ids = set(registration.gymnasium_ids())
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    named = {(path.name, found) for path in texts for found in re.findall(r"snack_envs/\w+-v\d+", path.read_text())}
    named_gym = {(path.name, found) for path in texts
                 for found in re.findall(r"\b(?:Snack|Speed)[A-Z]\w*-v\d+\b", path.read_text())}
    assert {found for _, found in named} >= {"snack_envs/snack_rabbits-v0", "snack_envs/speed_snacks-v1"}
    assert not {(p, f) for p, f in named if f not in pettingzoo_ids}, "unregistered PettingZoo ids in the docs"
    assert not {(p, f) for p, f in named_gym if f not in gymnasium_ids}, "unregistered Gymnasium ids in the docs"
