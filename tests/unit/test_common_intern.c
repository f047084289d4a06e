/* The string table (common/intern.h): one copy of each string, packed in
 * blocks, each copy where it was first put for as long as the table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/intern.h"
#include "common/xalloc.h"

Test(intern, a_string_is_kept_once_and_null_stays_null)
{
	struct intern t = INTERN_INIT;
	char a[] = "PASS", b[] = "PASS";
	const char *k = intern(&t, a);

	cr_assert_str_eq(k, "PASS");
	cr_assert_neq((const void *)k, (const void *)a, "a copy, not the caller's string");
	cr_assert_eq(intern(&t, b), k, "the same text: the same copy");
	cr_assert_null(intern(&t, NULL));
	cr_assert_eq(t.n, 1);
	intern_release(&t);
	cr_assert_eq(t.n, 0);
}

/* Past several blocks and slot growths, with strings longer than a block's
 * quarter among them: every copy keeps its place and its text. */
Test(intern, copies_stay_put_across_blocks_and_growth)
{
	enum { N = 5000 };
	struct intern t = INTERN_INIT;
	const char **kept = xcalloc(N, sizeof(*kept));
	cleanup_free char *big = xmalloc(40000);

	memset(big, 'x', 39999);
	big[39999] = '\0';
	for (int i = 0; i < N; i++) {
		char name[64];

		snprintf(name, sizeof(name), "lib/case-%05d/capture.hrr/pid-%d", i, i % 97);
		kept[i] = intern(&t, name);
		if (i % 1000 == 0) {
			big[i / 1000] = 'y';
			cr_assert_str_eq(intern(&t, big), big);
		}
	}
	cr_assert_eq(t.n, N + 5);
	for (int i = 0; i < N; i++) {
		char name[64];

		snprintf(name, sizeof(name), "lib/case-%05d/capture.hrr/pid-%d", i, i % 97);
		cr_assert_eq(intern(&t, name), kept[i], "%s moved", name);
		cr_assert_str_eq(kept[i], name);
	}
	cr_assert_eq(t.n, N + 5, "nothing added twice");
	intern_release(&t);
	free(kept);
}
