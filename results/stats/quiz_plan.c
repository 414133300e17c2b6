#include "quiz_plan.h"

#include <math.h>
#include <stdlib.h>

#include "estim.h"

static double quiz_plan_z(double p) {
    return estim_t_quantile(p, INFINITY);
}

void quiz_plan_defaults(struct quiz_plan *p) {
    p->detect = 0.03;
    p->power = QUIZ_PLAN_POWER;
    p->alpha = QUIZ_PLAN_ALPHA;
    p->discordance = QUIZ_PLAN_DISCORDANCE;
    p->families = 1;
}

int quiz_plan_check(const struct quiz_plan *p, struct buf *err) {
    if (!(p->detect > 0 && p->detect < 1))
        return buf_fail(err, QUIZ_PLAN_ERR_INPUT, "--detect %g: the difference must be in (0, 1)",
                        p->detect);
    if (!(p->power > 0 && p->power < 1))
        return buf_fail(err, QUIZ_PLAN_ERR_INPUT, "--power %g: must be in (0, 1)", p->power);
    if (!(p->alpha > 0 && p->alpha < 1))
        return buf_fail(err, QUIZ_PLAN_ERR_INPUT, "--alpha %g: must be in (0, 1)", p->alpha);
    if (!(p->discordance > 0 && p->discordance <= 1))
        return buf_fail(err, QUIZ_PLAN_ERR_INPUT, "--discordance %g: must be in (0, 1]",
                        p->discordance);
    if (p->discordance <= p->detect * p->detect || p->discordance < p->detect)
        return buf_fail(err, QUIZ_PLAN_ERR_INPUT,
                        "--discordance %g: the sides must disagree on at least as many items as "
                        "the difference (--detect %g)",
                        p->discordance, p->detect);
    if (p->families < 1 || p->families > 100)
        return buf_fail(err, QUIZ_PLAN_ERR_INPUT, "--families %u: must be 1 to 100", p->families);
    return QUIZ_PLAN_OK;
}

long quiz_plan_items(const struct quiz_plan *p) {
    double a = p->alpha / p->families, d = p->detect, psi = p->discordance;
    double root = quiz_plan_z(1 - a / 2) * sqrt(psi) + quiz_plan_z(p->power) * sqrt(psi - d * d);
    double n = ceil(root * root / (d * d));
    return n > QUIZ_PLAN_ITEMS_MAX ? QUIZ_PLAN_ITEMS_MAX : (long)n;
}

double quiz_plan_power(const struct quiz_plan *p, long n) {
    double a = p->alpha / p->families, d = p->detect, psi = p->discordance;
    double z = (d * sqrt((double)n) - quiz_plan_z(1 - a / 2) * sqrt(psi)) / sqrt(psi - d * d);
    return estim_t_cdf(z, INFINITY);
}

long quiz_plan_items_equiv(double margin, double d, double psi, double alpha, double power) {
    double room = margin - fabs(d), var = psi - d * d;
    if (!(room > 0)) return -1;
    if (var < 1e-12) var = 1e-12;
    double root = quiz_plan_z(1 - alpha) + quiz_plan_z(power);
    double n = ceil(root * root * var / (room * room));
    return n > QUIZ_PLAN_ITEMS_MAX ? QUIZ_PLAN_ITEMS_MAX : (long)n;
}

bool quiz_plan_share(const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s) return false;
    while (*end == ' ') end++;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    if (*end || !(v > 0 && v < 1)) return false;
    *out = v;
    return true;
}
