/* common/json.h: the one reader of a field and the one string writer. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

/* Every reader, on a field of the wrong type, an absent field, a NULL
 * object and a value that is not an object, gives NULL or the fallback. */
static const char *const shapes[] = {
	"{\"k\":7}", "{\"k\":\"7\"}", "{\"k\":[7]}", "{\"k\":{\"a\":7}}", "{\"k\":true}",
	"{\"k\":null}", "{}", "[{\"k\":7}]", "\"k\"",
};

static cJSON *parsed(const char *text)
{
	cJSON *j = cJSON_Parse(text);

	cr_assert_not_null(j, "%s", text);
	return j;
}

Test(json, get_reads_a_field_of_any_type_and_nothing_of_a_non_object)
{
	cJSON *j = parsed("{\"k\":null,\"K\":1}");
	cJSON *a = parsed("[{\"k\":1}]");

	cr_assert(cJSON_IsNull(json_get(j, "k")));
	cr_assert(cJSON_IsNumber(json_get(j, "K")), "the lookup is case-sensitive");
	cr_assert_null(json_get(j, "x"));
	cr_assert_null(json_get(a, "k"));
	cr_assert_null(json_get(NULL, "k"));
	cJSON_Delete(a);
	cJSON_Delete(j);
}

Test(json, each_typed_read_takes_only_its_type)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		cJSON *j = parsed(shapes[i]);
		const cJSON *k = json_get(j, "k");

		cr_assert_eq(json_obj(j, "k") != NULL, cJSON_IsObject(k), "%s", shapes[i]);
		cr_assert_eq(json_arr(j, "k") != NULL, cJSON_IsArray(k), "%s", shapes[i]);
		cr_assert_eq(json_str(j, "k") != NULL, cJSON_IsString(k), "%s", shapes[i]);
		cr_assert_eq(json_num(j, "k", -0.5) == 7.0, cJSON_IsNumber(k), "%s", shapes[i]);
		cr_assert_eq(json_int(j, "k", 0, 10, -1) == 7, cJSON_IsNumber(k), "%s", shapes[i]);
		cr_assert_eq(json_bool(j, "k", false), cJSON_IsTrue(k), "%s", shapes[i]);
		cr_assert(json_bool(j, "k", true) || cJSON_IsFalse(k), "%s", shapes[i]);
		cJSON_Delete(j);
	}
	cr_assert_null(json_obj(NULL, "k"));
	cr_assert_null(json_arr(NULL, "k"));
	cr_assert_null(json_str(NULL, "k"));
	cr_assert_eq(json_num(NULL, "k", 2.5), 2.5);
	cr_assert_eq(json_int(NULL, "k", 0, 1, 9), 9);
	cr_assert(json_bool(NULL, "k", true));
}

Test(json, string_items_of_an_array)
{
	cJSON *j = parsed("{\"a\":[\"x\",7,null,\"\"],\"o\":{\"0\":\"x\"}}");
	const cJSON *a = json_arr(j, "a");

	cr_assert_str_eq(json_arr_str(a, 0), "x");
	cr_assert_null(json_arr_str(a, 1));
	cr_assert_null(json_arr_str(a, 2));
	cr_assert_str_eq(json_arr_str(a, 3), "");
	cr_assert_null(json_arr_str(a, 4));
	cr_assert_null(json_arr_str(a, -1));
	cr_assert_null(json_arr_str(json_get(j, "o"), 0), "an object is no array");
	cr_assert_null(json_arr_str(NULL, 0));
	cr_assert_str_eq(json_str_of(cJSON_GetArrayItem(a, 0)), "x");
	cr_assert_null(json_str_of(cJSON_GetArrayItem(a, 1)));
	cr_assert_null(json_str_of(NULL));
	cJSON_Delete(j);
}

Test(json, integers_out_of_range_or_not_numbers_get_the_fallback)
{
	static const struct {
		const char *json;
		long long want;
	} cases[] = {
		{ "3", 3 }, { "-1", -1 }, { "2147483647", 2147483647 }, { "2147483648", -7 },
		{ "1e300", -7 }, { "-1e300", -7 }, { "\"3\"", -7 }, { "null", -7 }, { "2.9", 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *v = parsed(cases[i].json);
		cJSON *o = cJSON_CreateObject();

		cr_assert_eq(json_int_of(v, -2147483647 - 1, 2147483647, -7), cases[i].want,
			     "%s", cases[i].json);
		cJSON_AddItemToObject(o, "n", v);
		cr_assert_eq(json_int(o, "n", -2147483647 - 1, 2147483647, -7), cases[i].want,
			     "%s", cases[i].json);
		cJSON_Delete(o);
	}
	cr_assert_eq(json_int_of(NULL, 0, 1, 9), 9);
}

Test(json, the_widest_range_keeps_the_cast_in_range)
{
	cJSON *big = cJSON_CreateNumber(9223372036854775807.0);

	cr_assert_eq(json_int_of(big, -9223372036854775807LL - 1, 9223372036854775807LL, -1),
		     9223372036854775807LL);
	cJSON_Delete(big);
}

Test(json, the_writer_writes_null_text_as_is_and_never_an_invalid_byte)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	json_add_str(o, "none", NULL, JSON_TEXT);
	json_add_str(o, "plain", "pid-1/run\tone\nline", JSON_TEXT);
	json_add_str(o, "bad", "a\xff\033[31mb", JSON_TEXT);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "none")));
	cr_assert_null(json_str(o, "none"));
	cr_assert_str_eq(json_str(o, "plain"), "pid-1/run\tone\nline");
	cr_assert_str_eq(json_str(o, "bad"), "a\xef\xbf\xbd" "b");
	text = cJSON_PrintUnformatted(o);
	cr_assert_null(strchr(text, '\xff'));
	free(text);
	cJSON_Delete(o);
}
