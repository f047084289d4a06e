/* The report formats a sweep writes (report.h "report_formats"). */
#include "report/report.h"

static int summary_md(const struct report *r, struct strbuf *out, struct error *err)
{
	(void)err;
	report_summary_md(r, out);
	return 0;
}

static int summary_json(const struct report *r, struct strbuf *out, struct error *err)
{
	(void)err;
	report_summary_json(r, out);
	return 0;
}

const struct report_format report_formats[] = {
	{ "junit.xml", report_junit },
	{ "summary.md", summary_md },
	{ "summary.json", summary_json },
	{ "report.html", report_html },
};
const size_t report_formats_n = sizeof(report_formats) / sizeof(report_formats[0]);
