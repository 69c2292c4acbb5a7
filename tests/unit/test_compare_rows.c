/* Unit tests of a kernel comparison read into rows
 * (harness/core/compare_rows.c): the platform and the note, the kernels'
 * identities with their patches, a row per configuration and kernel with
 * its intervals, the comparison with the reference (absent on the
 * reference's own row), what the price buys handed on; and a comparison
 * that lacks them. */
#include <math.h>
#include <string.h>

#include "core/compare_rows.h"
#include "tap.h"

static const char *cmp_text =
    "{\"schema\": \"mtebench-kernel-compare/2\", \"reference\": \"stock\", \"note\": \"TCG\", \"emulated\": true,"
    " \"platform\": {\"name\": \"vm\", \"accel\": \"tcg\", \"qemu\": \"10.0.2\"},"
    " \"kernels\": [{\"name\": \"stock\", \"uname_r\": \"6.12.1\"},"
    "  {\"name\": \"tcma1\", \"build_hash\": \"abc\", \"patches\": [{\"file\": \"/p/0001-tcma1.patch\"}]}],"
    " \"rows\": [{\"config\": \"tagged/sync\", \"kernel\": \"stock\", \"runs\": 3,"
    "   \"ops_per_sec\": {\"median\": 1000, \"lo\": 900, \"hi\": 1100, \"conf\": 0.75}},"
    "  {\"config\": \"tagged/sync\", \"kernel\": \"tcma1\", \"runs\": 3,"
    "   \"vs_reference\": {\"median\": 1.1, \"lo\": 1.0, \"hi\": 1.2, \"pairs\": 3, \"mann_whitney_p\": 0.1,"
    "     \"significant\": false, \"slowdown\": {\"median\": 0.91, \"lo\": 0.8, \"hi\": 1.0}}}],"
    " \"protection\": [], \"protection_note\": \"no overhead\"}";

int main(void)
{
    json_error_t je;
    json_t *cmp = json_loads(cmp_text, 0, &je);
    ok(cmp != NULL, "the comparison parses (%s)", cmp ? "" : je.text);
    struct mtb_cmp_rows r;
    mtb_cmp_rows_read(cmp, &r);
    ok(!strcmp(r.reference, "stock") && !strcmp(r.note, "TCG") && r.emulated && !strcmp(r.accel, "tcg") &&
           !strcmp(r.qemu, "10.0.2") && !strcmp(r.protection_note, "no overhead") && json_is_array(r.protection),
       "the platform, the note, what the price buys");
    ok(r.nkernels == 2 && r.kernels[0].npatches == 0 && !strcmp(r.kernels[0].build_hash, "") &&
           r.kernels[1].npatches == 1 && !strcmp(r.kernels[1].patches[0], "/p/0001-tcma1.patch"),
       "the kernels' identities and patches");
    ok(r.nrows == 2 && r.rows[0].runs == 3 && r.rows[0].metric[MTB_M_ops_per_sec].present &&
           r.rows[0].metric[MTB_M_ops_per_sec].median == 1000 && !r.rows[0].metric[MTB_M_p99_us].present &&
           !r.rows[0].vs.present && isnan(r.rows[0].vs.mann_whitney_p),
       "the reference's row: its intervals, no comparison");
    const struct mtb_cmp_vs *v = &r.rows[1].vs;
    ok(v->present && v->ratio.median == 1.1 && v->pairs == 3 && v->mann_whitney_p == 0.1 && !v->significant &&
           v->pair[MTB_P_slowdown].present && v->pair[MTB_P_slowdown].median == 0.91 && !v->pair[MTB_P_p99_ratio].present,
       "a kernel against the reference: the ratio, Mann-Whitney, the pair metrics");
    mtb_cmp_rows_free(&r);
    json_t *empty = json_object();
    mtb_cmp_rows_read(empty, &r);
    ok(r.nrows == 0 && r.nkernels == 0 && !r.protection && !r.protection_note && !strcmp(r.reference, ""),
       "a comparison without rows");
    mtb_cmp_rows_free(&r);
    json_decref(empty);
    json_decref(cmp);
    return done_testing();
}
