/* What a status means for a wait, the cost so far, and the progress line. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "epwait.h"

int main(void) {
    static const struct {
        const char *status;
        double elapsed, timeout;
        enum epwait_verdict want;
    } rows[] = {
        {"Creating", 10, 0, EPWAIT_ON},      {"Creating", 10, 10, EPWAIT_TIMEOUT},
        {"Updating", 5, 10, EPWAIT_ON},      {"InService", 99, 10, EPWAIT_IN_SERVICE},
        {"Failed", 1, 10, EPWAIT_FAILED},    {"Deleting", 1, 0, EPWAIT_GONE},
        {"OutOfService", 1, 0, EPWAIT_GONE}, {"SystemUpdating", 1, 0, EPWAIT_ON},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_INT(epwait_judge(rows[i].status, rows[i].elapsed, rows[i].timeout), rows[i].want);
    CHECK(fabs(epwait_cost(3600, 1, 1.1267) - 1.1267) < 1e-12);
    CHECK(fabs(epwait_cost(36, 100, 1.1267) - 1.1267) < 1e-12); /* emulated hour */
    CHECK(epwait_cost(36, 100, 0) == 0);
    char c[32];
    epwait_clock(151, c);
    CHECK_STR(c, "2:31");
    epwait_clock(3723, c);
    CHECK_STR(c, "1:02:03");
    struct buf b;
    buf_init(&b, BUF_NO_CAP);
    CHECK_INT(epwait_line(&b, "e", "us-east-2", "Creating", 151, 151, 1, 1.1267, "ml.g6.xlarge"),
              0);
    CHECK_STR(buf_str(&b), "e in us-east-2: Creating, 2:31 elapsed, USD 0.05 so far at USD "
                           "1.1267/h (ml.g6.xlarge)");
    buf_reset(&b);
    CHECK_INT(epwait_line(&b, "e", "us-east-2", "Updating", 1.51, 36, 100, 1.1267, NULL), 0);
    CHECK_STR(buf_str(&b), "e in us-east-2: Updating, 2:31 emulated elapsed, USD 1.13 so far at "
                           "USD 1.1267/h");
    buf_reset(&b);
    CHECK_INT(epwait_line(&b, "e", "us-east-1", "Creating", 0, 0, 1, 0, "ml.g6.xlarge"), 0);
    CHECK_STR(buf_str(&b), "e in us-east-1: Creating, 0:00 elapsed, price unknown for "
                           "ml.g6.xlarge (pass --price-per-hour)");
    buf_free(&b);
    CHECK(epwait_no_capacity("Unable to provision requested ML compute capacity due to "
                             "InsufficientInstanceCapacity error."));
    CHECK(!epwait_no_capacity("The primary container for production variant AllTraffic did "
                              "not pass the ping health check."));
    return check_exit();
}
