/*
 * fault_lines.c - the fault's lines read into struct mtb_fault_lines
 * (fault_lines.h), and the record's fault object written from it.
 */
#include "run/fault_lines.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ST_KEYS[3] = { "alloc", "free", "free2" };
static const char *const ALLOC_INFO_KEYS[MTB_FL_ALLOC_INFO_N] = { "live", "freed", "kept_freed", "dropped", "near" };

/* the value after " key=" in one line (up to its end), or NULL */
static const char *field(const char *line, const char *key, char *buf, size_t n)
{
    size_t kl = strlen(key);
    const char *end = strchr(line, '\n'), *p = line;
    while ((p = strstr(p, key)) && (!end || p < end)) {
        if (p > line && p[-1] == ' ') {
            p += kl;
            size_t l = strcspn(p, " \n");
            snprintf(buf, n, "%.*s", (int)l, p);
            return buf;
        }
        p += kl;
    }
    return NULL;
}

uint64_t mtb_fault_hex(const char *s) { return s ? strtoull(s, NULL, 16) : 0; }

int mtb_fault_utf8(const char *s)
{
    json_t *j = json_string(s);
    json_decref(j);
    return j != NULL;
}

/* a value of a line as it is kept: "" when it is no UTF-8 (*omit gets bit) */
static char *kept(const char *v, unsigned *omit, unsigned bit)
{
    if (mtb_fault_utf8(v))
        return mtb_strdup(v);
    *omit |= bit;
    return mtb_strdup("");
}

static void pcs_of(struct mtb_fl_pcs *p, const char *list)
{
    free(p->v);
    memset(p, 0, sizeof *p);
    p->present = 1;
    for (const char *q = list; q && *q;) {
        p->v = mtb_realloc(p->v, (p->n + 1) * sizeof *p->v);
        p->v[p->n++] = (long long)strtoull(q, NULL, 16);
        q = strchr(q, ',');
        q = q ? q + 1 : NULL;
    }
}

static json_t *pcs_json(const struct mtb_fl_pcs *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->n; i++)
        json_array_append_new(a, json_integer((json_int_t)p->v[i]));
    return a;
}

/* a register's value as written, or "" (the last of a name written twice) */
const char *mtb_fault_lines_reg(const struct mtb_fault_lines *f, const char *name)
{
    for (size_t i = f->nregs; i-- > 0;)
        if (!strcmp(f->regs[i].name, name))
            return f->regs[i].value;
    return "";
}

void mtb_fault_lines_free(struct mtb_fault_lines *f)
{
    if (!f)
        return;
    free(f->tags_base);
    free(f->tags);
    for (size_t i = 0; i < f->nregs; i++)
        free(f->regs[i].name), free(f->regs[i].value);
    free(f->regs);
    free(f->pcs.v);
    for (size_t i = 0; i < f->nmaps; i++)
        free(f->maps[i].path);
    free(f->maps);
    for (size_t i = 0; i < f->nallocs; i++) {
        struct mtb_fl_alloc *o = &f->allocs[i];
        free(o->state), free(o->kind), free(o->ptr_text);
        for (int k = 0; k < 3; k++)
            free(o->st[k].v);
    }
    free(f->allocs);
    free(f);
}

/* ---- the lines ---- */

