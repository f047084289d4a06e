/* libFuzzer harness: failure signatures from untrusted text. The evidence
 * line and the kernel name come from a replay's log byte for byte; the
 * normalized line must stay short, valid UTF-8, free of addresses and
 * control characters, and a signature must survive its JSON form with
 * the same id. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "orchestrator/finding/kernel_family.h"
#include "orchestrator/finding/signature.h"
#include "orchestrator/finding/signature_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_normalized(const char *s, size_t n)
{
	if (n > SIGNATURE_TEXT_MAX || !text_is_utf8(s, n))
		abort();
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
		/* An address is a word of its own: "hal0xed" is not one. */
		if (s[i] == '0' && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
		    i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
		    strchr("0123456789abcdefABCDEF", s[i + 2]) && s[i + 2])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf norm = STRBUF_INIT;
	struct signature a, b;
	char *text = malloc(size + 1), *family;
	size_t split;
	cJSON *j;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	signature_normalize_line((const char *)data, size, &norm);
	check_normalized(norm.buf, norm.len);

	/* The first NUL (or the middle) splits a kernel name from a line. */
	split = strlen(text);
	family = kernel_family(text);
	/* A family is made of the name's own bytes: only its length is ours. */
	if (family && strlen(family) > 1024)
		abort();
	signature_init(&a);
	signature_init(&b);
	signature_make(&a, "MAF", "illegal_memory_access", text,
		       split < size ? text + split + 1 : text, NULL, false);
	if (!signature_set(&a) || strlen(a.id) != SIGNATURE_ID_LEN)
		abort();
	j = signature_to_json(&a);
	signature_from_json(&b, j);
	if (strcmp(a.id, b.id))
		abort();
	cJSON_Delete(j);
	signature_release(&a);
	signature_release(&b);
	free(family);
	free(text);
	strbuf_release(&norm);
	return 0;
}
