/* A finding's life after classification: merging the inputs, then the
 * archive facts, kernel attribution, notes and labels (docs/findings.md). */
#include "orchestrator/finding/finding.h"
#include "orchestrator/finding/finding_parts.h"
#include "orchestrator/finding/kernel_family.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/xalloc.h"


const char *finding_fault_class_name(enum finding_fault_class c)
{
	static const char *const names[] = {
		[FAULT_UNKNOWN] = "unknown",
		[FAULT_VERSION_MISMATCH] = "version_mismatch",
		[FAULT_HANG] = "hang",
		[FAULT_REPLAY_PASS] = "replay_pass",
		[FAULT_NAN_INF_DIVERGENCE] = "nan_inf_divergence",
		[FAULT_REPLAY_OOM] = "replay_oom",
		[FAULT_READ_ONLY_PAGE_FAULT] = "read_only_page_fault",
		[FAULT_ILLEGAL_MEMORY_ACCESS] = "illegal_memory_access",
		[FAULT_REPLAY_FATAL_API] = "replay_fatal_api",
		[FAULT_REPLAY_ABORTED] = "replay_aborted",
		[FAULT_REPLAY_CRASHED] = "replay_crashed",
		[FAULT_GPU_HANG] = "gpu_hang",
		[FAULT_GPU_ECC_ERROR] = "gpu_ecc_error",
		[FAULT_GPU_HW_EXCEPTION] = "gpu_hw_exception",
		[FAULT_ILLEGAL_INSTRUCTION] = "illegal_instruction",
		[FAULT_DEVICE_ASSERT] = "device_assert",
		[FAULT_KERNEL_FAULT] = "kernel_fault",
		[FAULT_CODE_OBJECT_MISMATCH] = "code_object_mismatch",
		[FAULT_OUT_OF_RESOURCES] = "out_of_resources",
		[FAULT_D2H_NOT_COMPARED] = "d2h_not_compared",
		[FAULT_REPLAY_API_ERRORS] = "replay_api_errors",
		[FAULT_CODE_OBJECT_UNLOADABLE] = "code_object_unloadable",
		[FAULT_REGION_VIOLATION] = "region_violation",
	};

	if ((unsigned)c >= sizeof(names) / sizeof(names[0]) || !names[c])
		return "unknown";
	return names[c];
}

bool finding_fault_class_from_name(const char *name, enum finding_fault_class *out)
{
	for (int c = FAULT_UNKNOWN; c <= FAULT_REGION_VIOLATION; c++)
		if (name && !strcmp(finding_fault_class_name((enum finding_fault_class)c), name)) {
			*out = (enum finding_fault_class)c;
			return true;
		}
	return false;
}

bool finding_class_against_gpu(enum finding_fault_class c)
{
	return c == FAULT_GPU_HANG || c == FAULT_GPU_ECC_ERROR || c == FAULT_GPU_HW_EXCEPTION;
}

const char *finding_outcome_name(enum finding_outcome o)
{
	switch (o) {
	case OUTCOME_PASS:
		return "PASS";
	case OUTCOME_MAF:
		return "MAF";
	case OUTCOME_FAIL:
		return "FAIL";
	case OUTCOME_ABORT:
		return "ABORT";
	case OUTCOME_HANG:
		return "HANG";
	case OUTCOME_UNKNOWN:
	default:
		return "UNKNOWN";
	}
}

bool finding_outcome_from_name(const char *name, enum finding_outcome *out)
{
	for (int o = OUTCOME_UNKNOWN; o <= OUTCOME_HANG; o++)
		if (name && !strcmp(finding_outcome_name((enum finding_outcome)o), name)) {
			*out = (enum finding_outcome)o;
			return true;
		}
	return false;
}

bool finding_outcome_is(const char *name, enum finding_outcome o)
{
	enum finding_outcome got;

	return finding_outcome_from_name(name, &got) && got == o;
}

