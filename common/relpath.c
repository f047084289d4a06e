#include "common/relpath.h"

#include <string.h>

static bool plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '+' || c == '-';
}

bool relpath_plain_below(const char *path)
{
	const char *p = path;

	if (!p || !*p || *p == '/')
		return false;
	while (*p) {
		size_t n = 0;

		while (p[n] && p[n] != '/') {
			if (!plain_char(p[n]))
				return false;
			n++;
		}
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}
