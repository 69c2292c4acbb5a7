/* Unit tests of a detection matrix read into rows (harness/core/detect_rows.c):
 * the headline with its groupings, the bugs it explains and its cost; the
 * cells with a real kernel's answer beside one and a cell none reached; the
 * classes; the make-up in the matrix's order; the fault reports; the cell
 * of a bug and configuration; and a matrix of an earlier version (no
 * explained, no cost) with the keys it lacks read as its pages showed them;
 * and a detection sweep's modes, cells and verdict. */
#include <string.h>

#include "core/detect_rows.h"
#include "tap.h"

static const char *matrix_text =
    "{\"schema\": \"mtebench-detect-matrix/1\", \"service\": \"memcached\", \"platform\": \"emu\", \"emulated\": true,"
    " \"headline_counts\": \"real bugs\", \"makeup\": {\"use after free\": 2, \"linear overflow\": 1},"
    " \"headline\": [{\"config\": \"plain/off\", \"bugs_caught\": 0, \"bugs_tested\": 3, \"fraction\": 0,"
    "   \"wilson95_lo\": 0, \"wilson95_hi\": 0.56, \"cost\": {\"baseline\": true, \"slowdown\": 1},"
    "   \"explained\": {\"bugs\": 0, \"fraction\": 0, \"wilson95_lo\": 0, \"wilson95_hi\": 0.56},"
    "   \"by_class\": [{\"class\": \"use after free\", \"bugs_caught\": 0, \"bugs_tested\": 2}],"
    "   \"by_memory\": [{\"memory\": \"slab chunk\", \"bugs_caught\": 0, \"bugs_tested\": 3}]},"
    "  {\"config\": \"tagged/sync\", \"bugs_caught\": 2, \"bugs_tested\": 3, \"fraction\": 0.67, \"wilson95_lo\": 0.2,"
    "   \"wilson95_hi\": 0.94, \"cost\": {\"slowdown\": 1.5, \"lo\": 1.25, \"hi\": 1.75, \"pairs\": 6},"
    "   \"explained\": {\"bugs\": 1, \"fraction\": 0.33, \"wilson95_lo\": 0.06, \"wilson95_hi\": 0.8}}],"
    " \"cells\": [{\"bug\": \"CVE-1\", \"class\": \"use after free\", \"memory\": \"service: slab chunk\","
    "   \"variant\": \"tagged\", \"mode\": \"sync\", \"counts\": {\"caught_sync\": 2, \"silent\": 1}, \"valid\": 3,"
    "   \"caught_mte\": 2, \"rate\": 0.67, \"wilson95_lo\": 0.2, \"wilson95_hi\": 0.94, \"kernel_access_unchecked\": true,"
    "   \"kernel_check\": {\"platform\": \"vm\", \"counts\": {\"caught_kernel\": 3}, \"valid\": 3, \"caught_mte\": 3,"
    "                    \"rate\": 1, \"wilson95_lo\": 0.44, \"wilson95_hi\": 1}},"
    "  {\"bug\": \"CVE-2\", \"class\": \"linear overflow\", \"variant\": \"plain\", \"mode\": \"off\","
    "   \"counts\": {\"not_reached\": 3}, \"valid\": 0, \"caught_mte\": 0, \"rate\": null}],"
    " \"classes\": [{\"class\": \"use after free\", \"variant\": \"tagged\", \"mode\": \"sync\","
    "   \"counts\": {\"caught_sync\": 2, \"error\": 1}, \"valid\": 2, \"caught_mte\": 2, \"rate\": 1}],"
    " \"reports\": [{\"bug\": \"CVE-1\", \"config\": \"tagged/sync\", \"trial\": 2, \"headline\": \"use after free\","
    "   \"text\": \"Cause: ...\", \"explained\": {\"ok\": true, \"why\": \"the object the log names\"}}],"
    " \"mix\": [{\"kind\": \"use after free\", \"catalogue\": 2}]}";

