/* build_rows.c - a build's build.json read into its struct (build_rows.h) */
#include "core/build_rows.h"

void mtb_build_view_read(json_t *info, struct mtb_build_view *b)
{
    b->key = json_string_value(json_object_get(info, "key"));
    b->uname_r = json_string_value(json_object_get(info, "uname_r"));
    b->has_patches = json_is_array(json_object_get(info, "patches"));
}
