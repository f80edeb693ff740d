"""Map feature planes for Snack Time's convolutional policy (torch; see snack_envs/networks.py).

A pipe's worth depends on which networks it joins and how many pipes then
still separate each creature from each entrance: facts spread over the whole
board, which a few 3x3 convolutions cannot trace along a winding pipe. So the
policy's input adds, computed from the observation with no weights to learn
(as the heuristic's `Sheet` computes them, batched):

- for each creature (4) and each entrance (5), the cells of its network:
  pipes joined by facing openings, entrances and creatures taking a pipe on
  any side;
- for each of them, the pipes still needed from each empty cell to join its
  network (1 on its frontier: an empty cell one of its openings faces; one
  more per empty cell further), as GAMMA ** (pipes - 1), 0 where no path of
  empty cells exists;
- for each creature and entrance (20 pairs, creature-major), the empty cells
  on a shortest path of pipes joining them, and (constant over the board)
  the pair's gap as GAMMA ** (pipes - 1), 1 once linked, 0 if it cannot be.
"""

from __future__ import annotations

import torch

from snack_envs.snack_time.components import CREATURE_CELLS, NUM_CELLS, NUM_ENTRANCES, SIZE
from snack_envs.snack_time.observation import LAYOUT

NUM_PLANES = 2 * (len(CREATURE_CELLS) + NUM_ENTRANCES) + 2 * len(CREATURE_CELLS) * NUM_ENTRANCES
GAMMA = 0.7
OWN_MAP, MARKS = LAYOUT.slices["own_map"].start, LAYOUT.slices["map_marks"].start
_CREATURES = torch.zeros(len(CREATURE_CELLS), NUM_CELLS)
_CREATURES[range(len(CREATURE_CELLS)), list(CREATURE_CELLS)] = 1.0
# For directions N, E, S, W (d; the opposite is (d + 2) % 4): the cells that have a neighbour in
# direction d, and those neighbours, as index tuples over (..., H, W).
_ALL, _HEAD, _TAIL = slice(None), slice(None, -1), slice(1, None)
_NEIGHBOURS = (
    ((..., _TAIL, _ALL), (..., _HEAD, _ALL)),
    ((..., _ALL, _HEAD), (..., _ALL, _TAIL)),
    ((..., _HEAD, _ALL), (..., _TAIL, _ALL)),
    ((..., _ALL, _TAIL), (..., _ALL, _HEAD)),
)


def neighbour(x: torch.Tensor, d: int, fill: float = 0.0) -> torch.Tensor:
    """At each cell, the value of its neighbour in direction d (`fill` off the board)."""
    cells, neighbours = _NEIGHBOURS[d]
    out = torch.full_like(x, fill)
    out[cells] = x[neighbours]
    return out


def spread(x: torch.Tensor, gates: list[torch.Tensor] | None = None) -> torch.Tensor:
    """max(x, each neighbour's x), the neighbour in direction d times `gates[d]` if given."""
    out = x.clone()
    for d, (cells, neighbours) in enumerate(_NEIGHBOURS):
        value = x[neighbours] if gates is None else x[neighbours] * gates[d][cells]
        out[cells] = torch.maximum(out[cells], value)
    return out


@torch.no_grad()
def map_features(obs: torch.Tensor) -> torch.Tensor:
    """(batch, observation) -> (batch, NUM_PLANES, 8, 8): network cells, then distance fields, for the
    creatures NW, NE, SW, SE and entrances 1..5; then shortest-path cells, then gaps, for the 20
    creature-entrance pairs."""
    batch = obs.shape[0]
    cells = obs[:, OWN_MAP : OWN_MAP + NUM_CELLS * 6].view(batch, SIZE, SIZE, 6)
    marks = obs[:, MARKS : MARKS + NUM_CELLS * 6].view(batch, SIZE, SIZE, 6)
    entrances = marks[..., 1:].permute(0, 3, 1, 2)  # (batch, 5, H, W)
    creature = _CREATURES.to(obs.device).view(1, -1, SIZE, SIZE).expand(batch, -1, -1, -1)
    open_all = (entrances.sum(1) + creature.sum(1) > 0).float()  # take a pipe on any side
    opens = torch.maximum(cells[..., :4].permute(0, 3, 1, 2), open_all[:, None])  # (batch, 4, H, W)
    empty = ((opens.sum(1) == 0).float())[:, None]  # (batch, 1, H, W)
    # gates[d]: this cell and its neighbour in direction d open onto each other.
    gates = [(opens[:, d] * neighbour(opens[:, (d + 2) % 4], d))[:, None] for d in range(4)]
    seeds = torch.cat([creature, torch.zeros_like(entrances)], 1)
    members = torch.cat([creature, entrances], 1)  # (batch, 9, H, W)
    not_creature = 1.0 - creature.sum(1, keepdim=True)
    # The members a network grows from: a creature joins networks, not links them.
    spreads = torch.maximum(members * not_creature, seeds)
    for _ in range(NUM_CELLS):  # until no network grows
        grown = torch.maximum(members, spread(spreads, gates))
        if torch.equal(grown, members):
            break
        members = grown
        spreads = torch.maximum(members * not_creature, seeds)
    # The frontier: empty cells that a member cell's opening faces.
    frontier = torch.zeros_like(members)
    for d in range(4):
        frontier = torch.maximum(frontier, neighbour(spreads * opens[:, (d + 2) % 4, None], d))
    # Distances as GAMMA ** (pipes - 1), grown outward over empty cells: a cell's is GAMMA times
    # its best neighbour's (the same as counting pipes, and a max instead of a min).
    near = frontier * empty
    for _ in range(NUM_CELLS):  # until no distance shrinks
        grown = torch.maximum(near, GAMMA * spread(near) * empty)
        if torch.equal(grown, near):
            break
        near = grown
    # Paths from creature c to entrance k through each empty cell: pipes d_c + d_k - 1 there, so
    # GAMMA ** (pipes - 1) is the product of the two fields. The best over the map gives the pair's
    # gap (1 when linked); a cell is on a shortest path where its product reaches the best.
    num_creatures = creature.shape[1]
    creature_near, entrance_near = near[:, :num_creatures, None], near[:, num_creatures:, None]
    paths = (creature_near * entrance_near.transpose(1, 2)).flatten(1, 2)  # (batch, 4 * 5, H, W), c-major
    linked = (members[:, :num_creatures, None] * entrances[:, None]).amax((3, 4)).flatten(1)  # (batch, 20)
    best = paths.amax((2, 3))
    on_path = ((paths >= best[..., None, None] - 1e-6) & (paths > 0)).float() * (1.0 - linked)[..., None, None]
    gap = torch.maximum(best, linked)[..., None, None].expand(-1, -1, SIZE, SIZE)
    return torch.cat([members, near, on_path, gap], 1)
