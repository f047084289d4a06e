#!/usr/bin/env bash
# `make layout`'s JSON check (docs/design.md "A value travels one way"):
# no module hands another raw JSON. A `cJSON` in a header of preflight/
# or orchestrator/ fails, naming file:line, unless the header is a codec's
# own (*_json.h: the functions that turn a typed value into JSON and back).
# docker/ parses the engine's answers into typed structs inside its room;
# common/ holds the JSON reader and writer themselves.
set -u
cd "$(dirname "$0")/.."

hits=$(find preflight orchestrator -name '*.h' ! -name '*_json.h' 2>/dev/null | sort |
	xargs -r grep -nE '\bcJSON\b[[:space:]]*\*' | sed 's/^/  /')
printf 'raw JSON in a header outside a codec (*_json.h):\n%s\n' "${hits:-  none}"
[ -z "$hits" ]
