#include "qplan.h"

#include <math.h>
#include <stdlib.h>

#include "estim.h"

static double qplan_z(double p) {
    return estim_t_quantile(p, INFINITY);
}

void qplan_defaults(struct qplan *p) {
    p->detect = 0.03;
    p->power = QPLAN_POWER;
    p->alpha = QPLAN_ALPHA;
    p->discordance = QPLAN_DISCORDANCE;
    p->families = 1;
}

int qplan_check(const struct qplan *p, struct buf *err) {
    if (!(p->detect > 0 && p->detect < 1))
        return buf_fail(err, QPLAN_ERR_INPUT, "--detect %g: the difference must be in (0, 1)",
                        p->detect);
    if (!(p->power > 0 && p->power < 1))
        return buf_fail(err, QPLAN_ERR_INPUT, "--power %g: must be in (0, 1)", p->power);
    if (!(p->alpha > 0 && p->alpha < 1))
        return buf_fail(err, QPLAN_ERR_INPUT, "--alpha %g: must be in (0, 1)", p->alpha);
    if (!(p->discordance > 0 && p->discordance <= 1))
        return buf_fail(err, QPLAN_ERR_INPUT, "--discordance %g: must be in (0, 1]",
                        p->discordance);
    if (p->discordance <= p->detect * p->detect || p->discordance < p->detect)
        return buf_fail(err, QPLAN_ERR_INPUT,
                        "--discordance %g: the sides must disagree on at least as many items as "
                        "the difference (--detect %g)",
                        p->discordance, p->detect);
    if (p->families < 1 || p->families > 100)
        return buf_fail(err, QPLAN_ERR_INPUT, "--families %u: must be 1 to 100", p->families);
    return QPLAN_OK;
}

long qplan_items(const struct qplan *p) {
    double a = p->alpha / p->families, d = p->detect, psi = p->discordance;
    double root = qplan_z(1 - a / 2) * sqrt(psi) + qplan_z(p->power) * sqrt(psi - d * d);
    double n = ceil(root * root / (d * d));
    return n > QPLAN_ITEMS_MAX ? QPLAN_ITEMS_MAX : (long)n;
}

double qplan_power(const struct qplan *p, long n) {
    double a = p->alpha / p->families, d = p->detect, psi = p->discordance;
    double z = (d * sqrt((double)n) - qplan_z(1 - a / 2) * sqrt(psi)) / sqrt(psi - d * d);
    return estim_t_cdf(z, INFINITY);
}

long qplan_items_equiv(double margin, double d, double psi, double alpha, double power) {
    double room = margin - fabs(d), var = psi - d * d;
    if (!(room > 0)) return -1;
    if (var < 1e-12) var = 1e-12;
    double root = qplan_z(1 - alpha) + qplan_z(power);
    double n = ceil(root * root * var / (room * room));
    return n > QPLAN_ITEMS_MAX ? QPLAN_ITEMS_MAX : (long)n;
}

bool qplan_share(const char *s, double *out) {
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
