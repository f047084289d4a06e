/* `history site DIR`: pass rates per image ID (with the references it was
 * used by) and per GPU, over every label's sweeps, and the index. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "orchestrator/site/site_gen.h"

static struct rate_acc *acc_of(struct rate_set *s, const char *key, size_t n_cols)
{
	struct rate_acc *a = NULL;

	for (size_t i = 0; i < s->n && !a; i++)
		if (!strcmp(s->v[i].key, key))
			a = &s->v[i];
	if (!a) {
		if (s->n == s->alloc)
			s->v = xrealloc(s->v, (s->alloc = s->alloc ? 2 * s->alloc : 16) * sizeof(*s->v));
		a = memset(&s->v[s->n++], 0, sizeof(*a));
		a->key = xstrdup(key);
		strvec_init(&a->tags);
	}
	if (!a->pass) {
		a->pass = xcalloc(n_cols + 1, sizeof(unsigned));
		a->total = xcalloc(n_cols + 1, sizeof(unsigned));
	}
	return a;
}

static bool has(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return true;
	return false;
}

static void count(struct rate_acc *a, size_t col, enum site_outcome o)
{
	a->total[col]++;
	a->pass[col] += o == SO_PASS;
}

void site_rates_count(struct site_gen *g, size_t n_cols, size_t col, const char *image_id,
		      const char *image, const char *host, const char *gpus,
		      enum site_outcome o)
{
	struct rate_acc *a;

	if (o < SO_PASS)
		return;
	a = acc_of(&g->images, image_id ? image_id : "no image ID", n_cols);
	count(a, col, o);
	if (image && !has(&a->tags, image))
		strvec_push(&a->tags, image);
	/* A GPU is its host and what the result recorded of it. */
	for (const char *p = gpus; p && *p;) {
		size_t len = strcspn(p, ",");
		cleanup_free char *key = xasprintf("%s %.*s", host ? host : "?", (int)len, p);

		count(acc_of(&g->gpus, key, n_cols), col, o);
		p += len + (p[len] == ',');
	}
}

static void close_set(struct site_gen *g, struct rate_set *s, const struct site_sweep_col *cols,
		      size_t n_cols, const char *label)
{
	for (size_t i = 0; i < s->n; i++) {
		struct rate_acc *a = &s->v[i];

		for (size_t c = 0; a->pass && c < n_cols; c++) {
			if (!a->total[c])
				continue;
			if (a->n == a->alloc)
				a->v = xrealloc(a->v, (a->alloc = a->alloc ? 2 * a->alloc : 64) *
							      sizeof(*a->v));
			strvec_push(&g->keep, cols[c].id);
			a->v[a->n] = (struct site_rate_point){ .sweep_id = g->keep.v[g->keep.n - 1],
							       .started = cols[c].started,
							       .pass = a->pass[c],
							       .total = a->total[c] };
			strvec_push(&g->keep, label);
			a->v[a->n++].label = g->keep.v[g->keep.n - 1];
		}
		free(a->pass);
		free(a->total);
		a->pass = a->total = NULL;
	}
}

void site_rates_close_label(struct site_gen *g, const struct site_sweep_col *cols,
			    size_t n_cols, const char *label)
{
	close_set(g, &g->images, cols, n_cols, label);
	close_set(g, &g->gpus, cols, n_cols, label);
}

static int by_time(const void *a, const void *b)
{
	const struct site_rate_point *x = a, *y = b;

	return x->started < y->started ? -1 : x->started > y->started;
}

static int write_set(struct site_gen *g, struct rate_set *s, const char *kind,
		     const char *prefix, struct site_index_link *links)
{
	for (size_t i = 0; i < s->n; i++) {
		struct rate_acc *a = &s->v[i];
		cleanup_strbuf struct strbuf tags = STRBUF_INIT;
		const char *parts[] = { a->key };
		unsigned long long pass = 0, total = 0;
		struct site_rates r = { .kind = kind, .key = a->key, .v = a->v, .n = a->n };

		if (a->n)
			qsort(a->v, a->n, sizeof(*a->v), by_time);
		for (size_t k = 0; k < a->tags.n; k++)
			strbuf_addf(&tags, "%s%s", k ? ", " : "", a->tags.v[k]);
		for (size_t k = 0; k < a->n; k++) {
			pass += a->v[k].pass;
			total += a->v[k].total;
		}
		r.aka = tags.len ? tags.buf : NULL;
		strbuf_reset(&g->page);
		strbuf_reset(&g->name);
		site_page_name(prefix, parts, 1, &g->name);
		if (site_rates_html(&r, &g->page, g->err) < 0 || site_gen_write(g, g->name.buf) < 0)
			return -1;
		strvec_push(&g->keep, g->name.buf);
		links[i] = (struct site_index_link){ .name = a->key,
						     .page = g->keep.v[g->keep.n - 1],
						     .pass_rate = total ? (double)pass / total : 0 };
		if (tags.len) {
			strvec_push(&g->keep, tags.buf);
			links[i].detail = g->keep.v[g->keep.n - 1];
		}
	}
	return 0;
}

int site_rates_write(struct site_gen *g)
{
	cleanup_free struct site_index_link *images =
		xcalloc(g->images.n + 1, sizeof(*images));
	cleanup_free struct site_index_link *gpus = xcalloc(g->gpus.n + 1, sizeof(*gpus));
	struct site_index x = { .labels = g->labels, .n_labels = g->n_labels, .images = images,
				.n_images = g->images.n, .gpus = gpus, .n_gpus = g->gpus.n,
				.fresh = g->fresh, .n_fresh = g->n_fresh,
				.signatures_page = g->signatures_page, .perf = &g->perf };
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	x.generated = when;
	if (write_set(g, &g->images, "Image", "image", images) < 0 ||
	    write_set(g, &g->gpus, "GPU", "gpu", gpus) < 0)
		return -1;
	strbuf_reset(&g->page);
	if (site_index_html(&x, &g->page, g->err) < 0)
		return -1;
	return site_gen_write(g, SITE_INDEX);
}

void site_rates_release(struct rate_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		free(s->v[i].v);
		free(s->v[i].pass);
		free(s->v[i].total);
		strvec_clear(&s->v[i].tags);
	}
	free(s->v);
	s->v = NULL;
	s->n = s->alloc = 0;
}
