// Safety nets of a launch: SIGSEGV/SIGBUS (guard pages, stack overflow), SIGFPE and SIGILL, and
// a per-launch timer signal for the deadline, all turned into the launch's error.
#include "signals.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>

#include "bounds.h"
#include "fiber.h"
#include "launch.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

namespace kp::core {

namespace {
constexpr int kSigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction g_old_act[5];
stack_t g_old_stack;
char* g_altstack;
timer_t g_timer;
bool g_timer_armed;
sigset_t g_old_mask;

int timer_signal() { return SIGRTMIN + 2; }

void on_signal(int sig, siginfo_t* si, void*) {
    if (!g_in_launch) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    char w[128];
    where(w, sizeof w);
    uintptr_t a = reinterpret_cast<uintptr_t>(si->si_addr);
    int status = ST_MEMORY;
    char msg[1024];
    if (sig == timer_signal()) {
        status = ST_TIMEOUT;
        snprintf(msg, sizeof msg, "the kernel did not finish within %.3g s (last running: %s)",
                 g_L->timeout_s, w);
    } else if (sig == SIGSEGV && in_fiber_guard(a)) {
        snprintf(msg, sizeof msg,
                 "stack overflow in %s: a CUDA thread used more than %zu KiB of local memory "
                 "(large local arrays or deep recursion)", w, g_stack_bytes / 1024);
    } else if (sig == SIGSEGV || sig == SIGBUS) {
        char d[512];
        describe_global_fault(a, d, sizeof d);
        snprintf(msg, sizeof msg, "invalid memory access in %s: %s", w, d);
    } else if (sig == SIGFPE) {
        status = ST_LAUNCH;
        snprintf(msg, sizeof msg, "%s in %s",
                 si->si_code == FPE_INTDIV ? "integer division by zero" : "arithmetic exception", w);
    } else {
        status = ST_LAUNCH;
        snprintf(msg, sizeof msg, "illegal instruction in %s", w);
    }
    if (g_L->status == ST_OK) {
        g_L->status = status;
        snprintf(g_L->message, sizeof g_L->message, "%s", msg);
    }
    siglongjmp(g_jmp, 1);
}
}  // namespace

void install_signals(double timeout_s) {
    if (!g_altstack) g_altstack = static_cast<char*>(malloc(256 * 1024));
    stack_t ss{};
    ss.ss_sp = g_altstack;
    ss.ss_size = 256 * 1024;
    sigaltstack(&ss, &g_old_stack);
    struct sigaction sa{};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < 4; i++) sigaction(kSigs[i], &sa, &g_old_act[i]);
    sigaction(timer_signal(), &sa, &g_old_act[4]);
    sigset_t un;
    sigemptyset(&un);
    for (int s : kSigs) sigaddset(&un, s);
    sigaddset(&un, timer_signal());
    pthread_sigmask(SIG_UNBLOCK, &un, &g_old_mask);
    g_timer_armed = false;
    if (timeout_s > 0) {
        struct sigevent sev{};
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = timer_signal();
        sev.sigev_notify_thread_id = static_cast<pid_t>(syscall(SYS_gettid));
        if (timer_create(CLOCK_MONOTONIC, &sev, &g_timer) == 0) {
            struct itimerspec its{};
            its.it_value.tv_sec = time_t(timeout_s);
            its.it_value.tv_nsec = long((timeout_s - double(time_t(timeout_s))) * 1e9);
            if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
            timer_settime(g_timer, 0, &its, nullptr);
            g_timer_armed = true;
        }
    }
}

void restore_signals() {
    if (g_timer_armed) timer_delete(g_timer);
    g_timer_armed = false;
    for (unsigned i = 0; i < 4; i++) sigaction(kSigs[i], &g_old_act[i], nullptr);
    sigaction(timer_signal(), &g_old_act[4], nullptr);
    pthread_sigmask(SIG_SETMASK, &g_old_mask, nullptr);
    sigaltstack(&g_old_stack, nullptr);
}

}  // namespace kp::core
