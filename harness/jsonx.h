/* jsonx.h - small readers for jansson objects used across the report code. */
#ifndef MTB_JSONX_H
#define MTB_JSONX_H
#include <jansson.h>
#include <math.h>

/* The string at key k, or "" when absent or not a string. */
static inline const char *mtb_jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The number at key k, or NaN when absent or not a number. */
static inline double mtb_jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}
#endif
