/* jsonx.h - small readers (and one writer) for jansson objects used across the report code. */
#ifndef MTB_JSONX_H
#define MTB_JSONX_H
#include <jansson.h>
#include "lib/util.h"
#include <math.h>
#include <string.h>

/* The string at key k, or "" when absent or not a string. */
static inline const char *mtb_jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The integer at key k, or 0 when absent or not an integer. */
static inline long long mtb_jint(json_t *o, const char *k) { return (long long)json_integer_value(json_object_get(o, k)); }

/* The number at key k, or NaN when absent or not a number. */
static inline double mtb_jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The number at key k, or 0 when absent or not a number. */
static inline double mtb_jnum0(json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

/* Each element of the JSON array A read by FN(element, &row) into ARR, a
 * new array (mtb_calloc) of N rows: a document's rows into their structs
 * (core/summary_rows.c and the other row readers). Not an array: no rows. */
#define MTB_READ_ROWS(a, arr, n, fn)                                      \
    do {                                                                  \
        json_t *a_ = (a), *v_;                                            \
        size_t i_;                                                        \
        (n) = json_array_size(a_);                                        \
        (arr) = mtb_calloc((n) ? (n) : 1, sizeof *(arr));                 \
        json_array_foreach(a_, i_, v_) fn(v_, &(arr)[i_]);                \
    } while (0)

/* Append the string s to the array a unless it is empty or there already. */
static inline void mtb_jadd_unique(json_t *a, const char *s)
{
    size_t i;
    json_t *v;
    if (!s || !*s)
        return;
    json_array_foreach(a, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return;
    json_array_append_new(a, json_string(s));
}
#endif
