#!/usr/bin/env bash
# `make layout`'s size limits (docs/design.md "The rule"): no function of
# the product longer than 100 lines, no product file longer than 700. A
# function over its limit fails; a file over its limit is said, not yet a
# failure (the files still over it are being split).
#
#   mk/limits.sh
#
# The product is what mk/layout.sh reads: every .c and .h outside tests/,
# images/, examples/ and the build trees. A function's length is the lines
# between its braces, the house style's "{" and "}" alone at the start of
# a line; its signature is the line at the start of the line before them.
set -u
cd "$(dirname "$0")/.."
FILE_MAX=700
FUNCTION_MAX=100

product=$(find . \( -path ./tests -o -path ./images -o -path ./examples -o -path './build*' \
	-o -path ./.git \) -prune -o -name '*.[ch]' -print | sed 's|^\./||' | sort)
[ -n "$product" ] || exit 0
# shellcheck disable=SC2086 # the list is file names without spaces
awk -v file_max=$FILE_MAX -v function_max=$FUNCTION_MAX '
function flush() {
	if (f != "" && n > file_max)
		files = files sprintf("over the limits: %s has %d lines (at most %d; said, not yet a failure)\n", f, n, file_max)
}
FNR == 1 { flush(); f = FILENAME; n = 0; open = 0; sig = 0; name = "" }
{ n++ }
/^[A-Za-z_]/ && !open {
	if (!sig) {
		sig = FNR; name = $0
		if (match(name, /[A-Za-z_][A-Za-z0-9_]*\(/)) name = substr(name, RSTART, RLENGTH - 1)
	}
}
/^\{[ \t]*$/ && !open { open = FNR; next }
/^\}/ && open {
	if (FNR - open - 1 > function_max)
		funcs = funcs sprintf("over the limits: %s:%d %s() has %d lines (at most %d)\n", f, sig, name, FNR - open - 1, function_max)
	open = 0; sig = 0; next
}
!open && (/^[ \t]*$/ || /;[ \t]*$/) { sig = 0 }
END {
	flush()
	printf "%s%s", files, funcs
	exit funcs != "" ? 1 : 0
}' $product || { echo "layout: a function is over its limit (above)" >&2; exit 1; }
