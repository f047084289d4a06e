#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "docker/engine.h"

struct ref_case {
	const char *in;
	const char *registry;
	const char *repository;
	const char *name;
	const char *tag; /* NULL = none */
	const char *digest;
	const char *auth_key;
};

#define DIGEST "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HUB "https://index.docker.io/v1/"

static const struct ref_case cases[] = {
	{ "ubuntu", "docker.io", "library/ubuntu", "ubuntu", "latest", NULL, HUB },
	{ "ubuntu:22.04", "docker.io", "library/ubuntu", "ubuntu", "22.04", NULL, HUB },
	{ "rocm/vllm:rocm6.4.1_vllm_0.9.1", "docker.io", "rocm/vllm", "rocm/vllm",
	  "rocm6.4.1_vllm_0.9.1", NULL, HUB },
	{ "127.0.0.1:5000/x/y:t", "127.0.0.1:5000", "x/y", "127.0.0.1:5000/x/y", "t", NULL,
	  "127.0.0.1:5000" },
	{ "localhost/x", "localhost", "x", "localhost/x", "latest", NULL, "localhost" },
	{ "name@" DIGEST, "docker.io", "library/name", "name", NULL, DIGEST, HUB },
	{ "registry.example.com:5000/team/img", "registry.example.com:5000", "team/img",
	  "registry.example.com:5000/team/img", "latest", NULL, "registry.example.com:5000" },
	{ "ghcr.io/a/b:v1@" DIGEST, "ghcr.io", "a/b", "ghcr.io/a/b", "v1", DIGEST, "ghcr.io" },
	{ "index.docker.io/library/busybox", "docker.io", "library/busybox",
	  "index.docker.io/library/busybox", "latest", NULL, HUB },
	{ "localhost:5000/a_b__c-d.e", "localhost:5000", "a_b__c-d.e",
	  "localhost:5000/a_b__c-d.e", "latest", NULL, "localhost:5000" },
	{ "hrr-sim:dev", "docker.io", "library/hrr-sim", "hrr-sim", "dev", NULL, HUB },
};

static void assert_str_or_null(const char *got, const char *want, const char *field,
			       const char *in)
{
	if (!want)
		cr_assert_null(got, "%s of %s: got %s", field, in, got);
	else
		cr_assert(got && !strcmp(got, want), "%s of %s: got %s, want %s", field, in,
			  got ? got : "(null)", want);
}

Test(docker_ref, parses_the_reference_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ref_case *c = &cases[i];
		struct image_ref r;
		struct error err;

		cr_assert_eq(image_ref_parse(&r, c->in, &err), 0, "%s: %s", c->in, err.msg);
		assert_str_or_null(r.registry, c->registry, "registry", c->in);
		assert_str_or_null(r.repository, c->repository, "repository", c->in);
		assert_str_or_null(r.name, c->name, "name", c->in);
		assert_str_or_null(r.tag, c->tag, "tag", c->in);
		assert_str_or_null(r.digest, c->digest, "digest", c->in);
		cr_assert_str_eq(image_ref_auth_key(&r), c->auth_key, "%s", c->in);
		image_ref_release(&r);
	}
}

Test(docker_ref, rejects_malformed_references)
{
	static const char *const bad[] = {
		"", "Ubuntu", "ubuntu:", "ubuntu:-x", "ubuntu@sha256:abc", "ubuntu@" "sha256:XYZ",
		"a//b", "/a", "a/", "host:port/x", "ubuntu:tag with space", ":tag", "@" DIGEST,
		"a__-b", "-a", "a..b",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct image_ref r;
		struct error err = { 0 };

		cr_assert_eq(image_ref_parse(&r, bad[i], &err), -1, "accepted \"%s\"", bad[i]);
		cr_assert_eq(err.kind, ERR_USAGE, "%s", bad[i]);
		cr_assert_neq(err.msg[0], '\0');
		cr_assert_null(r.name, "no partial result for %s", bad[i]);
	}
}

Test(docker_ref, host_port_without_tag_defaults_to_latest)
{
	struct image_ref r;
	struct error err;

	cr_assert_eq(image_ref_parse(&r, "127.0.0.1:5001/engine-test", &err), 0, "%s", err.msg);
	cr_assert_str_eq(r.registry, "127.0.0.1:5001");
	cr_assert_str_eq(r.repository, "engine-test");
	cr_assert_str_eq(r.tag, "latest");
	cr_assert_null(r.digest);
	image_ref_release(&r);
}

Test(docker_ref, the_familiar_name_is_dockerds)
{
	static const char *const cases[][2] = {
		{ "docker.io/library/ubuntu:22.04", "ubuntu" },
		{ "ubuntu", "ubuntu" },
		{ "index.docker.io/rocm/vllm:x", "rocm/vllm" },
		{ "docker.io/library/a/b", "library/a/b" },
		{ "127.0.0.1:5000/library/x:t", "127.0.0.1:5000/library/x" },
		{ "localhost/x", "localhost/x" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct image_ref r;
		struct error err;
		char *f;

		cr_assert_eq(image_ref_parse(&r, cases[i][0], &err), 0, "%s", err.msg);
		f = image_ref_familiar_name(&r);
		cr_expect_str_eq(f, cases[i][1], "%s", cases[i][0]);
		free(f);
		image_ref_release(&r);
	}
}
