/* common/json.h: the one string writer beside the one reader. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"

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
