/* Unit tests of the detection matrix made from trials (detect/detect_report.c,
 * read back through core/detect_rows.c): a cell's outcomes and rate; a bug
 * caught in most trials counts for the headline, one caught in a minority
 * does not; a plant and a second trigger are left out of the headline's
 * counts while a real bug is there (and counted when nothing else is); a
 * system call's access under qemu-user is marked, and a real kernel's
 * answer beside it decides the headline; explained trials; the make-up;
 * a matrix written and read back prints as it did. */
#include <string.h>

#include "detect/detect.h"
#include "tap.h"

/* a trial: bug, configuration, outcome, its manifest's class and (optional) more keys */
static json_t *trial(const char *bug, const char *v, const char *m, const char *outcome, json_t *man)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:i,s:o,s:{s:s}}", "bug", bug, "variant", v, "mode", m, "outcome", outcome,
                     "trial", 1, "manifest", man, "platform", "name", "emu");
}

static const struct mtb_det_head *head_of(const struct mtb_det_rows *r, const char *cfg)
{
    for (size_t i = 0; i < r->nhead; i++)
        if (!strcmp(r->head[i].config, cfg))
            return &r->head[i];
    return NULL;
}

int main(void)
{
    json_t *uaf = json_pack("{s:s,s:s}", "class", "use after free", "memory", "service: slab chunk (items)");
    json_t *sys = json_pack("{s:s,s:s,s:s}", "class", "linear overflow", "memory", "glibc malloc", "access_in", "syscall");
    json_t *plant = json_pack("{s:s,s:s,s:s}", "class", "linear overflow", "memory", "stack", "port", "plant");
    json_t *ts = json_array();
    /* A: caught 2 of 3 in tagged/sync (most), 1 of 3 in tagged/async (a minority) */
    json_array_append_new(ts, trial("A", "tagged", "sync", "caught_sync", json_incref(uaf)));
    json_array_append_new(ts, trial("A", "tagged", "sync", "caught_sync", json_incref(uaf)));
    json_array_append_new(ts, trial("A", "tagged", "sync", "silent", json_incref(uaf)));
    json_array_append_new(ts, trial("A", "tagged", "async", "caught_async", json_incref(uaf)));
    json_array_append_new(ts, trial("A", "tagged", "async", "silent", json_incref(uaf)));
    json_array_append_new(ts, trial("A", "tagged", "async", "not_reached", json_incref(uaf)));
    json_array_append_new(ts, trial("A", "tagged", "async", "silent", json_incref(uaf)));
    /* one of A's sync catches explained */
    json_object_set_new(json_array_get(ts, 0), "explained", json_pack("{s:b,s:s}", "ok", 1, "why", "the object"));
    json_object_set_new(json_array_get(ts, 1), "explained", json_pack("{s:b,s:s}", "ok", 0, "why", "another"));
    /* S: a system call's access, silent under qemu-user, caught by the kernel on vm */
    json_array_append_new(ts, trial("S", "tagged", "sync", "silent", json_incref(sys)));
    json_t *kc = trial("S", "tagged", "sync", "caught_kernel", json_incref(sys));
    json_object_set_new(kc, "kernel_check", json_true());
    json_object_set_new(kc, "platform", json_string("vm"));
    json_array_append_new(ts, kc);
    /* P: a plant, caught everywhere */
    json_array_append_new(ts, trial("P", "tagged", "sync", "caught_sync", json_incref(plant)));
    json_array_append_new(ts, trial("P", "tagged", "async", "caught_async", json_incref(plant)));

    json_t *mx = mtb_detect_matrix(ts);
    struct mtb_det_rows r;
    mtb_det_rows_read(mx, &r);
    ok(!strcmp(r.schema, MTB_DET_SCHEMA) && !strcmp(r.headline_counts, "real bugs") && r.ncells == 5,
       "a matrix of 5 cells, counting real bugs");
    const struct mtb_det_cell *a = mtb_det_cell_of(&r, "A", "tagged/sync");
    ok(a && a->r.valid == 3 && a->r.caught_mte == 2 && a->r.has_rate && a->r.rate > 0.66 && a->r.rate < 0.67 &&
           a->r.lo < a->r.rate && a->r.hi > a->r.rate && !strcmp(a->memory, "service: slab chunk (items)"),
       "a cell: 2 of 3 caught, its Wilson interval around it");
    const struct mtb_det_cell *aa = mtb_det_cell_of(&r, "A", "tagged/async");
    ok(aa && aa->r.valid == 3 && aa->r.caught_mte == 1 && aa->r.counts[MTB_DET_not_reached] == 1,
       "not reached counted apart, never a miss");
    const struct mtb_det_head *hs = head_of(&r, "tagged/sync"), *ha = head_of(&r, "tagged/async");
    ok(hs && hs->tested == 2 && hs->caught == 2, "tagged/sync: A (most trials) and S (the kernel's answer) caught, of 2");
    ok(ha && ha->tested == 1 && ha->caught == 0, "tagged/async: A caught in a minority is not caught; the plant left out");
    ok(hs && hs->explained == 0 && mtb_det_cell_of(&r, "A", "tagged/sync")->r.valid == 3,
       "1 explained of 3 valid trials: not explained in most");
    const struct mtb_det_cell *sc = mtb_det_cell_of(&r, "S", "tagged/sync");
    ok(sc && sc->unchecked && sc->has_kcheck && !strcmp(sc->kcheck_platform, "vm") && sc->kcheck.caught_mte == 1 &&
           sc->r.caught_mte == 0,
       "a system call's access: marked under emu, the real kernel's catch beside it");
    ok(hs && hs->nby_memory == 2 && !strcmp(hs->by_memory[0].name, "slab chunk") &&
           !strcmp(hs->by_memory[1].name, "glibc malloc"),
       "by where the object lives, without 'service: ' and the note");
    ok(r.nmakeup == 2 && !strcmp(r.makeup[0].cls, "use after free") && r.makeup[0].bugs == 1 &&
           r.makeup[1].bugs == 2 && r.nreports == 0,
       "the make-up counts every bug tried by class, the plant too");
    /* written (detect.json's keys sorted) and read back (detect --matrix): printed as detect printed it */
    char *printed = NULL, *again = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f = open_memstream(&printed, &n1);
    mtb_detect_matrix_print(f, &r, 0);
    mtb_detect_matrix_html(f, &r);
    fclose(f);
    char *text = json_dumps(mx, JSON_SORT_KEYS);
    json_t *back = json_loads(text, 0, NULL);
    struct mtb_det_rows rb;
    mtb_det_rows_read(back, &rb);
    f = open_memstream(&again, &n2);
    mtb_detect_matrix_print(f, &rb, 0);
    mtb_detect_matrix_html(f, &rb);
    fclose(f);
    ok(!strcmp(printed, again) && strstr(printed, "1 use after free, 2 linear overflow"),
       "written with its keys sorted and read back, the matrix prints as detect printed it (the make-up in the order met)");
    mtb_det_rows_free(&rb);
    json_decref(back);
    free(text);
    free(printed);
    free(again);
    mtb_det_rows_free(&r);
    json_decref(mx);

    json_t *only = json_array(); /* plants only: the headline counts entries */
    json_array_append_new(only, trial("P", "tagged", "sync", "caught_sync", json_incref(plant)));
    mx = mtb_detect_matrix(only);
    mtb_det_rows_read(mx, &r);
    ok(!strcmp(r.headline_counts, "entries") && r.nhead == 1 && r.head[0].caught == 1 && r.head[0].tested == 1,
       "only plants: the headline counts them (entries)");
    mtb_det_rows_free(&r);
    json_decref(mx);

    struct mtb_det_trial t;
    json_t *tj = trial("B", "objtag", "sync", "caught_sync", json_pack("{s:s,s:s}", "class", "x", "allocator", "pool"));
    json_object_set_new(tj, "fault", json_pack("{s:{s:s}}", "report", "headline", "use after free of a pool object"));
    mtb_det_trial_read(tj, &t);
    ok(!strcmp(t.bug, "B") && !strcmp(t.memory, "pool") && !strcmp(t.platform, "emu") && t.has_report &&
           !strcmp(t.report_headline, "use after free of a pool object") && !t.kernel_check && !t.explained &&
           !strcmp(t.access_in, ""),
       "a trial read: where the object lives from 'allocator' (trials before 'memory'), its report");
    json_decref(tj);
    json_decref(only);
    json_decref(ts);
    json_decref(uaf);
    json_decref(sys);
    json_decref(plant);
    return done_testing();
}
