/* The kernel's floor under sm-stream's CPU per received token (BENCHMARKS.md,
 * part 7 (c)): STREAMS TCP connections on loopback; a forked sender writes one
 * BYTES-byte message to each of them every STEP_MS, STEPS times (a decode step's
 * tokens, each alone on its connection, as sm-emulator sends them); this process
 * reads them with epoll (level-triggered) and one recv a ready socket, nothing
 * else, and prints its own CPU (user + system) per message. With --poll, also a
 * poll(2) of the socket after each recv, as libcurl 7.88 asks whether more is
 * pending. With --sender-cpu, the sender runs on that CPU.
 * Usage: recv_floor [--poll] [--sender-cpu K] STREAMS STEPS STEP_MS BYTES */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct floor_args {
    long streams, steps, step_ms, bytes, sender_cpu;
    int poll_after;
};

static void floor_die(const char *what) {
    fprintf(stderr, "recv_floor: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static long floor_number(const char *s, const char *name, long lo, long hi) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "recv_floor: %s wants a whole number from %ld to %ld, got '%s'\n", name, lo,
                hi, s);
        exit(2);
    }
    return v;
}

static void floor_parse(int argc, char **argv, struct floor_args *a) {
    static const char *names[] = {"STREAMS", "STEPS", "STEP_MS", "BYTES"};
    long *vals[] = {&a->streams, &a->steps, &a->step_ms, &a->bytes};
    int i = 1, k = 0;
    a->sender_cpu = -1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--poll"))
            a->poll_after = 1;
        else if (!strcmp(argv[i], "--sender-cpu") && i + 1 < argc)
            a->sender_cpu = floor_number(argv[++i], "--sender-cpu", 0, CPU_SETSIZE - 1);
        else
            break;
    }
    if (argc - i != 4) {
        fprintf(stderr, "recv_floor: usage: recv_floor [--poll] [--sender-cpu K] STREAMS STEPS "
                        "STEP_MS BYTES\n");
        exit(2);
    }
    for (; k < 4; k++) *vals[k] = floor_number(argv[i + k], names[k], 1, k == 3 ? 65536 : 1000000);
}

static double floor_cpu(double *user, double *sys) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *user = (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6;
    *sys = (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
    return *user + *sys;
}

/* The sender: accepts every connection, says so on ctl, then writes the steps'
 * messages; it ends when the reader closes ctl. */
static void floor_send(const struct floor_args *a, int ctl) {
    int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    if (a->sender_cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)a->sender_cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set)) floor_die("sender: sched_setaffinity");
    }
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) || listen(ls, SOMAXCONN) ||
        getsockname(ls, (struct sockaddr *)&addr, &len) ||
        write(ctl, &addr.sin_port, sizeof addr.sin_port) != sizeof addr.sin_port)
        floor_die("sender: listen");
    int *fds = malloc((size_t)a->streams * sizeof *fds);
    char *msg = malloc((size_t)a->bytes);
    if (!fds || !msg) floor_die("sender: malloc");
    memset(msg, 'x', (size_t)a->bytes);
    for (long i = 0; i < a->streams; i++) {
        if ((fds[i] = accept(ls, NULL, NULL)) < 0) floor_die("sender: accept");
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (write(ctl, "r", 1) != 1) floor_die("sender: ctl");
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    for (long s = 0; s < a->steps; s++) {
        at.tv_nsec += a->step_ms * 1000000L;
        at.tv_sec += at.tv_nsec / 1000000000L;
        at.tv_nsec %= 1000000000L;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) continue;
        for (long i = 0; i < a->streams; i++)
            if (write(fds[i], msg, (size_t)a->bytes) != a->bytes) floor_die("sender: write");
    }
    char c;
    while (read(ctl, &c, 1) > 0) continue;
    _exit(0);
}

/* The reader's connections, one epoll set with ctl in it (the sender's end). */
static int floor_connect(const struct floor_args *a, int ctl) {
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ctl};
    char ready;
    int ep = epoll_create1(0);
    errno = 0;
    if (read(ctl, &addr.sin_port, sizeof addr.sin_port) != sizeof addr.sin_port)
        floor_die("the sender did not listen");
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ctl, &ev)) floor_die("epoll");
    for (long i = 0; i < a->streams; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        ev.data.fd = fd;
        if (fd < 0) floor_die("socket");
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) && errno != EINPROGRESS)
            floor_die("connect");
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) floor_die("epoll_ctl");
    }
    errno = 0;
    if (read(ctl, &ready, 1) != 1) floor_die("the sender did not accept every connection");
    return ep;
}

/* Reads until every message is in; returns the bytes read. */
static long long floor_read(const struct floor_args *a, int ep, int ctl) {
    static char buf[16384]; /* libcurl's read size */
    struct epoll_event evs[256];
    long long got = 0, want = (long long)a->streams * a->steps * a->bytes;
    while (got < want) {
        int n = epoll_wait(ep, evs, 256, -1);
        if (n < 0 && errno != EINTR) floor_die("epoll_wait");
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            ssize_t r;
            if (fd == ctl) {
                errno = 0;
                floor_die("the sender ended early");
            }
            if ((r = recv(fd, buf, sizeof buf, 0)) <= 0) {
                if (r < 0 && errno == EAGAIN) continue;
                floor_die("recv");
            }
            got += r;
            if (a->poll_after) {
                struct pollfd p = {.fd = fd, .events = POLLIN};
                poll(&p, 1, 0);
            }
        }
    }
    return got;
}

int main(int argc, char **argv) {
    struct floor_args a = {0};
    int ctl[2];
    double u0, s0, u1, s1;
    floor_parse(argc, argv, &a);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ctl)) floor_die("socketpair");
    pid_t sender = fork();
    if (sender < 0) floor_die("fork");
    if (sender == 0) {
        close(ctl[0]);
        floor_send(&a, ctl[1]);
    }
    close(ctl[1]);
    int ep = floor_connect(&a, ctl[0]);
    floor_cpu(&u0, &s0);
    long long got = floor_read(&a, ep, ctl[0]);
    floor_cpu(&u1, &s1);
    close(ctl[0]);
    waitpid(sender, NULL, 0);
    double msgs = (double)got / (double)a.bytes;
    printf("recv_floor: %ld streams, %ld steps %ld ms apart, %.0f messages of %ld bytes: "
           "%.3f us a message (user %.3f, system %.3f), a poll after each recv: %s\n",
           a.streams, a.steps, a.step_ms, msgs, a.bytes, (u1 - u0 + s1 - s0) / msgs * 1e6,
           (u1 - u0) / msgs * 1e6, (s1 - s0) / msgs * 1e6, a.poll_after ? "yes" : "no");
    return 0;
}
