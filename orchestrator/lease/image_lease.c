#include "orchestrator/lease/image_lease.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/cleanup.h"
#include "common/json.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "orchestrator/lease/gpu_lease.h"

/* A record or hold file is small; anything larger is not ours. */
#define FILE_MAX (4u << 20)

static void entry_release(struct pulled_image *e)
{
	free(e->id);
	free(e->ref);
	free(e->digest);
	free(e->owner);
	image_layers_release(&e->layers);
	memset(e, 0, sizeof(*e));
}

void pulled_images_release(struct pulled_images *p)
{
	for (size_t i = 0; i < p->n; i++)
		entry_release(&p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

struct pulled_image *pulled_images_find(const struct pulled_images *p, const char *id)
{
	for (size_t i = 0; id && i < p->n; i++)
		if (!strcmp(p->v[i].id, id))
			return &p->v[i];
	return NULL;
}

void pulled_images_put(struct pulled_images *p, const struct pulled_image *im)
{
	struct pulled_image *e = pulled_images_find(p, im->id);

	if (e)
		entry_release(e);
	else {
		p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
		e = &p->v[p->n++];
	}
	*e = (struct pulled_image){ xstrdup(im->id), xstrdup_or_null(im->ref),
				    xstrdup_or_null(im->digest), xstrdup_or_null(im->owner),
				    im->size, im->pulled, im->last_used, { 0 } };
	image_layers_copy(&e->layers, &im->layers);
}

void pulled_images_drop(struct pulled_images *p, const char *id)
{
	struct pulled_image *e = pulled_images_find(p, id);

	if (!e)
		return;
	entry_release(e);
	*e = p->v[--p->n];
}

long long pulled_images_disk(const struct pulled_images *p)
{
	struct layer_tally t;
	long long bytes;

	layer_tally_init(&t);
	for (size_t i = 0; i < p->n; i++)
		layer_tally_add(&t, &p->v[i].layers, p->v[i].size);
	bytes = t.bytes;
	layer_tally_release(&t);
	return bytes;
}

static void layers_format(cJSON *o, const struct image_layers *l)
{
	cJSON *arr;

	if (!l->n)
		return;
	arr = cJSON_AddArrayToObject(o, "layers");
	for (size_t i = 0; i < l->n; i++) {
		cJSON *e = cJSON_CreateObject();

		json_add_str(e, "diff_id", l->v[i].diff_id, JSON_TEXT);
		cJSON_AddNumberToObject(e, "size", (double)l->v[i].size);
		cJSON_AddItemToArray(arr, e);
	}
}

/* Every entry or none: a layer list with a broken entry is not known. */
static void layers_parse(const cJSON *arr, struct image_layers *out)
{
	const cJSON *it;

	memset(out, 0, sizeof(*out));
	cJSON_ArrayForEach(it, arr) {
		const char *id = json_str(it, "diff_id");
		long long size = json_int(it, "size", 0, 1LL << 50, -1);

		if (!id || strncmp(id, "sha256:", 7) || size < 0) {
			image_layers_release(out);
			return;
		}
		image_layers_add(out, id, size);
	}
}

char *pulled_images_format(const struct pulled_images *p)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->n; i++) {
		cleanup_cjson cJSON *o = cJSON_CreateObject();
		cleanup_free char *line = NULL;

		json_add_str(o, "id", p->v[i].id, JSON_TEXT);
		json_add_str(o, "ref", p->v[i].ref, JSON_TEXT);
		json_add_str(o, "digest", p->v[i].digest, JSON_TEXT);
		json_add_str(o, "owner", p->v[i].owner, JSON_TEXT);
		cJSON_AddNumberToObject(o, "size", (double)p->v[i].size);
		cJSON_AddNumberToObject(o, "pulled", (double)p->v[i].pulled);
		cJSON_AddNumberToObject(o, "last_used", (double)p->v[i].last_used);
		layers_format(o, &p->v[i].layers);
		line = cJSON_PrintUnformatted(o);
		strbuf_addf(&sb, "%s\n", line);
	}
	return strbuf_detach(&sb, NULL);
}

