"""The observation layout (`snack_envs.core.layout`): the named slices users read an observation back with."""

import numpy as np
import pytest

import snack_envs
from snack_envs.core.layout import Field, ObservationLayout

TWO_FIELDS = ObservationLayout([Field("cards", 3, 5.0, "cards held"), Field("phase", 2, 1.0, "one-hot", low=-1.0)])


def test_pack_fills_named_fields_and_leaves_the_rest_zero():
    """pack writes each named field in its slice, in the fields' order, and zeros the fields not given."""
    assert TWO_FIELDS.pack({"phase": [0, 1]}).tolist() == [0, 0, 0, 0, 1]
    assert TWO_FIELDS.pack({"cards": [1, 2, 3], "phase": [1, 0]}).tolist() == [1, 2, 3, 1, 0]
    assert TWO_FIELDS.pack({}).dtype == np.float32
    assert (TWO_FIELDS.low.tolist(), TWO_FIELDS.high.tolist()) == ([0, 0, 0, -1, -1], [5, 5, 5, 1, 1])


def test_pack_refuses_a_field_the_layout_lacks():
    """A name that is not a field is refused naming it and the fields, not a bare KeyError."""
    with pytest.raises(ValueError, match=r"no observation field named 'hand'.*\['cards', 'phase'\]"):
        TWO_FIELDS.pack({"hand": [1]})


def test_a_field_named_twice_is_refused():
    """Two fields with one name would make one slice unreadable."""
    with pytest.raises(ValueError, match="duplicate observation field 'cards'"):
        ObservationLayout([Field("cards", 1, 1.0, ""), Field("cards", 2, 1.0, "")])


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_unpack_reads_an_env_observation_and_a_batch_of_them(name):
    """Every env's observation splits into its fields; a batch [B, size] splits along the last axis."""
    env = snack_envs.make(name)
    env.reset(seed=3)
    layout = env.unwrapped.encoder.layout
    obs = env.observe(env.agent_selection)["observation"]
    fields = layout.unpack(obs)
    assert list(fields) == [f.name for f in layout.fields]
    assert np.concatenate(list(fields.values())).tolist() == obs.tolist()
    batch = layout.unpack(np.stack([obs, obs + 1]))
    for field in layout.fields:
        assert batch[field.name].shape == (2, field.size)
        assert batch[field.name][1].tolist() == (fields[field.name] + 1).tolist()


@pytest.mark.parametrize("shape", [(4,), (6,), (2, 4), ()])
def test_unpack_refuses_a_vector_of_another_size(shape):
    """A vector that is not this layout's size is refused naming both sizes; it was sliced into short fields."""
    with pytest.raises(ValueError, match=rf"has 5 entries in its last axis; got one of shape \({shape[0] if shape else ''}"):
        TWO_FIELDS.unpack(np.zeros(shape))
