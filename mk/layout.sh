#!/usr/bin/env bash
# `make layout`: the rooms' shares of the product's C lines, and every
# include held against the rule at the top of docs/design.md. Exits 1 when
# an arrow breaks it, so CI fails on one.
#
#   mk/layout.sh ROOM...      the rooms, bottom layer first (the Makefile's ROOMS)
#
# The product is every .c and .h outside tests/, images/, examples/ and the
# build trees. A file's room is the longest ROOM that holds its folder. The
# rule, per including room:
#   common/                  nothing of the project but common/
#   docker/, docker/registry/, preflight/
#                            common/ and their own room
#   orchestrator/<room>/     common/, docker/**, preflight/, and the
#                            orchestrator rooms before it in ROOM order
#   images/                  no product header at all
# and everywhere: an include is spelled from the top ("common/strbuf.h"),
# no two modules (a .c with its .h) include each other in a circle, no room
# holds more than 15% of the product's lines, and the build passes no
# include path but -I. (an -Iorchestrator/finding would let a file bypass
# the spelling, and with it the rule). Then mk/layout_names.sh: no outcome
# name compared as a string outside a codec.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "layout: usage: mk/layout.sh ROOM... (bottom layer first)" >&2; exit 2; }
rooms="$*"
fail=0

# docs/design.md states the same order on its "Rooms, bottom first:" line.
doc_order=$(sed -n 's/^Rooms, bottom first: *//p' docs/design.md | head -1 | tr -d '`' |
	sed 's|/ *→ *| |g; s|/$||; s|/ | |g')
if [ "$doc_order" != "$rooms" ]; then
	echo "layout: docs/design.md's \"Rooms, bottom first:\" line says '$doc_order'," >&2
	echo "        the Makefile's ROOMS say '$rooms': make them agree" >&2
	fail=1
fi

bad_flags=$(grep -hoE -- '-I[^ .)$]+|-I\.[^ )]+' Makefile mk/*.mk 2>/dev/null | sort -u)
if [ -n "$bad_flags" ]; then
	echo "layout: include paths other than -I. in the Makefile: $bad_flags" >&2
	fail=1
fi

product=$(find . \( -path ./tests -o -path ./images -o -path ./examples -o -path './build*' \
	-o -path ./.git \) -prune -o -name '*.[ch]' -print | sed 's|^\./||' | sort)
images=$(find images -name '*.[ch]' 2>/dev/null | sort)
# One pass over every file: "L <file> <lines>" and "I <file> <included path>"
# ("J" for images/). Files with no trailing newline count their last line.
{
	# shellcheck disable=SC2086 # the lists are file names without spaces
	[ -z "$product" ] || awk -v tag=I '
		function flush() { if (f != "") printf "L %s %d\n", f, n }
		FNR == 1 { flush(); f = FILENAME; n = 0 }
		{ n++ }
		/^[ \t]*#[ \t]*include[ \t]*"/ { p = $0; sub(/^[^"]*"/, "", p); sub(/".*/, "", p); printf "%s %s %s\n", tag, FILENAME, p }
		END { flush() }' $product
	# shellcheck disable=SC2086
	[ -z "$images" ] || awk '
		/^[ \t]*#[ \t]*include[ \t]*"/ { p = $0; sub(/^[^"]*"/, "", p); sub(/".*/, "", p); printf "J %s %s\n", FILENAME, p }' $images
} | awk -v rooms="$rooms" '
function mod(p) { sub(/\.[ch]$/, "", p); return p }
function dir(p) { if (index(p, "/") == 0) return "."; sub(/\/[^\/]*$/, "", p); return p }
# The longest room holding path p ("" when none does).
function room(p,    d, i, best) {
	best = ""
	for (i = 1; i <= nrooms; i++)
		if (index(p "/", R[i] "/") == 1 && length(R[i]) > length(best)) best = R[i]
	return best
}
function base(r) { return r == "common" || r == "docker" || r == "docker/registry" || r == "preflight" }
# Whether room a may include room b.
function allowed(a, b) {
	if (a == b) return 1
	if (a == "common") return 0
	if (a == "docker" || a == "docker/registry" || a == "preflight") return b == "common"
	if (index(a, "orchestrator/") == 1) return base(b) || (index(b, "orchestrator/") == 1 && rank[b] < rank[a])
	return 0
}
function visit(v,    w, k, comp, n) {
	idx[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
	for (k = 1; k <= nout[v]; k++) {
		w = out[v, k]
		if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
		else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
	}
	if (low[v] == idx[v]) {
		comp = ""; n = 0
		do { w = stack[sp--]; on[w] = 0; comp = w (n++ ? " <-> " : "") comp } while (w != v)
		if (n > 1) loops = loops "  " comp "\n"
	}
}
BEGIN { nrooms = split(rooms, R, " "); for (i = 1; i <= nrooms; i++) rank[R[i]] = i }
$1 == "L" { lines[$2] = $3; total += $3; known[$2] = 1
	    r = room($2); if (r == "") { homeless = homeless "  " $2 "\n"; next }
	    share[r] += $3; files[r]++; next }
$1 == "I" { inc[++ni] = $2 SUBSEP $3; next }
$1 == "J" { jinc[++nj] = $2 SUBSEP $3; next }
END {
	against = ""
	for (i = 1; i <= ni; i++) {
		split(inc[i], p, SUBSEP)
		if (!(p[2] in known)) {
			if (p[2] ~ /^tests\//) against = against sprintf("  %s includes %s (tests are not the product)\n", p[1], p[2])
			else against = against sprintf("  %s includes \"%s\": not a file spelled from the top\n", p[1], p[2])
			continue
		}
		a = mod(p[1]); b = mod(p[2])
		if (a != b && !((a, b) in edge)) { edge[a, b] = 1; out[a, ++nout[a]] = b; M[a] = 1; M[b] = 1 }
		ra = room(p[1]); rb = room(p[2])
		if (ra != "" && rb != "" && !allowed(ra, rb))
			against = against sprintf("  %s includes %s (%s/ may not include %s/)\n", p[1], p[2], ra, rb)
	}
	for (i = 1; i <= nj; i++) {
		split(jinc[i], p, SUBSEP)
		if ((p[2] in known) || room(p[2]) != "")
			against = against sprintf("  %s includes %s (images/ includes no product header)\n", p[1], p[2])
	}
	printf "%-28s %6s %6s %6s\n", "room", "files", "lines", "share"
	big = ""
	for (i = 1; i <= nrooms; i++) {
		r = R[i]
		printf "%-28s %6d %6d %5.1f%%\n", r "/", files[r], share[r], total ? 100 * share[r] / total : 0
		if (total && share[r] * 100 > 15 * total) big = big sprintf("  %s/ holds %.1f%% of the product (at most 15%%)\n", r, 100 * share[r] / total)
	}
	printf "%-28s %6s %6d\n", "total", "", total
	for (v in M) if (!(v in idx)) visit(v)
	printf "\nfiles in no room:\n%s", homeless == "" ? "  none\n" : homeless
	printf "arrows against the rule:\n%s", against == "" ? "  none\n" : against
	printf "include loops between modules (a .c with its .h):\n%s", loops == "" ? "  none\n" : loops
	printf "rooms over 15%%:\n%s", big == "" ? "  none\n" : big
	exit (homeless != "" || against != "" || loops != "" || big != "") ? 1 : 0
}' || fail=1
bash mk/layout_names.sh || fail=1
[ $fail = 0 ] || echo "layout: the tree breaks docs/design.md's rule (above)" >&2
exit $fail
