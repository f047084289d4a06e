#!/usr/bin/env bash
# `make layout`: each folder's share of the product's C lines (.c and .h
# outside tests/, images/, bench/ and build trees) and the include loops,
# for people reading the layout (docs/design.md "Modules"). A report, not a
# test: it always exits 0.
#
# A module is a .c with its .h (cli/options.c + cli/options.h); module A
# depends on B when either file of A includes B's header. A loop is a set of
# modules that depend on each other (a strongly connected component of more
# than one). The same is done for folders, and every include of a folder
# that comes later in the layer order ($1, bottom first) is listed.
set -u
order="${1:-}"
cd "$(dirname "$0")/.."
files=$(find . -path ./tests -prune -o -path ./images -prune -o -path ./bench -prune \
	-o -path './build*' -prune -o -path ./.git -prune -o -name '*.[ch]' -print |
	sed 's|^\./||' | sort)
# Lines "L <file> <lines>" and "I <file> <included path>".
{
	for f in $files; do
		printf 'L %s %s\n' "$f" "$(wc -l <"$f")"
		sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*|I '"$f"' \1|p' "$f"
	done
} | awk -v order="$order" '
function mod(p) { sub(/\.[ch]$/, "", p); return p }
function dir(p) { if (index(p, "/") == 0) return "."; sub(/\/[^\/]*$/, "", p); return p }
# Tarjan: strongly connected components of the graph in E[kind, a, b].
function visit(kind, v,    w, k) {
	idx[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
	for (k in E) {
		split(k, part, SUBSEP)
		if (part[1] != kind || part[2] != v) continue
		w = part[3]
		if (!(w in idx)) { visit(kind, w); if (low[w] < low[v]) low[v] = low[w] }
		else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
	}
	if (low[v] == idx[v]) {
		comp = ""; n = 0
		do { w = stack[sp--]; on[w] = 0; comp = w (n++ ? " <-> " : "") comp } while (w != v)
		if (n > 1) loops[kind] = loops[kind] "  " comp "\n"
	}
}
function scc(kind, nodes,    v) {
	delete idx; delete low; delete on; sp = 0; counter = 0
	for (v in nodes) if (!(v in idx)) visit(kind, v)
}
$1 == "L" { lines[$2] = $3; total += $3; d = dir($2); share[d] += $3; files[d]++
	    M[mod($2)] = 1; D[d] = 1; known[$2] = 1; next }
$1 == "I" { inc[$2, $3] = 1; next }
END {
	for (k in inc) {
		split(k, p, SUBSEP)
		if (!(p[2] in known)) continue
		a = mod(p[1]); b = mod(p[2])
		if (a != b) E["m", a, b] = 1
		da = dir(p[1]); db = dir(p[2])
		if (da != db) E["d", da, db] = 1
	}
	n = split(order, layer, " ")
	for (i = 1; i <= n; i++) rank[layer[i]] = i
	printf "%-12s %6s %6s %5s\n", "folder", "files", "lines", "share"
	for (d in share) rows[d] = sprintf("%-12s %6d %6d %4.1f%%", d, files[d], share[d], 100 * share[d] / total)
	for (i = 1; i <= n; i++) if (layer[i] in rows) { print rows[layer[i]]; delete rows[layer[i]] }
	for (d in rows) print rows[d]
	printf "%-12s %6s %6d\n", "total", "", total
	scc("m", M); scc("d", D)
	printf "\ninclude loops between modules (a .c with its .h):\n%s", ("m" in loops) ? loops["m"] : "  none\n"
	printf "include loops between folders:\n%s", ("d" in loops) ? loops["d"] : "  none\n"
	up = ""
	for (k in inc) {
		split(k, p, SUBSEP)
		da = dir(p[1]); db = dir(p[2])
		if (da != db && (da in rank) && (db in rank) && rank[db] > rank[da])
			up = up sprintf("  %s includes %s (%s is above %s)\n", p[1], p[2], db, da)
	}
	printf "includes of a folder above the includer (order: %s):\n%s", order, up == "" ? "  none\n" : up
}'
exit 0
