#include "stats.h"

#include <math.h>
#include <stdlib.h>

void stats_rng_seed(struct stats_rng *r, uint64_t seed) {
    r->state = seed;
}

uint64_t stats_rng_next(struct stats_rng *r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

size_t stats_rng_below(struct stats_rng *r, size_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;
    do v = stats_rng_next(r);
    while (v >= limit);
    return (size_t)(v % n);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void stats_sort(double *x, size_t n) {
    qsort(x, n, sizeof *x, cmp_double);
}

/* Moves the k-th smallest value to x[k], smaller ones before it (Hoare's select). */
static void select_kth(double *x, size_t n, size_t k) {
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

double stats_median(double *x, size_t n) {
    size_t k = n / 2;
    select_kth(x, n, k);
    if (n % 2) return x[k];
    double below = x[0];
    for (size_t i = 1; i < k; i++)
        if (x[i] > below) below = x[i];
    return (below + x[k]) / 2;
}

double stats_quantile_select(double *x, size_t n, double q) {
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n) i = n - 1;
    select_kth(x, n, i);
    if (i + 1 >= n) return x[i];
    double next = x[i + 1];
    for (size_t k = i + 2; k < n; k++)
        if (x[k] < next) next = x[k];
    return x[i] + (h - (double)i) * (next - x[i]);
}

double stats_quantile(const double *sorted, size_t n, double q) {
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n) return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

void stats_resample(struct stats_rng *r, const double *x, size_t n, double *out) {
    for (size_t i = 0; i < n; i++) out[i] = x[stats_rng_below(r, n)];
}

void stats_interval95(double *vals, size_t n, double *lo, double *hi) {
    stats_sort(vals, n);
    *lo = stats_quantile(vals, n, 0.025);
    *hi = stats_quantile(vals, n, 0.975);
}

int stats_linfit(const double *x, const double *y, size_t n, double *a, double *b) {
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

double stats_mcnemar(unsigned b, unsigned c) {
    unsigned n = b + c, k = b < c ? b : c;
    if (n == 0) return 1;
    double sum = 0;
    for (unsigned i = 0; i <= k; i++)
        sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
    double p = 2 * sum;
    return p > 1 ? 1 : p;
}
