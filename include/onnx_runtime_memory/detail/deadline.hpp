// When the searches' time limit (ArenaOptions::time_limit) is spent, on the
// clock the options name: wall time, or the calling thread's CPU time, which
// a loaded machine does not shorten.
#pragma once

#include <chrono>
#include <ctime>
#include <time.h>  // clock_gettime, CLOCK_THREAD_CPUTIME_ID: POSIX, not in <ctime>

#include "../plan_types.hpp"

namespace onnx_runtime_memory::detail {

// The calling thread's CPU time, where the platform has a clock for it
// (POSIX CLOCK_THREAD_CPUTIME_ID: Linux, the BSDs, macOS 10.12 on); false
// elsewhere (MSVC among them), and then the limit counts wall time.
[[nodiscard]] inline bool thread_cpu_now(std::chrono::nanoseconds& now) noexcept {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return false;
    now = std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
    return true;
#else
    (void)now;
    return false;
#endif
}

class Deadline {
public:
    Deadline() = default;  // never passes

    // `limit` from now on `clock`; no limit (0 or less) never passes, and
    // limits past the clock's range saturate (microseconds::max() included).
    [[nodiscard]] static Deadline after(std::chrono::microseconds limit, TimeLimitClock clock) noexcept {
        Deadline d;
        if (limit.count() <= 0) return d;
        d.cpu_ = clock == TimeLimitClock::thread_cpu && thread_cpu_now(d.at_);
        if (!d.cpu_) d.at_ = wall_now();
        const auto room = std::chrono::nanoseconds::max() - d.at_;
        if (std::chrono::duration_cast<std::chrono::microseconds>(room) <= limit) return Deadline{};
        d.at_ += std::chrono::duration_cast<std::chrono::nanoseconds>(limit);
        d.limited_ = true;
        return d;
    }

    [[nodiscard]] bool passed() const noexcept {
        if (!limited_) return false;
        std::chrono::nanoseconds now{};
        // A CPU clock that fails now falls back to wall time (on Linux, since boot: the search ends).
        if (!cpu_ || !thread_cpu_now(now)) now = wall_now();
        return now >= at_;
    }

private:
    [[nodiscard]] static std::chrono::nanoseconds wall_now() noexcept {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch());
    }

    std::chrono::nanoseconds at_{};  // on the clock since its epoch
    bool limited_ = false;
    bool cpu_ = false;  // at_ is the thread's CPU time
};

}  // namespace onnx_runtime_memory::detail
