#include <criterion/criterion.h>

#include "tests/support/scratch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/strbuf.h"
#include "common/xalloc.h"
#include "docker/internal.h"
#include "tests/support/engine_test.h"

/* Each test gets its own DOCKER_CONFIG and a PATH whose first entry holds
 * a fake credential helper. */
static char *tmp;
static char *old_path;
static char *old_config;

static const char helper_script[] =
	"#!/bin/sh\n"
	"[ \"$1\" = get ] || exit 2\n"
	"server=$(cat)\n"
	"printf '%s' \"$server\" >\"$(dirname \"$0\")/../asked\"\n"
	"case \"$server\" in\n"
	"127.0.0.1:5001) printf '{\"ServerURL\":\"%s\",\"Username\":\"helper-user\",\"Secret\":\"helper-pass\"}\\n' \"$server\" ;;\n"
	"token.example.com) printf '{\"ServerURL\":\"%s\",\"Username\":\"<token>\",\"Secret\":\"tok-123\"}\\n' \"$server\" ;;\n"
	"https://index.docker.io/v1/) printf '{\"Username\":\"hubuser\",\"Secret\":\"hubpass\"}' ;;\n"
	"broken.example.com) echo 'keychain locked'; exit 3 ;;\n"
	"*) echo 'credentials not found in native keychain'; exit 1 ;;\n"
	"esac\n";

