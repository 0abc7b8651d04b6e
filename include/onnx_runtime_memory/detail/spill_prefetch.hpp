// Copies in that overlap with compute (SpillOptions::node_seconds and
// bytes_per_second): each fast run that begins with a copy in starts
// earlier, at the same offset, until the nodes before its first use take
// as long as the copy (or its bytes are taken earlier, or the copy out
// before it would meet it), so an executor that issues copies on a second
// stream waits for less. The runs keep their offsets, so the plan stays
// within the capacity and moves the same bytes. Done in order of each run's
// start, against the runs that end before it: a segment tree over byte
// ranges keeps the latest end of the runs painted over them so far.
// O(n log n) plus the positions walked.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "../spill_types.hpp"
#include "sort.hpp"
#include "spill_problem.hpp"

namespace onnx_runtime_memory::detail {

// Over cells [0, n): paint a range with a value never below any painted
// before, and the most over a range.
class LatestPaint {
public:
    void reset(std::size_t n) {
        n_ = std::max<std::size_t>(n, 1);
        top_.assign(4 * n_, 0);
        lazy_.assign(4 * n_, 0);
    }
    void paint(std::size_t first, std::size_t last, std::uint64_t v) { paint(1, 0, n_ - 1, first, last, v); }
    [[nodiscard]] std::uint64_t most(std::size_t first, std::size_t last) const { return most(1, 0, n_ - 1, first, last); }

private:
    void paint(std::size_t p, std::size_t lo, std::size_t hi, std::size_t first, std::size_t last, std::uint64_t v) {
        if (last < lo || hi < first) return;
        if (first <= lo && hi <= last) {
            top_[p] = lazy_[p] = v;
            return;
        }
        const std::size_t mid = lo + (hi - lo) / 2;
        paint(2 * p, lo, mid, first, last, v);
        paint(2 * p + 1, mid + 1, hi, first, last, v);
        top_[p] = std::max({top_[2 * p], top_[2 * p + 1], lazy_[p]});
    }
    // A node's lazy value was painted over all of it: what is below it is older, so no larger.
    [[nodiscard]] std::uint64_t most(std::size_t p, std::size_t lo, std::size_t hi, std::size_t first,
                                     std::size_t last) const {
        if (last < lo || hi < first) return 0;
        if (first <= lo && hi <= last) return top_[p];
        const std::size_t mid = lo + (hi - lo) / 2;
        return std::max({lazy_[p], most(2 * p, lo, mid, first, last), most(2 * p + 1, mid + 1, hi, first, last)});
    }
    std::size_t n_ = 1;
    std::vector<std::uint64_t> top_, lazy_;
};

// Moves copies in earlier (see the top of this file); returns the seconds the
// copies in still wait for: for each, its time less the compute it overlaps.
inline double prefetch_copies(const SpillProblem& p, const SpillOptions& o, FastRuns& runs) {
    const auto& seconds = o.node_seconds;
    // Compute before each rank: before[r] is the nodes' seconds at caller positions below time[r].
    std::vector<double> sum(seconds.size() + 1, 0.0);
    for (std::size_t t = 0; t < seconds.size(); ++t)  // a negative, infinite or NaN cost counts 0
        sum[t + 1] = sum[t] + (seconds[t] > 0 && seconds[t] < std::numeric_limits<double>::infinity() ? seconds[t] : 0.0);
    const auto before = [&](std::uint32_t r) { return sum[std::min<std::size_t>(p.time[r], seconds.size())]; };
    const auto need = [&](std::size_t bytes) { return static_cast<double>(bytes) / o.bytes_per_second; };

    // Byte cells between the runs' offsets and ends; each run's owner and place in its list.
    std::vector<std::size_t> cuts;
    std::vector<std::uint32_t> owner(runs.runs.size());
    for (std::uint32_t b = 0; b < p.buffers(); ++b)
        for (std::size_t k = runs.begin[b]; k < runs.begin[b + 1]; ++k) {
            owner[k] = b;
            cuts.push_back(runs.runs[k].offset);
            cuts.push_back(runs.runs[k].offset + p.aligned[b]);
        }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const auto cell = [&](std::size_t at) {
        return static_cast<std::size_t>(std::lower_bound(cuts.begin(), cuts.end(), at) - cuts.begin());
    };
    LatestPaint latest;
    latest.reset(cuts.size());
    std::vector<std::uint32_t> by_last(runs.runs.size()), by_first;
    for (std::uint32_t k = 0; k < by_last.size(); ++k) {
        by_last[k] = k;
        if (runs.runs[k].first != p.first[owner[k]]) by_first.push_back(k);  // it begins with a copy in
    }
    sort_by(by_last, [&](std::uint32_t k) { return runs.runs[k].last; });
    sort_by(by_first, [&](std::uint32_t k) { return runs.runs[k].first; });

    double stall = 0.0;
    std::size_t painted = 0;
    for (const std::uint32_t k : by_first) {
        FastRun& run = runs.runs[k];
        const std::uint32_t b = owner[k];
        for (; painted < by_last.size() && runs.runs[by_last[painted]].last < run.first; ++painted) {
            const FastRun& done = runs.runs[by_last[painted]];
            if (p.aligned[owner[by_last[painted]]] == 0) continue;
            latest.paint(cell(done.offset), cell(done.offset + p.aligned[owner[by_last[painted]]]) - 1,
                         std::uint64_t{done.last} + 1);
        }
        // The earliest start: after the bytes' last other holder, and a position past its copy out.
        std::uint32_t earliest = k > runs.begin[b] ? runs.runs[k - 1].last + 2 : p.first[b] + 1;
        if (p.aligned[b] > 0)
            earliest = std::max<std::uint32_t>(
                earliest, static_cast<std::uint32_t>(latest.most(cell(run.offset), cell(run.offset + p.aligned[b]) - 1)));
        const std::uint32_t use = run.first;
        const double wanted = need(p.size[b]);
        while (run.first > earliest && before(use) - before(run.first) < wanted) --run.first;
        stall += std::max(0.0, wanted - (before(use) - before(run.first)));
    }
    return stall;
}

}  // namespace onnx_runtime_memory::detail