void finding_init(struct finding *f)
{
	memset(f, 0, sizeof(*f));
	f->outcome = OUTCOME_UNKNOWN;
	f->failing_event_seq = -1;
	f->failing_call_index = -1;
	f->failing_thread = -1;
	f->replay_signal = -1;
	f->kernels_launched = -1;
	f->d2h_pass = -1;
	f->d2h_fail = -1;
	f->d2h_attempted = -1;
	f->archive_events = -1;
	f->archive_kernels = -1;
	strvec_init(&f->archive_kernel_names);
	f->archive_complete = -1;
	f->archive_format_version = -1;
	f->reader_format_version = -1;
	f->capture_device_count = -1;
	strvec_init(&f->sources);
	strvec_init(&f->notes);
	strvec_init(&f->labels);
	f->gpu_time_kernel_ms = -1;
	f->gpu_time_graph_ms = -1;
	f->gpu_time_total_ms = -1;
	f->archive_recovered_events = -1;
	f->archive_distinct_kernels = -1;
	f->timeout_s = -1;
	f->replay_parts = -1;
	finding_caveats_init(&(struct finding_caveats)CAVEATS_OF(f));
}

static void d2h_failure_release(struct d2h_failure *d)
{
	free(d->tag);
	free(d->src);
}

#define FINDING_N_STRINGS 19

/* The finding's owned single strings, for release and sanitizing. */
static void string_fields(struct finding *f, char **out[FINDING_N_STRINGS])
{
	char **strings[FINDING_N_STRINGS] = {
		&f->fault_address, &f->fault_reason, &f->failing_api,
		&f->kernel_name, &f->kernel_family, &f->kernarg_address, &f->grid,
		&f->workgroup, &f->gpu_node, &f->last_progress_kernel, &f->last_event_kernel,
		&f->capture_hip_so, &f->capture_hip_runtime_version, &f->capture_comgr_version,
		&f->capture_gcn_arch, &f->interrupt_signal, &f->evidence, &f->stop_reason,
		&f->replay_gcn_arch,
	};

	memcpy(out, strings, sizeof(strings));
}

void finding_release(struct finding *f)
{
	char **strings[FINDING_N_STRINGS];

	string_fields(f, strings);
	for (size_t i = 0; i < FINDING_N_STRINGS; i++)
		free(*strings[i]);
	strvec_clear(&f->archive_kernel_names);
	strvec_clear(&f->sources);
	strvec_clear(&f->notes);
	strvec_clear(&f->labels);
	for (size_t i = 0; i < f->n_d2h_failures; i++)
		d2h_failure_release(&f->d2h_failures[i]);
	free(f->d2h_failures);
	for (size_t i = 0; i < f->n_unread; i++) {
		free(f->unread[i].kind);
		free(f->unread[i].text);
	}
	free(f->unread);
	finding_caveats_release(&(struct finding_caveats)CAVEATS_OF(f));
	finding_init(f);
}