static void setup(void)
{
	char *bin, *path;

	tmp = scratch_dir("engine-test");
	bin = xasprintf("%s/bin", tmp);
	cr_assert_eq(mkdir(bin, 0755), 0);
	path = xasprintf("%s/docker-credential-hrrtest", bin);
	et_write(path, helper_script, 0755);
	free(path);
	old_path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;
	old_config = getenv("DOCKER_CONFIG") ? xstrdup(getenv("DOCKER_CONFIG")) : NULL;
	path = xasprintf("%s:%s", bin, old_path ? old_path : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	setenv("DOCKER_CONFIG", tmp, 1);
	free(path);
	free(bin);
}

static void teardown(void)
{
	if (old_path)
		setenv("PATH", old_path, 1);
	if (old_config)
		setenv("DOCKER_CONFIG", old_config, 1);
	else
		unsetenv("DOCKER_CONFIG");
	free(old_path);
	free(old_config);
	scratch_remove(tmp);
	free(tmp);
}

TestSuite(docker_auth, .init = setup, .fini = teardown);

static void write_config(const char *json)
{
	char *p = xasprintf("%s/config.json", tmp);

	et_write(p, json, 0600);
	free(p);
}

static char *b64(const char *s)
{
	return engine_base64_encode(s, strlen(s));
}

/* The header for ref, decoded, compared with want (a JSON text). */
static void expect_header(const char *ref_s, const char *want)
{
	struct image_ref ref;
	struct error err;
	char *hdr = NULL;
	cJSON *got, *exp;

	cr_assert_eq(image_ref_parse(&ref, ref_s, &err), 0, "%s", err.msg);
	cr_assert_eq(registry_auth_header(&ref, &hdr, &err), 0, "%s: %s", ref_s, err.msg);
	if (!want) {
		cr_assert_null(hdr, "%s: unexpected credentials", ref_s);
		image_ref_release(&ref);
		return;
	}
	got = et_decode_auth(hdr);
	exp = cJSON_Parse(want);
	cr_assert_not_null(exp);
	{
		char *g = cJSON_PrintUnformatted(got);

		cr_assert(cJSON_Compare(got, exp, true), "%s: got %s, want %s", ref_s, g, want);
		free(g);
	}
	cJSON_Delete(got);
	cJSON_Delete(exp);
	free(hdr);
	image_ref_release(&ref);
}

static char *asked(void)
{
	char *p = xasprintf("%s/asked", tmp);
	FILE *f = fopen(p, "r");
	char buf[256] = "";

	free(p);
	if (!f)
		return xstrdup("");
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return xstrdup(buf);
}

Test(docker_auth, no_config_file_means_no_credentials)
{
	expect_header("127.0.0.1:5001/x:1", NULL);
}

Test(docker_auth, auths_entry_by_host)
{
	char *a = b64("hrrtest:hrrtest-secret");
	char *cfg = xasprintf("{\"auths\":{\"127.0.0.1:5001\":{\"auth\":\"%s\"}}}", a);

	write_config(cfg);
	expect_header("127.0.0.1:5001/x:1",
		      "{\"username\":\"hrrtest\",\"password\":\"hrrtest-secret\","
		      "\"serveraddress\":\"127.0.0.1:5001\"}");
	/* Another registry gets nothing. */
	expect_header("127.0.0.1:5000/x:1", NULL);
	free(cfg);
	free(a);
}

Test(docker_auth, auths_entry_with_scheme_and_path_and_colon_in_password)
{
	char *a = b64("u:p:a:s:s");
	char *cfg = xasprintf("{\"auths\":{\"https://127.0.0.1:5001/v2/\":{\"auth\":\"%s\"}}}", a);

	write_config(cfg);
	expect_header("127.0.0.1:5001/x",
		      "{\"username\":\"u\",\"password\":\"p:a:s:s\","
		      "\"serveraddress\":\"127.0.0.1:5001\"}");
	free(cfg);
	free(a);
}

Test(docker_auth, docker_hub_key)
{
	char *a = b64("hub:secret");
	char *cfg = xasprintf("{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"%s\"}}}", a);

	write_config(cfg);
	expect_header("ubuntu:22.04",
		      "{\"username\":\"hub\",\"password\":\"secret\","
		      "\"serveraddress\":\"https://index.docker.io/v1/\"}");
	expect_header("rocm/vllm", "{\"username\":\"hub\",\"password\":\"secret\","
				   "\"serveraddress\":\"https://index.docker.io/v1/\"}");
	free(cfg);
	free(a);
}

Test(docker_auth, auths_identity_token)
{
	write_config("{\"auths\":{\"reg.example.com\":{\"identitytoken\":\"idt\"}}}");
	expect_header("reg.example.com/a/b",
		      "{\"identitytoken\":\"idt\",\"serveraddress\":\"reg.example.com\"}");
}

Test(docker_auth, cred_helper_wins_over_auths)
{
	char *a = b64("file-user:file-pass");
	char *cfg = xasprintf("{\"credHelpers\":{\"127.0.0.1:5001\":\"hrrtest\"},"
			      "\"auths\":{\"127.0.0.1:5001\":{\"auth\":\"%s\"}}}",
			      a);
	char *q;

	write_config(cfg);
	expect_header("127.0.0.1:5001/x:1",
		      "{\"username\":\"helper-user\",\"password\":\"helper-pass\","
		      "\"serveraddress\":\"127.0.0.1:5001\"}");
	q = asked();
	cr_assert_str_eq(q, "127.0.0.1:5001", "the helper gets the server on stdin");
	free(q);
	free(cfg);
	free(a);
}

Test(docker_auth, creds_store_identity_token)
{
	write_config("{\"credsStore\":\"hrrtest\"}");
	expect_header("token.example.com/x",
		      "{\"identitytoken\":\"tok-123\",\"serveraddress\":\"token.example.com\"}");
}

Test(docker_auth, creds_store_for_docker_hub_gets_the_hub_key)
{
	char *q;

	write_config("{\"credsStore\":\"hrrtest\"}");
	expect_header("busybox", "{\"username\":\"hubuser\",\"password\":\"hubpass\","
				 "\"serveraddress\":\"https://index.docker.io/v1/\"}");
	q = asked();
	cr_assert_str_eq(q, "https://index.docker.io/v1/");
	free(q);
}

Test(docker_auth, creds_store_not_found_falls_back_to_auths)
{
	char *a = b64("f:g");
	char *cfg = xasprintf("{\"credsStore\":\"hrrtest\",\"auths\":{\"other.example.com\":{\"auth\":\"%s\"}}}", a);

	write_config(cfg);
	expect_header("other.example.com/x",
		      "{\"username\":\"f\",\"password\":\"g\",\"serveraddress\":\"other.example.com\"}");
	expect_header("nothing.example.com/x", NULL);
	free(cfg);
	free(a);
}

Test(docker_auth, failing_helper_is_a_clear_error)
{
	struct image_ref ref;
	struct error err;
	char *hdr = NULL;

	write_config("{\"credsStore\":\"hrrtest\"}");
	cr_assert_eq(image_ref_parse(&ref, "broken.example.com/x", &err), 0);
	cr_assert_eq(registry_auth_header(&ref, &hdr, &err), -1);
	cr_assert_null(hdr);
	cr_assert(strstr(err.msg, "docker-credential-hrrtest"), "%s", err.msg);
	cr_assert(strstr(err.msg, "keychain locked"), "%s", err.msg);
	image_ref_release(&ref);
}

Test(docker_auth, missing_helper_is_a_clear_error)
{
	struct image_ref ref;
	struct error err;
	char *hdr = NULL;

	write_config("{\"credHelpers\":{\"127.0.0.1:5001\":\"nosuchhelper\"}}");
	cr_assert_eq(image_ref_parse(&ref, "127.0.0.1:5001/x", &err), 0);
	cr_assert_eq(registry_auth_header(&ref, &hdr, &err), -1);
	cr_assert(strstr(err.msg, "docker-credential-nosuchhelper"), "%s", err.msg);
	cr_assert(strstr(err.msg, "credHelpers"), "%s", err.msg);
	image_ref_release(&ref);
}

Test(docker_auth, malformed_config_is_a_data_error)
{
	struct image_ref ref;
	struct error err;
	char *hdr = NULL;

	write_config("{\"auths\": ");
	cr_assert_eq(image_ref_parse(&ref, "127.0.0.1:5001/x", &err), 0);
	cr_assert_eq(registry_auth_header(&ref, &hdr, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert(strstr(err.msg, "config.json"), "%s", err.msg);
	image_ref_release(&ref);
}

Test(docker_auth, auth_that_is_not_user_colon_password_is_a_data_error)
{
	struct image_ref ref;
	struct error err;
	char *hdr = NULL;
	char *a = b64("nocolon");
	char *cfg = xasprintf("{\"auths\":{\"127.0.0.1:5001\":{\"auth\":\"%s\"}}}", a);

	write_config(cfg);
	cr_assert_eq(image_ref_parse(&ref, "127.0.0.1:5001/x", &err), 0);
	cr_assert_eq(registry_auth_header(&ref, &hdr, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	image_ref_release(&ref);
	free(cfg);
	free(a);
}

Test(docker_base64, encodes_standard_and_url_alphabets_with_padding)
{
	static const struct {
		const char *in;
		size_t len;
		const char *std;
		const char *url;
	} v[] = {
		{ "", 0, "", "" },
		{ "f", 1, "Zg==", "Zg==" },
		{ "fo", 2, "Zm8=", "Zm8=" },
		{ "foo", 3, "Zm9v", "Zm9v" },
		{ "foob", 4, "Zm9vYg==", "Zm9vYg==" },
		{ "\xfb\xff", 2, "+/8=", "-_8=" },
		{ "\xfb\xef\xbe", 3, "++++", "----" },
		{ "?>?", 3, "Pz4/", "Pz4_" },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *s = engine_base64_encode(v[i].in, v[i].len);
		char *u = engine_base64url_encode(v[i].in, v[i].len);
		struct strbuf d1 = STRBUF_INIT, d2 = STRBUF_INIT;
		struct error err;

		cr_assert_str_eq(s, v[i].std);
		cr_assert_str_eq(u, v[i].url);
		cr_assert_eq(engine_base64_decode(s, strlen(s), &d1, &err), 0, "%s", err.msg);
		cr_assert_eq(engine_base64_decode(u, strlen(u), &d2, &err), 0, "%s", err.msg);
		cr_assert_eq(d1.len, v[i].len);
		cr_assert_eq(d2.len, v[i].len);
		cr_assert(!memcmp(d1.buf, v[i].in, v[i].len));
		cr_assert(!memcmp(d2.buf, v[i].in, v[i].len));
		strbuf_release(&d1);
		strbuf_release(&d2);
		free(s);
		free(u);
	}
}

Test(docker_base64, decode_accepts_missing_padding_and_rejects_garbage)
{
	struct strbuf d = STRBUF_INIT;
	struct error err;

	cr_assert_eq(engine_base64_decode("Zm8", 3, &d, &err), 0);
	cr_assert_str_eq(d.buf, "fo");
	strbuf_reset(&d);
	cr_assert_eq(engine_base64_decode("Zm9v!", 5, &d, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	cr_assert_eq(engine_base64_decode("Z", 1, &d, &err), -1);
	cr_assert_eq(engine_base64_decode("Zg=", 3, &d, &err), -1);
	strbuf_release(&d);
}

Test(docker_auth, config_text_names_the_helper_and_reads_auths_without_running_anything)
{
	static const char cfg[] =
		"{\"credHelpers\":{\"ghcr.io\":\"gh\"},\"credsStore\":\"desktop\","
		"\"auths\":{\"http://127.0.0.1:5000/v2/\":{\"auth\":\"dTpw\"}}}";
	struct image_ref ref;
	char *hdr = NULL, *helper = NULL;
	struct error err;
	cJSON *j;

	cr_assert_eq(image_ref_parse(&ref, "127.0.0.1:5000/x:1", &err), 0);
	cr_assert_eq(registry_auth_from_config_text(cfg, strlen(cfg), &ref, &hdr, &helper, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(helper, "desktop");
	j = et_decode_auth(hdr);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "username")->valuestring, "u");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "password")->valuestring, "p");
	cJSON_Delete(j);
	free(hdr);
	free(helper);
	image_ref_release(&ref);

	cr_assert_eq(image_ref_parse(&ref, "ghcr.io/a/b:1", &err), 0);
	cr_assert_eq(registry_auth_from_config_text(cfg, strlen(cfg), &ref, &hdr, &helper, &err), 0);
	cr_assert_str_eq(helper, "gh");
	cr_assert_null(hdr);
	free(helper);
	cr_assert_eq(registry_auth_from_config_text("[1]", 3, &ref, &hdr, &helper, &err), -1);
	cr_assert_eq(err.kind, ERR_DATA);
	image_ref_release(&ref);
}
