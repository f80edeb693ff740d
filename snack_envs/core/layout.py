"""Flat observation vectors with named slices.

Each game describes its observation as an ordered list of named fields; the
layout turns that into one flat array, a `Box` bound per entry, a slice per
name (for users who want to read the vector back) and a Markdown table for
the env's docstring. No gymnasium import here: the env layer builds the space.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Field:
    name: str
    size: int
    high: float
    doc: str
    low: float = 0.0


class ObservationLayout:
    """An ordered set of named fields packed into one flat float32 vector."""

    def __init__(self, fields: list[Field], dtype=np.float32):
        self.fields = fields
        self.dtype = np.dtype(dtype)
        self.slices: dict[str, slice] = {}
        start = 0
        for f in fields:
            if f.name in self.slices:
                raise ValueError(f"duplicate observation field {f.name!r}")
            self.slices[f.name] = slice(start, start + f.size)
            start += f.size
        self.size = start
        self.low = np.concatenate([np.full(f.size, f.low, self.dtype) for f in fields])
        self.high = np.concatenate([np.full(f.size, f.high, self.dtype) for f in fields])

    def pack(self, values: dict[str, list | np.ndarray]) -> np.ndarray:
        """Build the vector from a dict of field name -> values (missing fields are zeros)."""
        unknown = [name for name in values if name not in self.slices]
        if unknown:
            raise ValueError(f"no observation field named {unknown[0]!r}; the fields are {list(self.slices)}")
        out = np.zeros(self.size, self.dtype)
        for name, value in values.items():
            out[self.slices[name]] = value
        return out

    def unpack(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Split a vector, or a batch of them ([..., size]), back into its named fields (views, no copies)."""
        obs = np.asarray(obs)
        if obs.ndim == 0 or obs.shape[-1] != self.size:
            raise ValueError(f"an observation of this layout has {self.size} entries in its last axis; "
                             f"got one of shape {obs.shape}")
        return {name: obs[..., s] for name, s in self.slices.items()}

    def markdown(self) -> str:
        rows = ["| slice | field | size | range | meaning |", "|---|---|---|---|---|"]
        for f in self.fields:
            s = self.slices[f.name]
            rows.append(f"| {s.start}:{s.stop} | `{f.name}` | {f.size} | {f.low:g}..{f.high:g} | {f.doc} |")
        return "\n".join(rows)
