#include "sidetally.h"

struct rtally sidetally_of(const struct side *s) {
    struct rtally t = {0};
    if (s->dec.have) rtally_merge(&t, &s->dec.stream.tally);
    for (size_t i = 0; i < s->nlv; i++) rtally_merge(&t, &s->lv[i].stream.tally);
    for (size_t i = 0; i < s->rate.n; i++) rtally_merge(&t, &s->rate.r[i].stream.tally);
    return t;
}
