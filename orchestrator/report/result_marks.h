/* What the reports show of a failure beside its verdict: its signature
 * (id, fault class, kernel family) and the known issue a rule matched it
 * to, read from the results lines that carry them ("signature", "known":
 * docs/sweep.md "The sweep folder"). Lines without them (older sweeps,
 * PASS results) mark nothing. Per case and image, the final attempt's. */
#ifndef HRR_REPORT_RESULT_MARKS_H
#define HRR_REPORT_RESULT_MARKS_H

#include <stddef.h>

struct result_mark {
	char *case_name, *image;
	int attempt;
	char *sig_id, *sig_class, *sig_family;
	char *known_id, *known_link, *known_owner;
};

struct result_marks {
	struct result_mark *v; /* sorted by case, then image, after result_marks_load */
	size_t n, alloc;
};

/* One results line: its marks kept when its attempt is the highest of its
 * case and image so far (a later attempt without a signature clears them). */
void result_marks_add_line(struct result_marks *m, const char *line);
/* Every results file of folder; what cannot be read marks nothing. */
void result_marks_load(struct result_marks *m, const char *folder);
void result_marks_sort(struct result_marks *m);
/* NULL: no marks for that case and image. After result_marks_sort. */
const struct result_mark *result_marks_find(const struct result_marks *m, const char *case_name,
					    const char *image);
void result_marks_release(struct result_marks *m);

#endif
