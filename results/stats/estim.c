#include "estim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void estim_rng_seed(struct estim_rng *r, uint64_t seed) {
    r->state = seed;
}

uint64_t estim_rng_next(struct estim_rng *r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double estim_rng_unit(struct estim_rng *r) {
    return (double)(estim_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int estim_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void estim_sort(double *x, size_t n) {
    if (n > 1) qsort(x, n, sizeof *x, estim_cmp_double);
}

/* Moves the k-th smallest value to x[k], smaller ones before it (Hoare's select). */
static void estim_select(double *x, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) i++;
            while (x[j] > pivot) j--;
            if (i <= j) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

double estim_median(double *x, size_t n) {
    size_t k = n / 2;
    estim_select(x, n, k);
    if (n % 2) return x[k];
    double below = x[0];
    for (size_t i = 1; i < k; i++)
        if (x[i] > below) below = x[i];
    return (below + x[k]) / 2;
}

double estim_median_of(const double *x, size_t n) {
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return NAN;
    memcpy(tmp, x, n * sizeof *tmp);
    double m = estim_median(tmp, n);
    free(tmp);
    return m;
}

double estim_quantile_select(double *x, size_t n, double q) {
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n) i = n - 1;
    estim_select(x, n, i);
    if (i + 1 >= n) return x[i];
    double next = x[i + 1];
    for (size_t k = i + 2; k < n; k++)
        if (x[k] < next) next = x[k];
    return x[i] + (h - (double)i) * (next - x[i]);
}

double estim_quantile(const double *sorted, size_t n, double q) {
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n) return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

int estim_linfit(const double *x, const double *y, size_t n, double *a, double *b) {
    if (n < 2) return -1;
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0)) return -1;
    *b = sxy / sxx;
    *a = my - *b * mx;
    return 0;
}

double estim_mcnemar(unsigned b, unsigned c) {
    unsigned n = b + c, k = b < c ? b : c;
    if (n == 0) return 1;
    double sum = 0;
    for (unsigned i = 0; i <= k; i++)
        sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
    double p = 2 * sum;
    return p > 1 ? 1 : p;
}

/* ---- Student's t ---- */

/* The continued fraction of the regularized incomplete beta function
 * (modified Lentz), for x < (a + 1) / (a + b + 2). */
static double estim_beta_cf(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        for (int half = 0; half < 2; half++) {
            d = 1 + num * d;
            c = 1 + num / c;
            if (fabs(d) < tiny) d = tiny;
            if (fabs(c) < tiny) c = tiny;
            d = 1 / d;
            double step = d * c;
            h *= step;
            if (half == 1 && fabs(step - 1) < 1e-15) return h;
            num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        }
    }
    return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double estim_ibeta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * estim_beta_cf(a, b, x) / a;
    return 1 - front * estim_beta_cf(b, a, 1 - x) / b;
}

double estim_t_cdf(double t, double df) {
    if (isinf(df)) return 0.5 * erfc(-t / sqrt(2.0));
    double tail = 0.5 * estim_ibeta(df / 2, 0.5, df / (df + t * t));
    return t > 0 ? 1 - tail : tail;
}

double estim_t_quantile(double p, double df) {
    if (p == 0.5) return 0;
    if (p < 0.5) return -estim_t_quantile(1 - p, df);
    double lo = 0, hi = 1;
    while (estim_t_cdf(hi, df) < p && hi < 1e12) hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (estim_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* ---- medians ---- */

double estim_binom_half_cdf(long k, long n) {
    double lp = -(double)n * log(2.0), sum = 0; /* the log of P(B = 0) */
    for (long i = 0; i <= k && i <= n; i++) {
        sum += exp(lp);
        lp += log((double)(n - i)) - log((double)(i + 1));
    }
    return sum > 1 ? 1 : sum;
}

void estim_median_ci(const double *sorted, size_t n, double level, double *lo, double *hi,
                     double *achieved) {
    long N = (long)n, d = 1;
    /* [x(d), x(N - d + 1)] covers 1 - 2 P(B <= d - 1); cum is that P, lp the log of P(B = d) */
    double cum = exp(-(double)N * log(2.0)), lp = log((double)N) - (double)N * log(2.0);
    while (d + 1 <= N / 2 && 1 - 2 * (cum + exp(lp)) >= level) {
        cum += exp(lp);
        lp += log((double)(N - d)) - log((double)(d + 1));
        d++;
    }
    double gd = 1 - 2 * cum;
    *lo = sorted[d - 1];
    *hi = sorted[N - d];
    *achieved = gd < level ? gd : level;
    if (gd <= level || d + 1 > N - d) return;
    double gn = 1 - 2 * (cum + exp(lp)), I = (gd - level) / (gd - gn);
    double lambda = (double)(N - d) * I / ((double)d + (double)(N - 2 * d) * I);
    *lo = (1 - lambda) * sorted[d - 1] + lambda * sorted[d];
    *hi = (1 - lambda) * sorted[N - d] + lambda * sorted[N - d - 1];
}

int estim_log_median_se(const double *sorted, size_t n, double *se) {
    if (n < 2 || !(sorted[0] > 0)) return -1;
    long N = (long)n, a = lround((N + 1) / 2.0 - sqrt((double)N));
    if (a < 1) a = 1;
    double p = estim_binom_half_cdf(a - 1, N);
    double z0 = estim_t_quantile(1 - p, INFINITY);
    *se = (log(sorted[N - a]) - log(sorted[a - 1])) / (2 * z0);
    return 0;
}

/* ---- clustered samples ---- */

/* The bits of x as an unsigned key that sorts as x does (NaN apart). */
static uint64_t estim_key(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (1ull << 63);
}

static void estim_cinsert(struct estim_cval *x, size_t n) {
    for (size_t i = 1; i < n; i++) {
        struct estim_cval v = x[i];
        size_t k = i;
        for (; k > 0 && x[k - 1].v > v.v; k--) x[k] = x[k - 1];
        x[k] = v;
    }
}

/* One pass of a least-significant-digit radix sort on byte b of the keys,
 * from x into to; false (nothing moved) when every key has the same byte. */
static bool estim_cpass(const struct estim_cval *x, struct estim_cval *to, size_t n, int b) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++) count[((estim_key(x[i].v) >> (8 * b)) & 0xff) + 1]++;
    for (int d = 0; d < 256; d++)
        if (count[d + 1] == n) return false;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++) to[count[(estim_key(x[i].v) >> (8 * b)) & 0xff]++] = x[i];
    return true;
}