static bool strvec_has(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

void finding_add_note(struct finding *f, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (strvec_has(&f->notes, sb.buf) || f->notes.n >= FINDING_MAX_NOTES)
		strbuf_release(&sb);
	else
		strvec_push_nodup(&f->notes, strbuf_detach(&sb, NULL));
}

char *finding_kernel_family(const char *kernel)
{
	return kernel_family(kernel);
}

/* ---- merging ---- */

static void fill_str(char **dst, const char *src)
{
	if (!*dst && src)
		*dst = xstrdup(src);
}

static void fill_ll(long long *dst, long long src)
{
	if (*dst < 0 && src >= 0)
		*dst = src;
}

static void fill_int(int *dst, int src)
{
	if (*dst < 0 && src >= 0)
		*dst = src;
}

static void fill_double(double *dst, double src)
{
	if (*dst < 0 && src >= 0)
		*dst = src;
}

void finding_push_unique(struct strvec *sv, const char *s, size_t cap)
{
	if (!strvec_has(sv, s) && sv->n < cap)
		strvec_push(sv, s);
}

/* What --info output may tell: the archive's health, counts and names. */
static void merge_archive(struct finding *acc, const struct finding *later)
{
	fill_ll(&acc->archive_events, later->archive_events);
	fill_ll(&acc->archive_kernels, later->archive_kernels);
	fill_ll(&acc->archive_recovered_events, later->archive_recovered_events);
	fill_ll(&acc->archive_distinct_kernels, later->archive_distinct_kernels);
	for (size_t i = 0; i < later->archive_kernel_names.n; i++)
		finding_push_unique(&acc->archive_kernel_names, later->archive_kernel_names.v[i],
			    FINDING_MAX_KERNEL_NAMES);
	fill_int(&acc->archive_complete, later->archive_complete);
	fill_int(&acc->archive_format_version, later->archive_format_version);
	fill_int(&acc->reader_format_version, later->reader_format_version);
	acc->multi_process |= later->multi_process;
	for (size_t i = 0; i < later->sources.n; i++)
		strvec_push(&acc->sources, later->sources.v[i]);
}

/* Where it failed: the fault, the call, the kernel, the GPU. */
static void merge_where(struct finding *acc, const struct finding *later)
{
	fill_str(&acc->fault_address, later->fault_address);
	fill_str(&acc->fault_reason, later->fault_reason);
	fill_ll(&acc->failing_event_seq, later->failing_event_seq);
	if (acc->failing_call_index < 0 && later->failing_call_index >= 0) {
		acc->failing_call_index = later->failing_call_index;
		acc->failing_thread = later->failing_thread;
		free(acc->failing_api);
		acc->failing_api = xstrdup_or_null(later->failing_api);
	}
	if (!acc->kernel_name && later->kernel_name) {
		acc->kernel_name = xstrdup(later->kernel_name);
		acc->saw_kernel_from_fault_line = later->saw_kernel_from_fault_line;
	}
	fill_str(&acc->kernel_family, later->kernel_family);
	fill_str(&acc->kernarg_address, later->kernarg_address);
	if (!acc->grid && later->grid) {
		acc->grid = xstrdup(later->grid);
		free(acc->workgroup);
		acc->workgroup = xstrdup_or_null(later->workgroup);
	}
	fill_str(&acc->gpu_node, later->gpu_node);
	fill_int(&acc->replay_signal, later->replay_signal);
	fill_str(&acc->last_progress_kernel, later->last_progress_kernel);
	fill_str(&acc->last_event_kernel, later->last_event_kernel);
}

static void merge_d2h_failures(struct finding *acc, const struct finding *later)
{
	acc->d2h_failure_lines += later->d2h_failure_lines;
	for (size_t i = 0; i < later->n_d2h_failures; i++) {
		const struct d2h_failure *d = &later->d2h_failures[i];
		struct d2h_failure *n;

		if (acc->n_d2h_failures >= FINDING_MAX_D2H_FAILURES)
			break;
		acc->d2h_failures = xrealloc(acc->d2h_failures,
					     (acc->n_d2h_failures + 1) * sizeof(*acc->d2h_failures));
		n = &acc->d2h_failures[acc->n_d2h_failures++];
		*n = *d;
		n->tag = xstrdup_or_null(d->tag);
		n->src = xstrdup_or_null(d->src);
	}
}

/* Evidence no rule read: the first input that holds any. */
static void merge_unread(struct finding *acc, const struct finding *later)
{
	if (acc->n_unread || !later->n_unread)
		return;
	acc->unread = xcalloc(later->n_unread, sizeof(*acc->unread));
	for (size_t i = 0; i < later->n_unread; i++) {
		acc->unread[i] = later->unread[i];
		acc->unread[i].kind = xstrdup(later->unread[i].kind);
		acc->unread[i].text = xstrdup(later->unread[i].text);
	}
	acc->n_unread = later->n_unread;
}

void finding_merge(struct finding *acc, const struct finding *later)
{
	if (later->archive_tool_output) {
		merge_archive(acc, later);
		return;
	}
	if (later->outcome != OUTCOME_UNKNOWN) {
		acc->outcome = later->outcome;
		/* The evidence goes with the verdict it gave. */
		if (later->evidence) {
			free(acc->evidence);
			acc->evidence = xstrdup(later->evidence);
		}
	}
	fill_str(&acc->stop_reason, later->stop_reason);
	if (later->fault_class != FAULT_UNKNOWN)
		acc->fault_class = later->fault_class;
	/* The merge only reads later's fields: the view's pointers are not const. */
	finding_caveats_merge(&(struct finding_caveats)CAVEATS_OF(acc),
			      &(struct finding_caveats)CAVEATS_OF((struct finding *)later));
	merge_where(acc, later);

	/* The end-of-run summary outranks a heartbeat, whichever input held it. */
	if (later->kernels_launched >= 0 &&
	    (acc->kernels_launched < 0 || (later->kernels_from_summary && !acc->kernels_from_summary))) {
		acc->kernels_launched = later->kernels_launched;
		acc->kernels_from_summary = later->kernels_from_summary;
	}
	if (later->d2h_attempted >= 0 &&
	    (acc->d2h_attempted < 0 || (later->d2h_from_summary && !acc->d2h_from_summary))) {
		acc->d2h_pass = later->d2h_pass;
		acc->d2h_fail = later->d2h_fail;
		acc->d2h_attempted = later->d2h_attempted;
		acc->d2h_from_summary = later->d2h_from_summary;
	}

	merge_archive(acc, later);
	fill_str(&acc->capture_hip_so, later->capture_hip_so);
	fill_str(&acc->capture_hip_runtime_version, later->capture_hip_runtime_version);
	fill_str(&acc->capture_comgr_version, later->capture_comgr_version);
	fill_int(&acc->capture_device_count, later->capture_device_count);
	fill_str(&acc->capture_gcn_arch, later->capture_gcn_arch);

	for (size_t i = 0; i < later->notes.n; i++)
		finding_push_unique(&acc->notes, later->notes.v[i], FINDING_MAX_NOTES);
	for (size_t i = 0; i < later->labels.n; i++)
		finding_push_unique(&acc->labels, later->labels.v[i], 16);
	merge_d2h_failures(acc, later);

	fill_double(&acc->gpu_time_kernel_ms, later->gpu_time_kernel_ms);
	fill_double(&acc->gpu_time_graph_ms, later->gpu_time_graph_ms);
	fill_double(&acc->gpu_time_total_ms, later->gpu_time_total_ms);

	acc->saw_missing_handle |= later->saw_missing_handle;
	acc->saw_not_replayable |= later->saw_not_replayable;
	acc->saw_user_interrupt |= later->saw_user_interrupt;
	acc->saw_watchdog |= later->saw_watchdog;
	acc->saw_oom_marker |= later->saw_oom_marker;
	acc->saw_fault |= later->saw_fault;
	if (later->outcome != OUTCOME_UNKNOWN)
		acc->device_error_on_later_call = later->device_error_on_later_call;
	acc->timeout_without_output |= later->timeout_without_output;
	fill_ll(&acc->timeout_s, later->timeout_s);
	fill_str(&acc->interrupt_signal, later->interrupt_signal);
	if (!acc->runtime_status)
		acc->runtime_status = later->runtime_status;
	fill_ll(&acc->replay_parts, later->replay_parts);
	fill_str(&acc->replay_gcn_arch, later->replay_gcn_arch);
	merge_unread(acc, later);
}

/* ---- sanitizing ---- */

/* Printable ASCII needs nothing: the common case costs one pass. */
static bool plain_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static void sanitize_str(char **s)
{
	char *clean;

	if (!*s || plain_ascii(*s))
		return;
	clean = text_sanitized(*s, TEXT_STRIP_ANSI);
	free(*s);
	*s = clean;
}

static void sanitize_strvec(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		sanitize_str(&sv->v[i]);
}

void finding_sanitize(struct finding *f)
{
	char **strings[FINDING_N_STRINGS];

	string_fields(f, strings);
	for (size_t i = 0; i < FINDING_N_STRINGS; i++)
		sanitize_str(strings[i]);
	sanitize_strvec(&f->archive_kernel_names);
	sanitize_strvec(&f->sources);
	sanitize_strvec(&f->notes);
	sanitize_strvec(&f->labels);
	for (size_t i = 0; i < f->n_d2h_failures; i++) {
		sanitize_str(&f->d2h_failures[i].tag);
		sanitize_str(&f->d2h_failures[i].src);
	}
	for (size_t i = 0; i < f->n_unread; i++) {
		sanitize_str(&f->unread[i].kind);
		sanitize_str(&f->unread[i].text);
	}
	finding_caveats_sanitize(&(struct finding_caveats)CAVEATS_OF(f));
}
