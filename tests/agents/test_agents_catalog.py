"""A tool is its registry command: the same params (less the confirmation, which is the desk's
or the operator's to give), the same help, choices and defaults, one declaration; the desk's
policy adds only `wait_s` to a gated tool."""

from __future__ import annotations

import jsonschema

from tclk_tui.agents.catalog import CATALOG, FROM_REGISTRY, RENAMED, tool_registry
from tclk_tui.agents.tools import MAX_TEXT
from tclk_tui.engine.commands import REGISTRY


def test_every_tool_takes_its_commands_params_as_declared_there():
    specs = tool_registry(lambda tool: lambda call: {})
    for tool in CATALOG:
        command = tool.declaration
        schema = specs.spec(tool.name).json_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        if command is None:
            assert list(schema["properties"]) == ["approval"]
            continue
        declared = [p for p in command.params if p.name != command.confirm]
        names = [RENAMED.get(p.name, p.name) for p in declared]
        assert list(schema["properties"]) == names + (["wait_s"] if command.gated else [])
        assert schema.get("required", []) == [RENAMED.get(p.name, p.name) for p in declared
                                              if p.required]
        for param, name in zip(declared, names, strict=True):
            prop = schema["properties"][name]
            assert prop["description"] == param.help
            assert prop.get("enum") == (list(param.choices) if param.choices else None)
            assert prop.get("default") == param.default  # the engine's own default, shown
            if param.base is str:
                assert prop["maxLength"] == MAX_TEXT
        assert specs.spec(tool.name).gated is command.gated
    assert set(FROM_REGISTRY) == {t.name for t in CATALOG if t.command_name == t.name}
    assert REGISTRY["offer"].param("role").default == "payer"
