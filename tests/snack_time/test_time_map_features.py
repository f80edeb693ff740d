"""The convolutional policy's map features (snack_envs/snack_time/map_features.py) against the
heuristic's own reading of the same map (heuristic.Sheet), over many positions of real games."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.agents import RandomPolicy, heuristic_policy
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.snack_time.components import CREATURE_CELLS, NUM_ENTRANCES
from snack_envs.snack_time.heuristic import FAR, Sheet

torch = pytest.importorskip("torch")


def positions(games: int, options: dict):
    """Observations of the learner's seat along games played by the heuristic and random."""
    for g in range(games):
        env = SingleAgentEnv("snack_time_v0", num_players=2, opponents=["random"], **options)
        player = heuristic_policy("snack_time_v0", 2, **options) if g % 2 else RandomPolicy(g)
        obs, _ = env.reset(seed=g)
        done = False
        while not done:
            yield obs
            obs, _, terminated, truncated, _ = env.step(player.act(obs, env.action_masks()))
            done = terminated or truncated


@pytest.mark.parametrize("options", [{}, {"advanced_entrances": True, "rat_snacks": True}])
def test_networks_and_pipe_distances_match_the_heuristics_reading(options):
    from snack_envs.snack_time.map_features import GAMMA, map_features

    def field(distances):  # the heuristic's pipes-needed field, as the features encode it
        return np.array([GAMMA ** (d - 1) if d < FAR else 0.0 for d in distances]) * np.array(sheet.empty)

    observations = list(positions(12, options))
    features = map_features(torch.as_tensor(np.stack(observations))).numpy()
    fields_checked = 0
    for obs, planes in zip(observations, features):
        sheet = Sheet(obs.tolist())
        nodes = len(CREATURE_CELLS) + NUM_ENTRANCES
        members, fields = planes[:nodes], planes[nodes : 2 * nodes]
        on_path, gaps = planes[2 * nodes : 2 * nodes + 20], planes[2 * nodes + 20 :]
        for c in range(len(CREATURE_CELLS)):
            np.testing.assert_allclose(fields[c].ravel(), field(sheet.creature_fields[c]), atol=1e-6)
            # The entrances linked to creature c are those whose cell is in its network.
            linked = [k for k in range(NUM_ENTRANCES) if (members[c].ravel() * obs[384:768].reshape(64, 6)[:, 1 + k]).any()]
            assert sum(1 << k for k in linked) == sheet.links[c]
        for k in range(NUM_ENTRANCES):
            net = sheet.target[k]
            if net >= 0:
                np.testing.assert_allclose(fields[len(CREATURE_CELLS) + k].ravel(), field(sheet.fields[net]), atol=1e-6)
                in_net = [cell for cell in range(64) if sheet.net[cell] == net]
                assert members[len(CREATURE_CELLS) + k].ravel()[in_net].all()
                fields_checked += 1
                for c in range(len(CREATURE_CELLS)):  # the pair's gap and the cells on its shortest paths
                    gap = sheet.gap[c][net][0]
                    assert gaps[c * NUM_ENTRANCES + k] == pytest.approx(1.0 if gap == 0 else GAMMA ** (gap - 1) if gap < FAR else 0.0, abs=1e-6)
                    shortest = [y for y in range(64) if sheet.empty[y] and 0 < gap < FAR and gap == sheet.creature_fields[c][y] + sheet.fields[net][y] - 1]
                    assert np.flatnonzero(on_path[c * NUM_ENTRANCES + k].ravel()).tolist() == shortest
    assert len(observations) > 500 and fields_checked > 1000
