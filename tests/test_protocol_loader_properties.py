"""Random documents either load or raise the documented ProtocolError, never anything else."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tol_tasks.protocol_format.issues import ProtocolError
from tol_tasks.protocol_format.load import load_protocol_text

VALID = {
    "format": 1,
    "name": "fuzz",
    "task": {"type": "hanoi", "disks": 3},
    "blocks": [{"problems": [{"id": "p1", "start": "AAA", "goal": "CCC"}]}],
}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 40), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8), st.sampled_from(["AAA", "CCC", "GR|B|", "hanoi", "london", "keys", "RGB"]),
)  # fmt: skip
keys = st.sampled_from(
    ["format", "name", "task", "type", "disks", "pegs", "balls", "capacities", "blocks",
     "problems", "id", "start", "goal", "min_moves", "time_limit", "move_limit", "display",
     "input", "mode", "keys", "instructions", "pages", "practice", "order", "seed", "bogus"]
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)),
    max_leaves=20,
)


def _mutate(draw_dict: dict, patch: dict) -> dict:
    out = dict(draw_dict)
    out.update(patch)
    return out


@settings(max_examples=300)
@given(st.dictionaries(keys, values, max_size=6))
def test_random_patches_of_a_valid_document(patch):
    doc = _mutate(VALID, patch)
    try:
        load_protocol_text(yaml.safe_dump(doc))
    except ProtocolError as exc:
        assert exc.issues  # noqa: PT017 (loads or raises: both are fine)
        for issue in exc.issues:
            assert issue.message


@settings(max_examples=200)
@given(st.text(max_size=200))
def test_random_text(text):
    try:
        load_protocol_text(text)
    except ProtocolError as exc:
        assert exc.issues  # noqa: PT017 (loads or raises: both are fine)