static int estim_cmp_cval(const void *a, const void *b) {
    double x = ((const struct estim_cval *)a)->v, y = ((const struct estim_cval *)b)->v;
    return (x > y) - (x < y);
}

void estim_csort(struct estim_cval *x, size_t n) {
    struct estim_cval *tmp = n > 64 ? malloc(n * sizeof *tmp) : NULL, *from = x, *to = tmp;
    if (n <= 64) {
        estim_cinsert(x, n);
        return;
    }
    if (!tmp) { /* no room for the radix sort's copy */
        qsort(x, n, sizeof *x, estim_cmp_cval);
        return;
    }
    for (int b = 0; b < 8; b++) {
        if (!estim_cpass(from, to, n, b)) continue;
        struct estim_cval *t = from;
        from = to;
        to = t;
    }
    if (from != x) memcpy(x, from, n * sizeof *x);
    free(tmp);
}

double estim_cquantile(const struct estim_cval *sorted, size_t n, uint64_t total, double q) {
    double h = (double)(total - 1) * q;
    uint64_t i = (uint64_t)floor(h), before = 0;
    size_t j = 0;
    while (j + 1 < n && before + sorted[j].w <= i) before += sorted[j++].w;
    double lo = sorted[j].v, hi = lo;
    if (i + 1 >= before + sorted[j].w && j + 1 < n) hi = sorted[j + 1].v;
    return i + 1 >= total ? lo : lo + (h - (double)i) * (hi - lo);
}

int estim_cshare_se(const struct estim_cval *x, size_t n, uint32_t m, double t, double q,
                    double *se) {
    if (m < 2) return -1;
    double *y = calloc(2 * (size_t)m, sizeof *y), all = 0, ss = 0;
    if (!y) return -1;
    double *tc = y + m; /* each cluster's whole weight */
    for (size_t i = 0; i < n; i++) {
        if (x[i].cl >= m) continue; /* not one of the m clusters */
        tc[x[i].cl] += x[i].w;
        y[x[i].cl] += x[i].v < t ? x[i].w : x[i].v == t ? 0.5 * x[i].w : 0;
    }
    for (uint32_t c = 0; c < m; c++) {
        all += tc[c];
        ss += (y[c] - q * tc[c]) * (y[c] - q * tc[c]);
    }
    *se = all > 0 ? sqrt(ss * m / (m - 1.0)) / all : 0;
    free(y);
    return 0;
}

/* ---- normal-theory estimates ---- */

int estim_mean(const double *x, size_t n, struct estim_norm *out) {
    if (n < 2) return -1;
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++) m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    out->est = m;
    out->var = ss / (double)(n - 1) / (double)n;
    out->df = (double)(n - 1);
    return 0;
}

double estim_ws_df(double u, double du, double v, double dv) {
    double den = (u > 0 ? u * u / du : 0) + (v > 0 ? v * v / dv : 0);
    return den > 0 ? (u + v) * (u + v) / den : INFINITY;
}

struct estim_norm estim_lincomb(double a, const struct estim_norm *x, double b,
                                const struct estim_norm *y) {
    struct estim_norm r;
    double u = a * a * x->var, v = b * b * y->var;
    r.est = a * x->est + b * y->est;
    r.var = u + v;
    r.df = estim_ws_df(u, x->df, v, y->df);
    return r;
}

void estim_t_interval(const struct estim_norm *x, double level, double *lo, double *hi) {
    double half = x->var > 0 ? estim_t_quantile(0.5 + level / 2, x->df) * sqrt(x->var) : 0;
    *lo = x->est - half;
    *hi = x->est + half;
}

int estim_fieller(const struct estim_norm *num, const struct estim_norm *den, double level,
                  double *lo, double *hi) {
    double y = den->est, x = num->est;
    if (!(fabs(y) > 0)) return -1;
    double r = x / y, u = num->var, v = r * r * den->var;
    double df = estim_ws_df(u, num->df, v, den->df);
    double t = u + v > 0 ? estim_t_quantile(0.5 + level / 2, df) : 0;
    double g = t * t * den->var / (y * y);
    if (!(g < 1)) return -1;
    double half = t / fabs(y) * sqrt(num->var * (1 - g) + r * r * den->var);
    *lo = (r - half) / (1 - g);
    *hi = (r + half) / (1 - g);
    return 0;
}
