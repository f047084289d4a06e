/* docker/registry/parse.c: auth challenges, Link pagination, RFC 3339 times,
 * loopback hosts. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "docker/registry/registry.h"

Test(registry_parse, bearer_challenge_with_quoted_params)
{
	struct registry_challenge ch;

	cr_assert_eq(registry_challenge_parse(
			     "Bearer realm=\"https://auth.example.com/token\",service=\"registry.example.com\","
			     "scope=\"repository:rocm/vllm:pull\"", &ch), 0);
	cr_expect(ch.bearer);
	cr_expect_str_eq(ch.realm, "https://auth.example.com/token");
	cr_expect_str_eq(ch.service, "registry.example.com");
	cr_expect_str_eq(ch.scope, "repository:rocm/vllm:pull");
	registry_challenge_release(&ch);
}

Test(registry_parse, basic_and_broken_challenges)
{
	struct registry_challenge ch;

	cr_assert_eq(registry_challenge_parse("Basic realm=\"hrr-test\"", &ch), 0);
	cr_expect_not(ch.bearer);
	registry_challenge_release(&ch);
	cr_expect_eq(registry_challenge_parse("Bearer service=\"x\"", &ch), -1, "no realm");
	cr_expect_eq(registry_challenge_parse("Negotiate abc", &ch), -1);
	cr_expect_eq(registry_challenge_parse("Bearerx realm=\"a\"", &ch), -1);
}

Test(registry_parse, link_next_page)
{
	char *n = registry_link_next("</v2/x/tags/list?last=t05&n=5>; rel=\"next\"");

	cr_assert_not_null(n);
	cr_expect_str_eq(n, "/v2/x/tags/list?last=t05&n=5");
	free(n);
	n = registry_link_next("<https://r/a>; rel=\"prev\", <https://r/b>; rel=\"next\"");
	cr_assert_not_null(n);
	cr_expect_str_eq(n, "https://r/b");
	free(n);
	cr_expect_null(registry_link_next("</v2/x>; rel=\"prev\""));
	cr_expect_null(registry_link_next("garbage"));
}

Test(registry_parse, rfc3339_times)
{
	cr_expect_eq(registry_time_parse("1970-01-01T00:00:10Z"), 10);
	cr_expect_eq(registry_time_parse("2026-12-01T21:41:54.123456789Z"), 1796161314);
	cr_expect_eq(registry_time_parse("1970-01-01T02:00:00+02:00"), 0);
	cr_expect_eq(registry_time_parse("yesterday"), -1);
	cr_expect_eq(registry_time_parse("1970-01-01T00:00:10"), -1, "no zone");
	cr_expect_eq(registry_time_parse(NULL), -1);
}

Test(registry_parse, loopback_hosts_get_http)
{
	cr_expect(registry_host_is_loopback("127.0.0.1:5000"));
	cr_expect(registry_host_is_loopback("localhost:5001"));
	cr_expect(registry_host_is_loopback("[::1]:5000"));
	cr_expect_not(registry_host_is_loopback("registry.example.com"));
	cr_expect_not(registry_host_is_loopback("localhost.example.com"));
}
