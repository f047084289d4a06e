#!/usr/bin/env bash
# `make layout`'s names check (docs/design.md "Enums inside, names only at
# a codec"): an outcome's name ("PASS", "MAF", "FAIL", "ABORT", "HANG",
# "UNKNOWN") compared as a string with strcmp and its kin outside a codec
# fails, naming file:line. A codec is a file that turns a typed value into
# its text and back: a JSON codec (*_json.c), the results line's
# (orchestrator/sweep/case_result.c) and the finding's own name table
# (orchestrator/finding/finding.c). Anywhere else an outcome is an enum,
# or a name asked through finding_outcome_is().
set -u
cd "$(dirname "$0")/.."

is_codec() {
	case $1 in
	*_json.c | orchestrator/sweep/case_result.c | orchestrator/finding/finding.c) return 0 ;;
	esac
	return 1
}

hits=$(find common docker preflight orchestrator -name '*.[ch]' 2>/dev/null | sort |
	xargs -r grep -nE '\bstr(n|case|ncase)?cmp[[:space:]]*\([^;]*"(PASS|MAF|FAIL|ABORT|HANG|UNKNOWN)"' |
	while IFS= read -r hit; do
		is_codec "${hit%%:*}" || printf '  %s\n' "$hit"
	done)
printf 'outcome names compared outside a codec:\n%s\n' "${hits:-  none}"
[ -z "$hits" ]
