#!/usr/bin/env bash
# `make layout`, second half: docs/design.md's "Only the outermost caller
# prints". Outside orchestrator/cli/ and common/say.c (say.h declares it)
# no product file prints, prompts or looks at the terminal: the library
# hands what it has to say to a struct job_events sink (common/events.h).
# Exits 1 naming file:line of every print site found.
#
#   mk/prints.sh
#
# A print site, in code with its comments and string literals blanked:
#   a call that always reaches the terminal: printf, vprintf, puts,
#     putchar, perror, getchar, scanf, say_*;
#   any naming of a terminal stream: stdout, stderr, stdin, STD*_FILENO
#     (fprintf(stderr, …), fputs(…, stdout), fwrite(…, stderr), fgets(…, stdin));
#   a write, dprintf, isatty or fs_write_all on descriptor 0, 1 or 2.
# Writing to a file of one's own (fprintf(f, …)) is no print site.
set -u
cd "$(dirname "$0")/.."

# Where printing is the job, and the one place that cannot do otherwise.
allowed='^(orchestrator/cli/|common/say\.[ch]$)'
# A sandboxed parser's child, whose filter lets it write only to the
# descriptors it was given, says why it could not start on stderr and exits.
exempt='^common/sandbox\.c:[0-9]+:.*STDERR_FILENO'

product=$(find . \( -path ./tests -o -path ./images -o -path ./examples -o -path './build*' \
	-o -path ./.git \) -prune -o -name '*.[ch]' -print | sed 's|^\./||' | sort |
	grep -Ev "$allowed")

# shellcheck disable=SC2086 # file names without spaces
found=$([ -z "$product" ] || awk '
	# Blank comments, string and character literals, keeping the lines.
	FNR == 1 { in_comment = 0 }
	{
		out = ""; s = $0; i = 1; n = length(s)
		while (i <= n) {
			c = substr(s, i, 1); c2 = substr(s, i, 2)
			if (in_comment) {
				if (c2 == "*/") { in_comment = 0; i += 2 } else i++
				continue
			}
			if (c2 == "/*") { in_comment = 1; i += 2; out = out " "; continue }
			if (c2 == "//") break
			if (c == "\"" || c == "\047") {
				q = c; out = out q; i++
				while (i <= n && substr(s, i, 1) != q)
					i += substr(s, i, 1) == "\\" ? 2 : 1
				out = out q; i++
				continue
			}
			out = out c; i++
		}
		if (out ~ /(^|[^A-Za-z0-9_])(printf|vprintf|puts|putchar|perror|getchar|scanf|say_[a-z_]+)[ \t]*\(/ ||
		    out ~ /(^|[^A-Za-z0-9_])(stdout|stderr|stdin|STDOUT_FILENO|STDERR_FILENO|STDIN_FILENO)([^A-Za-z0-9_]|$)/ ||
		    out ~ /(^|[^A-Za-z0-9_])(write|dprintf|isatty|fs_write_all)[ \t]*\([ \t]*[012][ \t]*[,)]/)
			printf "%s:%d: %s\n", FILENAME, FNR, $0
	}' $product | grep -Ev "$exempt")

echo "print sites outside orchestrator/cli/ and common/say.c:"
if [ -z "$found" ]; then
	echo "  none"
	exit 0
fi
# shellcheck disable=SC2001 # one indent per line
echo "$found" | sed 's/^/  /' >&2
echo "prints: the library prints; hand it to the job_events sink (docs/design.md" \
	"\"Only the outermost caller prints\")" >&2
exit 1
