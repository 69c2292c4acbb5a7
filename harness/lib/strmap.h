/* strmap.h - a short list of string keys and their values, in the order
 * set: a workload's params over its recipe's (core/workload.h), what a far
 * root already holds (agent/ssh_int.h). A key set again keeps its place. */
#ifndef MTB_STRMAP_H
#define MTB_STRMAP_H
#include <stddef.h>

struct mtb_strmap {
    size_t n;
    struct mtb_strmap_kv {
        char *key, *value;
    } *kv;
};

/** key's value set (copied; a key set twice keeps its place, with its last value) */
void mtb_strmap_set(struct mtb_strmap *m, const char *key, const char *value);
/** @return key's value, or NULL when not set (m NULL: none) */
const char *mtb_strmap_get(const struct mtb_strmap *m, const char *key);
/** every key and value freed; m empty again */
void mtb_strmap_clear(struct mtb_strmap *m);
/** a heap map (mtb_calloc'd) cleared and freed; NULL: nothing */
void mtb_strmap_free(struct mtb_strmap *m);
#endif
