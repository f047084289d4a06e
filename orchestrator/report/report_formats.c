/* The report formats a sweep writes (report.h "report_formats"). */
#include "orchestrator/report/report.h"

const struct report_format report_formats[] = {
	{ "junit.xml", report_junit },
	{ "summary.md", report_summary_md },
	{ "summary.json", report_summary_json },
	{ "report.html", report_html },
};
const size_t report_formats_n = sizeof(report_formats) / sizeof(report_formats[0]);
