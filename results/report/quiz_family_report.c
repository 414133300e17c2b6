#include "quiz_family_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "esc.h"

static int quiz_family_report_row(struct page_block *t, const struct quiz_family *f,
                                  const struct quiz_family_row *r) {
    const struct quiz_pair *q = &r->q;
    char items[24], acc_b[24], acc_c[24], diff[80], dis[24], pd[24], pe[24];
    struct buf v;
    snprintf(items, sizeof items, "%ld", q->n);
    snprintf(acc_b, sizeof acc_b, "%.1f%%", 100.0 * (double)q->right_b / (double)q->n);
    snprintf(acc_c, sizeof acc_c, "%.1f%%", 100.0 * (double)q->right_c / (double)q->n);
    snprintf(diff, sizeof diff, "%+.1f (%+.1f to %+.1f)", 100 * q->diff, 100 * q->lo, 100 * q->hi);
    snprintf(dis, sizeof dis, "%.1f%%", 100 * q->psi);
    snprintf(pd, sizeof pd, "%.3g", q->p_diff_adj);
    snprintf(pe, sizeof pe, "%.3g", q->p_equiv_adj);
    buf_init(&v, 200);
    int rc = quiz_family_verdict(f, r, &v) ? -1 : 0;
    const char *cells[] = {r->kind, items, acc_b, acc_c, diff, dis, pd, pe, buf_str(&v)};
    if (!rc) rc = page_row(t, cells);
    buf_free(&v);
    return rc;
}

int quiz_family_report_report(struct page *r, const struct quiz_family *f, const char *bname,
                              const char *cname) {
    if (!f->have) return 0;
    if (page_text(r, PAGE_HEADING, "Paired analysis by family") < 0) return -1;
    const char *head[] = {"family",
                          "items",
                          bname,
                          cname,
                          "difference, points (95% CI)",
                          "discordant",
                          "McNemar p (Holm)",
                          "TOST p (Holm)",
                          "verdict"};
    struct page_block *t = page_table(r, 0x1fe & ~0x100u, 9, head);
    if (!t) return -1;
    for (size_t i = 0; i < f->n; i++)
        if (quiz_family_report_row(t, f, &f->rows[i]) < 0) return -1;
    if (f->n > 1 && quiz_family_report_row(t, f, &f->all) < 0) return -1;
    return page_text(
        r, PAGE_PARA,
        "The difference is %s's accuracy minus %s's over the items both answered, with a "
        "paired-bootstrap interval (%d resamples). \"different\": McNemar's exact test, "
        "adjusted by Holm's method across the %zu families, is below %g; \"equivalent\": "
        "TOST at a margin of %g points is below %g after the same correction; "
        "\"inconclusive\": neither, with the items per family a run would need at %g%% power if "
        "the observed difference and discordance held. The \"all\" row is unadjusted. "
        "\"discordant\" re-estimates the share of items the sides disagree on, which "
        "sm-quiz plan --discordance assumed.",
        cname, bname, QUIZ_PAIR_BOOT, f->n, f->alpha, f->margin * 100, f->alpha, f->power * 100);
}

static cJSON *quiz_family_report_json_row(const struct quiz_family *f,
                                          const struct quiz_family_row *r) {
    const struct quiz_pair *q = &r->q;
    cJSON *o = cJSON_CreateObject();
    char *family = esc_utf8(r->kind); /* a kind from a file: valid UTF-8 in the JSON */
    struct buf v;
    buf_init(&v, 200);
    if (!o || !family || quiz_family_verdict(f, r, &v)) {
        buf_free(&v);
        free(family);
        cJSON_Delete(o);
        return NULL;
    }
    cJSON_AddStringToObject(o, "family", family);
    free(family);
    cJSON_AddNumberToObject(o, "items", (double)q->n);
    cJSON_AddNumberToObject(o, "baseline_right", (double)q->right_b);
    cJSON_AddNumberToObject(o, "candidate_right", (double)q->right_c);
    cJSON_AddNumberToObject(o, "only_baseline_right", (double)q->b);
    cJSON_AddNumberToObject(o, "only_candidate_right", (double)q->c);
    cJSON_AddNumberToObject(o, "difference", q->diff);
    cJSON_AddNumberToObject(o, "difference_lo", q->lo);
    cJSON_AddNumberToObject(o, "difference_hi", q->hi);
    cJSON_AddNumberToObject(o, "discordance", q->psi);
    cJSON_AddNumberToObject(o, "mcnemar_p", q->p_diff);
    cJSON_AddNumberToObject(o, "mcnemar_p_holm", q->p_diff_adj);
    cJSON_AddNumberToObject(o, "tost_p", q->p_equiv);
    cJSON_AddNumberToObject(o, "tost_p_holm", q->p_equiv_adj);
    cJSON_AddStringToObject(o, "verdict", quiz_pair_verdict_name(q->verdict));
    if (q->more >= 0) cJSON_AddNumberToObject(o, "more_items_needed", (double)q->more);
    cJSON_AddStringToObject(o, "text", buf_str(&v));
    buf_free(&v);
    return o;
}

cJSON *quiz_family_report_json(const struct quiz_family *f) {
    if (!f->have) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "families");
    if (!o || !a) {
        cJSON_Delete(o);
        return NULL;
    }
    cJSON_AddNumberToObject(o, "margin", f->margin);
    cJSON_AddNumberToObject(o, "alpha", f->alpha);
    cJSON_AddStringToObject(o, "correction", "holm");
    cJSON_AddStringToObject(o, "interval", "paired bootstrap, percentile");
    for (size_t i = 0; i <= f->n; i++) {
        cJSON *row = quiz_family_report_json_row(f, i < f->n ? &f->rows[i] : &f->all);
        if (!row) {
            cJSON_Delete(o);
            return NULL;
        }
        cJSON_AddItemToArray(a, row);
    }
    return o;
}