void pulled_images_parse(const char *text, struct pulled_images *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		cleanup_cjson cJSON *o = cJSON_ParseWithLength(p, len);
		const char *id = json_str(o, "id");
		struct image_layers layers = { 0 };

		if (id && !strncmp(id, "sha256:", 7)) {
			layers_parse(json_arr(o, "layers"), &layers);
			pulled_images_put(out, &(struct pulled_image){
				.id = (char *)id, .ref = (char *)json_str(o, "ref"),
				.digest = (char *)json_str(o, "digest"),
				.owner = (char *)json_str(o, "owner"),
				.size = json_int(o, "size", 0, 1LL << 50, 0),
				.pulled = json_int(o, "pulled", 0, 1LL << 40, 0),
				.last_used = json_int(o, "last_used", 0, 1LL << 40, 0),
				.layers = layers });
			image_layers_release(&layers);
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* The whole of a lock-directory file from its descriptor. */
static int read_fd(int fd, struct strbuf *sb, const char *name, struct error *err)
{
	char buf[8192];
	off_t at = 0;
	ssize_t got;

	while ((got = pread(fd, buf, sizeof(buf), at)) > 0) {
		strbuf_add(sb, buf, (size_t)got);
		at += got;
		if (sb->len > FILE_MAX)
			return error_set(err, ERR_DATA, 0, "lock file %s is over %u bytes: refused; "
					 "remove it", name, FILE_MAX);
	}
	return got < 0 ? error_errno(err, "reading lock file %s", name) : 0;
}

static int write_fd(int fd, const char *text, const char *name, struct error *err)
{
	size_t len = strlen(text);

	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, len, 0) != (ssize_t)len)
		return error_errno(err, "writing lock file %s", name);
	return 0;
}

int image_record_open(struct image_record *r, const char *dir, struct error *err)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	bool writable;

	memset(r, 0, sizeof(*r));
	r->fd = gpu_lease_open_file(dir, IMAGE_RECORD_FILE, &writable, err);
	if (r->fd < 0)
		return -1;
	if (!writable) {
		close(r->fd);
		r->fd = -1;
		return error_set(err, ERR_USAGE, 0, "%s/%s is not writable by you: the record of "
				 "pulled images is every user's (mode 0666)", dir, IMAGE_RECORD_FILE);
	}
	if (flock(r->fd, LOCK_EX) < 0)
		error_errno(err, "flock %s/%s", dir, IMAGE_RECORD_FILE);
	else if (read_fd(r->fd, &text, IMAGE_RECORD_FILE, err) == 0) {
		pulled_images_parse(text.buf ? text.buf : "", &r->list);
		return 0;
	}
	image_record_close(r);
	return -1;
}

int image_record_save(struct image_record *r, struct error *err)
{
	cleanup_free char *text = pulled_images_format(&r->list);

	return write_fd(r->fd, text, IMAGE_RECORD_FILE, err);
}

void image_record_close(struct image_record *r)
{
	if (r->fd >= 0)
		close(r->fd); /* drops the flock */
	pulled_images_release(&r->list);
	r->fd = -1;
}

static char *names_text(const struct strvec *names)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; names && i < names->n; i++)
		strbuf_addf(&sb, "%s\n", names->v[i]);
	return strbuf_detach(&sb, NULL);
}

int image_hold_take(struct image_hold *h, const char *dir, const char *who,
		    const struct strvec *names, struct error *err)
{
	bool writable;

	h->name = xasprintf("%s%s", IMAGE_HOLD_PREFIX, who);
	h->fd = gpu_lease_open_file(dir, h->name, &writable, err);
	if (h->fd >= 0 && (!writable || flock(h->fd, LOCK_EX | LOCK_NB) < 0)) {
		close(h->fd);
		h->fd = -1;
		error_set(err, ERR_BUSY, 0, "image hold %s/%s is someone else's", dir, h->name);
	}
	if (h->fd < 0) {
		free(h->name);
		h->name = NULL;
		return -1;
	}
	image_hold_set(h, names);
	return 0;
}

void image_hold_set(struct image_hold *h, const struct strvec *names)
{
	cleanup_free char *text = names_text(names);

	if (h->fd >= 0)
		(void)write_fd(h->fd, text, h->name, ERROR_DISCARD);
}

void image_hold_release(struct image_hold *h, const char *dir)
{
	if (h->fd >= 0) {
		cleanup_free char *path = xasprintf("%s/%s", dir, h->name);

		(void)unlink(path);
		close(h->fd);
	}
	free(h->name);
	h->fd = -1;
	h->name = NULL;
}

/* Whether the hold file name is locked and lists id or digest. */
static bool hold_lists(const char *dir, const char *name, const char *id, const char *digest)
{
	cleanup_strbuf struct strbuf text = STRBUF_INIT;
	bool writable, found = false;
	cleanup_close int fd = gpu_lease_open_file(dir, name, &writable, ERROR_DISCARD);

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		return false; /* its holder is gone: closing fd unlocks */
	if (read_fd(fd, &text, name, ERROR_DISCARD) < 0 || !text.buf)
		return false;
	for (char *line = strtok(text.buf, "\n"); line && !found; line = strtok(NULL, "\n"))
		found = (id && !strcmp(line, id)) || (digest && !strcmp(line, digest));
	return found;
}

bool image_held_by_others(const char *dir, const struct image_hold *mine, const char *id,
			  const char *digest)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool held = false;

	while (d && !held && (e = readdir(d)))
		if (!strncmp(e->d_name, IMAGE_HOLD_PREFIX, strlen(IMAGE_HOLD_PREFIX)) &&
		    !(mine && mine->name && !strcmp(mine->name, e->d_name)))
			held = hold_lists(dir, e->d_name, id, digest);
	if (d)
		closedir(d);
	return held;
}
