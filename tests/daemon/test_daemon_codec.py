"""The socket's codec gives back the exact engine value it was handed, for every kind of value
an attached face receives (rows, views, gate requests, events)."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.daemon import wire
from tclk_tui.daemon.codec import to_wire
from tclk_tui.daemon.remote import VALUES

# A value with a field named `type` (a transcript record's frame type) travels only inside
# another (a deal view), where its class comes from the field's hint.
TOP_LEVEL = sorted((cls for cls in VALUES._classes.values()
                    if "type" not in {f.name for f in dataclasses.fields(cls)}),
                   key=lambda cls: cls.__name__)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(TOP_LEVEL).flatmap(st.from_type))
def test_every_value_an_attached_face_receives_comes_back_exactly(value):
    line = wire.result(1, to_wire(value))
    assert VALUES.decode(json.loads(line)["result"]) == value
