#!/usr/bin/env bash
# Hold the classifier to the corpus of real logs (issue 40, §3): run
# `analyze` on every case of a corpus directory, compare each field the
# case's `expect` file writes with finding.json, and print the agreement
# table and every disagreement. Exit 0 when every case agrees, 1 when one
# does not, 2 on a usage error. The expect format is in
# tests/fixtures/real-logs/README.md.
#
#   tests/fidelity.sh BIN CORPUS_DIR

set -u

if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -d "$2" ]; then
	echo "usage: $0 BIN CORPUS_DIR" >&2
	exit 2
fi
bin=$1
corpus=$2
command -v jq >/dev/null || { echo "$0: jq is needed" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fields="outcome class kernel address node reason seq label note unread_evidence"
declare -A checked agreed
for f in $fields; do checked[$f]=0; agreed[$f]=0; done
cases=0 agree=0
report=$tmp/report

# Scalar fields: expect key -> finding.json key; null reads "none".
jq_key() {
	case $1 in
	outcome) echo outcome ;; class) echo fault_class ;;
	kernel) echo kernel_name ;; address) echo fault_address ;;
	node) echo gpu_node ;; reason) echo fault_reason ;;
	seq) echo failing_event_seq ;;
	esac
}

cut_value() {
	local v=$1
	[ ${#v} -gt 160 ] && v="${v:0:157}..."
	printf '%s' "$v"
}

# check KEY EXPECTED JSON -> prints what was got; status 0 when it agrees
check() {
	local key=$1 want=$2 json=$3 got
	case $key in
	label)
		got=$(jq -r 'if (.labels | length) == 0 then "(no labels)" else .labels | join(",") end' "$json")
		jq -e --arg v "$want" '.labels | index($v) != null' "$json" >/dev/null
		;;
	note)
		got=$(jq -r '.notes | length | "\(.) note(s), none containing it"' "$json")
		jq -e --arg v "$want" 'any(.notes[]; ascii_downcase | contains($v | ascii_downcase))' "$json" >/dev/null
		;;
	unread_evidence)
		if ! jq -e 'has("unread_evidence")' "$json" >/dev/null; then
			got="(no unread_evidence key)"
			[ "$want" = none ]
		elif [ "$want" = none ]; then
			got=$(jq -c '.unread_evidence' "$json")
			jq -e '(.unread_evidence // []) | length == 0' "$json" >/dev/null
		else
			got=$(jq -c '.unread_evidence' "$json")
			jq -e --arg v "$want" 'any((.unread_evidence // [])[]; tojson | ascii_downcase | contains($v | ascii_downcase))' "$json" >/dev/null
		fi
		;;
	*)
		got=$(jq -r --arg k "$(jq_key "$key")" '.[$k] // "none" | tostring' "$json")
		[ "$got" = "$want" ]
		;;
	esac
	local rc=$?
	printf '%s' "$got"
	return $rc
}

for dir in "$corpus"/*/; do
	dir=${dir%/}
	name=${dir##*/}
	[ -f "$dir/expect" ] && [ -f "$dir/replay.log" ] || continue
	cases=$((cases + 1))
	json=$tmp/finding.json
	args=(analyze --log "$dir/replay.log" --format json)
	[ -d "$dir/archive" ] && args+=(--archive "$dir/archive")
	if ! "$bin" "${args[@]}" >"$json" 2>"$tmp/stderr" || ! jq -e . "$json" >/dev/null 2>&1; then
		printf '  %s\n    analyze failed: %s\n' "$name" "$(head -c 200 "$tmp/stderr")" >>"$report"
		while IFS= read -r line; do
			key=${line%%:*}
			case " $fields " in *" $key "*) checked[$key]=$((checked[$key] + 1)) ;; esac
		done <"$dir/expect"
		continue
	fi
	bad=""
	while IFS= read -r line; do
		case $line in '#'* | '') continue ;; esac
		key=${line%%:*}
		want=${line#*:}
		want=${want# }
		case " $fields " in *" $key "*) ;; *) continue ;; esac
		checked[$key]=$((checked[$key] + 1))
		if got=$(check "$key" "$want" "$json"); then
			agreed[$key]=$((agreed[$key] + 1))
		else
			bad+="    $key: expected '$(cut_value "$want")'"$'\n'
			bad+="    ${key//?/ }  got      '$(cut_value "$got")'"$'\n'
		fi
	done <"$dir/expect"
	if [ -z "$bad" ]; then
		agree=$((agree + 1))
	else
		printf '  %s\n%s' "$name" "$bad" >>"$report"
	fi
done

if [ "$cases" -eq 0 ]; then
	echo "fidelity: no cases in $corpus" >&2
	exit 2
fi
pct=$(awk -v a="$agree" -v c="$cases" 'BEGIN { printf "%.1f", 100 * a / c }')
echo "fidelity: $cases cases, $agree agree ($pct%), $((cases - agree)) disagree"
echo
printf '  %-16s %8s %8s %9s\n' field checked agree disagree
for f in $fields; do
	printf '  %-16s %8d %8d %9d\n' "$f" "${checked[$f]}" "${agreed[$f]}" \
		$((checked[$f] - agreed[$f]))
done
if [ -s "$report" ]; then
	echo
	echo "disagreements (expected, then got):"
	cat "$report"
	exit 1
fi
exit 0