static void parse_line(struct mtb_fault_lines *f, const char *line)
{
    char b[600];
    if (!strncmp(line, "MTEBENCH-TAGS ", 14)) {
        const char *tags = field(line, "tags=", b, sizeof b);
        if (tags && strlen(tags) == 33) {
            char base[40];
            const char *bs = field(line, "base=", base, sizeof base) ?: "";
            if (mtb_fault_utf8(tags) && mtb_fault_utf8(bs)) { /* else kept out, the earlier ones stay */
                free(f->tags_base), free(f->tags);
                f->has_tags = 1;
                f->tags_base = mtb_strdup(bs);
                f->tags = mtb_strdup(tags);
            }
            if (tags[16] != '-') {
                f->has_memory_tag = 1;
                f->memory_tag = (int)strtol((char[2]){ tags[16], 0 }, NULL, 16);
            }
        }
    } else if (!strncmp(line, "MTEBENCH-REGS ", 14)) {
        for (size_t i = 0; i < f->nregs; i++)
            free(f->regs[i].name), free(f->regs[i].value);
        f->nregs = 0;
        f->has_regs = 1;
        for (const char *p = line + 14; *p && *p != '\n';) {
            size_t l = strcspn(p, " \n");
            const char *eq = memchr(p, '=', l);
            if (eq) {
                snprintf(b, sizeof b, "%.*s", (int)(eq - p), p);
                char *v = mtb_asprintf("%.*s", (int)(p + l - eq - 1), eq + 1);
                if (mtb_fault_utf8(b) && mtb_fault_utf8(v)) { /* a register JSON cannot hold stays out */
                    f->regs = mtb_realloc(f->regs, (f->nregs + 1) * sizeof *f->regs);
                    f->regs[f->nregs].name = mtb_strdup(b);
                    f->regs[f->nregs++].value = v;
                } else
                    free(v);
            }
            p += l;
            while (*p == ' ')
                p++;
        }
    } else if (!strncmp(line, "MTEBENCH-STACK ", 15)) {
        pcs_of(&f->pcs, field(line, "pcs=", b, sizeof b));
    } else if (!strncmp(line, "MTEBENCH-SYSCALL ", 17)) {
        f->has_syscall = 1;
        f->syscall = atoi(field(line, "nr=", b, sizeof b) ?: "-1");
    } else if (!strncmp(line, "MTEBENCH-MAP ", 13)) {
        char role[8], perms[8], path[512] = "";
        unsigned long long s, e, off;
        int n = sscanf(line, "MTEBENCH-MAP %7s %llx-%llx %7s %llx %*s %*s %511[^\n]", role, &s, &e, perms, &off, path);
        const char *pth = path + strspn(path, " ");
        if (n >= 5 && mtb_fault_utf8(role) && mtb_fault_utf8(perms) && mtb_fault_utf8(pth)) {
            f->maps = mtb_realloc(f->maps, (f->nmaps + 1) * sizeof *f->maps);
            struct mtb_fl_map *m = &f->maps[f->nmaps];
            snprintf(m->role, sizeof m->role, "%s", role);
            snprintf(m->perms, sizeof m->perms, "%s", perms);
            m->start = s, m->end = e, m->offset = off;
            m->path = mtb_strdup(pth);
            if (!strcmp(role, "fault"))
                f->fault_map = (long)f->nmaps;
            f->nmaps++;
        }
    } else if (!strncmp(line, "MTEBENCH-ALLOC-INFO ", 20)) {
        f->has_alloc_info = f->has_allocs = 1;
        for (size_t k = 0; k < MTB_FL_ALLOC_INFO_N; k++) {
            char key[24];
            snprintf(key, sizeof key, "%s=", ALLOC_INFO_KEYS[k]);
            f->alloc_info[k] = atoll(field(line, key, b, sizeof b) ?: "0");
        }
    } else if (!strncmp(line, "MTEBENCH-ALLOC ", 15)) {
        f->has_allocs = 1;
        f->allocs = mtb_realloc(f->allocs, (f->nallocs + 1) * sizeof *f->allocs);
        struct mtb_fl_alloc *o = &f->allocs[f->nallocs++];
        memset(o, 0, sizeof *o);
        o->state = kept(field(line, "state=", b, sizeof b) ?: "", &o->omit, MTB_FL_OMIT_STATE);
        o->kind = kept(field(line, "kind=", b, sizeof b) ?: "", &o->omit, MTB_FL_OMIT_KIND);
        o->ptr_text = kept(field(line, "ptr=", b, sizeof b) ?: "", &o->omit, MTB_FL_OMIT_PTR);
        o->ptr = mtb_fault_hex(o->ptr_text);
        o->size = atoll(field(line, "size=", b, sizeof b) ?: "0");
        o->tid = atoi(field(line, "tid=", b, sizeof b) ?: "0");
        if (field(line, "free_tid=", b, sizeof b)) {
            o->has_free_tid = 1;
            o->free_tid = atoi(b);
        }
        for (size_t k = 0; k < 3; k++) {
            char key[16];
            snprintf(key, sizeof key, "%s=", ST_KEYS[k]);
            if (field(line, key, b, sizeof b))
                pcs_of(&o->st[k], b);
        }
    }
}

/* The fault's lines parsed (the fault, tags, registers, stack, mappings,
 * objects), the report not yet made; NULL: no fault line. *more: lines
 * came after the fault's own */
