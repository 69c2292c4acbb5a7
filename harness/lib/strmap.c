/* strmap.c - see strmap.h */
#include "lib/strmap.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

static size_t find(const struct mtb_strmap *m, const char *key)
{
    size_t i = 0;
    while (i < m->n && strcmp(m->kv[i].key, key))
        i++;
    return i;
}

void mtb_strmap_set(struct mtb_strmap *m, const char *key, const char *value)
{
    size_t i = find(m, key);
    if (i == m->n) {
        m->kv = mtb_realloc(m->kv, (m->n + 1) * sizeof *m->kv);
        m->kv[m->n++] = (struct mtb_strmap_kv){ .key = mtb_strdup(key) };
    } else
        free(m->kv[i].value);
    m->kv[i].value = mtb_strdup(value);
}

const char *mtb_strmap_get(const struct mtb_strmap *m, const char *key)
{
    size_t i = m ? find(m, key) : 0;
    return m && i < m->n ? m->kv[i].value : NULL;
}

void mtb_strmap_clear(struct mtb_strmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->kv[i].key), free(m->kv[i].value);
    free(m->kv);
    m->kv = NULL;
    m->n = 0;
}

void mtb_strmap_free(struct mtb_strmap *m)
{
    if (m)
        mtb_strmap_clear(m);
    free(m);
}