int main(void)
{
    json_error_t je;
    json_t *mx = json_loads(matrix_text, 0, &je);
    ok(mx != NULL, "the matrix parses (%s)", mx ? "" : je.text);
    struct mtb_det_rows r;
    mtb_det_rows_read(mx, &r);
    ok(!strcmp(r.schema, MTB_DET_SCHEMA) && !strcmp(r.service, "memcached") && !strcmp(r.platform, "emu") &&
           r.emulated && !strcmp(r.headline_counts, "real bugs"),
       "the matrix's identity");
    ok(r.nmix == 1 && !strcmp(r.mix[0].kind, "use after free") && r.mix[0].catalogue == 2 && !r.mix[0].has_arvo,
       "the mix beside ARVO's: a kind with no ARVO count");
    ok(r.nmakeup == 2 && !strcmp(r.makeup[0].cls, "use after free") && r.makeup[0].bugs == 2 &&
           !strcmp(r.makeup[1].cls, "linear overflow"),
       "the make-up in the matrix's order");
    ok(r.nhead == 2, "a headline row per configuration");
    const struct mtb_det_head *h0 = &r.head[0], *h1 = &r.head[1];
    ok(!strcmp(h0->config, "plain/off") && h0->caught == 0 && h0->tested == 3 && h0->hi == 0.56 &&
           h0->cost_baseline && !h0->cost_measured,
       "the baseline's row: its cost is the baseline's");
    ok(h0->nby_class == 1 && !strcmp(h0->by_class[0].name, "use after free") && h0->by_class[0].tested == 2 &&
           h0->nby_memory == 1 && !strcmp(h0->by_memory[0].name, "slab chunk") && h0->by_memory[0].tested == 3 &&
           h1->nby_class == 0,
       "the groupings by class and by where the object lives");
    ok(h1->caught == 2 && h1->has_explained && h1->explained == 1 && h1->ex_fraction == 0.33 && h1->cost_measured &&
           h1->slowdown == 1.5 && h1->cost_lo == 1.25 && h1->cost_hi == 1.75 && !h1->cost_baseline,
       "a tagged row: the bugs it explains, its measured cost");
    ok(r.ncells == 2, "the cells");
    const struct mtb_det_cell *c = &r.cells[0];
    ok(!strcmp(c->bug, "CVE-1") && !strcmp(c->cls, "use after free") && !strcmp(c->memory, "service: slab chunk") &&
           c->r.counts[MTB_DET_caught_sync] == 2 && c->r.counts[MTB_DET_silent] == 1 && c->r.valid == 3 &&
           c->r.caught_mte == 2 && c->r.has_rate && c->r.rate == 0.67 && c->unchecked,
       "a cell: its outcomes by name, its rate, a system call's access under qemu-user");
    ok(c->has_kcheck && !strcmp(c->kcheck_platform, "vm") && c->kcheck.counts[MTB_DET_caught_kernel] == 3 &&
           c->kcheck.rate == 1,
       "a real kernel's answer beside the cell");
    ok(!r.cells[1].r.has_rate && r.cells[1].r.counts[MTB_DET_not_reached] == 3 && !r.cells[1].has_kcheck &&
           !strcmp(r.cells[1].memory, "") && !r.cells[1].unchecked,
       "a cell none reached: no rate; what it lacks \"\" and 0");
    ok(r.nclasses == 1 && !strcmp(r.classes[0].cls, "use after free") && r.classes[0].r.counts[MTB_DET_error] == 1 &&
           !strcmp(r.classes[0].bug, ""),
       "a class's row");
    ok(r.nreports == 1 && !strcmp(r.reports[0].bug, "CVE-1") && r.reports[0].trial == 2 && r.reports[0].explained &&
           !strcmp(r.reports[0].why, "the object the log names") && !strcmp(r.reports[0].text, "Cause: ..."),
       "a fault report");
    ok(mtb_det_cell_of(&r, "CVE-2", "plain/off") == &r.cells[1] && !mtb_det_cell_of(&r, "CVE-2", "tagged/sync") &&
           !mtb_det_cell_of(&r, "CVE-1", "tagged"),
       "the cell of a bug and a configuration");
    ok(!strcmp(mtb_det_outcome_names[MTB_DET_not_triggered], "not_triggered") &&
           !strcmp(mtb_det_outcome_names[MTB_DET_NOUTCOMES - 1], "error"),
       "the outcomes' names in the pages' order");
    mtb_det_rows_free(&r);

    json_t *old = json_pack("{s:s,s:[{s:s,s:i,s:i}]}", "schema", MTB_DET_SCHEMA, "headline", "config", "tagged/sync",
                            "bugs_caught", 1, "bugs_tested", 2);
    mtb_det_rows_read(old, &r);
    ok(r.nhead == 1 && !r.head[0].has_explained && r.head[0].explained == 0 && r.head[0].fraction == 0 &&
           !r.head[0].cost_measured && !r.head[0].cost_baseline && r.ncells == 0 && r.nmakeup == 0 &&
           !strcmp(r.service, "") && r.nmix == 0,
       "a matrix of an earlier version: no explained, no cost, no cells");
    mtb_det_rows_free(&r);
    mtb_det_rows_read(NULL, &r);
    ok(r.nhead == 0 && !strcmp(r.schema, ""), "no matrix: empty rows");
    mtb_det_rows_free(&r);
    json_decref(old);
    json_decref(mx);

    json_t *sw = json_loads("{\"platform\": \"emu\", \"tag_model\": \"qemu\", \"modes\": [{\"mode\": \"sync\","
                            " \"prctl_ctrl\": \"0x7fff3\", \"cells\": [{\"cell\": \"uaf\", \"caught\": 14, \"trials\": 15,"
                            " \"rate\": 0.93, \"predicted\": 0.94, \"agree95\": true, \"tags_exact\": false, \"same_tag\": 1},"
                            " {\"cell\": \"overflow n=16 k=1\", \"deterministic\": true, \"rate\": 1, \"predicted\": 1}]}],"
                            " \"verdict\": {\"pass\": true, \"cells\": 2, \"agree95\": 2}}",
                            0, &je);
    struct mtb_sweep_rows s;
    mtb_sweep_rows_read(sw, &s);
    ok(!strcmp(s.platform, "emu") && !s.allocator && s.nmodes == 1 && !strcmp(s.modes[0].prctl_ctrl, "0x7fff3") &&
           !s.modes[0].tag_steps && s.modes[0].ncells == 2,
       "a sweep: its modes and cells; what it lacks NULL (glibc's sweep names no allocator)");
    const struct mtb_sweep_cell *u = &s.modes[0].cells[0];
    ok(u->caught == 14 && u->trials == 15 && u->agree95 && u->tags_known && !u->tags_exact && u->same_tag == 1 &&
           !u->deterministic && s.modes[0].cells[1].deterministic && !s.modes[0].cells[1].tags_known,
       "a cell: its catches, its agreement, its tags (known only where the sweep says)");
    ok(s.pass && s.cells == 2 && s.agree95 == 2 && s.tags_wrong == 0, "the verdict");
    mtb_sweep_rows_free(&s);
    json_decref(sw);
    return done_testing();
}