struct mtb_fault_lines *mtb_fault_lines_parse(const char *text, int *more)
{
    *more = 0;
    const char *line = strstr(text, "MTEBENCH-FAULT");
    struct mtb_fault_lines *f = mtb_calloc(1, sizeof *f);
    f->fault_map = -1;
    if (!line || sscanf(line, "MTEBENCH-FAULT signo=%d code=%d addr=%39s pid=%d", &f->signo, &f->code, f->addr, &f->pid) != 4 ||
        !mtb_fault_utf8(f->addr)) {
        mtb_fault_lines_free(f);
        return NULL;
    }
    f->kind = f->signo == 11 && f->code == 9   ? "tag-check fault, synchronous (SEGV_MTESERR)"
              : f->signo == 11 && f->code == 8 ? "tag-check fault, asynchronous (SEGV_MTEAERR)"
              : f->signo == 11                ? "segmentation fault (not a tag-check fault)"
                                              : "bus error";
    f->tag_check = f->signo == 11 && (f->code == 8 || f->code == 9);
    /* where (aarch64): the faulting instruction and the return address */
    const char *w = strstr(line, " pc=");
    if (w && w < strchr(line, '\n') && sscanf(w, " pc=%39s lr=%39s", f->pc, f->lr) == 2)
        f->has_where = 1;
    /* the lines after it, up to its END (a second fault's are not its) */
    for (const char *l = strchr(line, '\n'); l && *++l && strncmp(l, "MTEBENCH-FAULT", 14); l = strchr(l, '\n')) {
        if (!strncmp(l, "MTEBENCH-END", 12))
            break;
        parse_line(f, l);
        *more = 1;
    }
    return f;
}

/* The mappings' files named under far (a vm guest's /mtb/builds/S/V) that
 * are not on this machine, read from here (the build's cache directory) */
void mtb_fault_lines_maps_here(struct mtb_fault_lines *f, const char *far, const char *here)
{
    size_t n = strlen(far);
    for (size_t i = 0; i < f->nmaps; i++) {
        char *p = f->maps[i].path;
        if (access(p, R_OK) != 0 && !strncmp(p, far, n) && p[n] == '/') {
            f->maps[i].path = mtb_asprintf("%s%s", here, p + n);
            free(p);
        }
    }
}

json_t *mtb_fault_lines_json(const struct mtb_fault_lines *f)
{
    json_t *j = json_pack("{s:i,s:i,s:s,s:i,s:s,s:b}", "signal", f->signo, "si_code", f->code, "addr", f->addr,
                          "pid", f->pid, "kind", f->kind, "tag_check", f->tag_check);
    if (f->has_where) {
        json_object_set_new(j, "pc", json_string(f->pc));
        json_object_set_new(j, "lr", json_string(f->lr));
    }
    if (f->has_tags)
        json_object_set_new(j, "tags", json_pack("{s:s,s:s}", "base", f->tags_base, "tags", f->tags));
    if (f->has_memory_tag)
        json_object_set_new(j, "memory_tag", json_integer(f->memory_tag));
    if (f->has_regs) {
        json_t *r = json_object();
        for (size_t i = 0; i < f->nregs; i++)
            json_object_set_new(r, f->regs[i].name, json_string(f->regs[i].value));
        json_object_set_new(j, "regs", r);
    }
    if (f->has_syscall)
        json_object_set_new(j, "syscall", json_integer(f->syscall));
    if (f->has_alloc_info) {
        json_t *i = json_object();
        for (size_t k = 0; k < MTB_FL_ALLOC_INFO_N; k++)
            json_object_set_new(i, ALLOC_INFO_KEYS[k], json_integer(f->alloc_info[k]));
        json_object_set_new(j, "alloc_info", i);
    }
    if (f->has_allocs) {
        json_t *a = json_array();
        for (size_t i = 0; i < f->nallocs; i++) {
            const struct mtb_fl_alloc *o = &f->allocs[i];
            json_t *oj = json_pack("{s:I,s:i}", "size", (json_int_t)o->size, "tid", o->tid);
            if (!(o->omit & MTB_FL_OMIT_STATE))
                json_object_set_new(oj, "state", json_string(o->state));
            if (!(o->omit & MTB_FL_OMIT_KIND))
                json_object_set_new(oj, "kind", json_string(o->kind));
            if (!(o->omit & MTB_FL_OMIT_PTR))
                json_object_set_new(oj, "ptr", json_string(o->ptr_text));
            if (o->has_free_tid)
                json_object_set_new(oj, "free_tid", json_integer(o->free_tid));
            for (int k = 0; k < 3; k++)
                if (o->st[k].present)
                    json_object_set_new(oj, ST_KEYS[k], pcs_json(&o->st[k]));
            json_array_append_new(a, oj);
        }
        json_object_set_new(j, "allocs", a);
    }
    return j;
}

