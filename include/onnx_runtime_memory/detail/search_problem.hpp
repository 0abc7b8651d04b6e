// The problem the exact offset search (offset_search.hpp) reads: the
// buffers' sections (time stretches with a constant live set), the pairs
// that overlap in time, the bytes live in each section, and the tie-break
// keys of its orders. Prepared once per problem, read by every run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "checked.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

class SearchProblem {
public:
    // Prepares sections and overlaps for buffers live over the inclusive
    // positions [def[i], end[i]] with size[i] bytes. False, after
    // O(n log n + max_work), when the overlap pairs plus the sections each
    // buffer spans exceed `max_work`: too big a problem to search. Else
    // O(n log n + that work).
    // length[i] is buffer i's lifetime for the tie-break by area (the
    // caller's, when the positions are ranks of its times).
    [[nodiscard]] bool prepare(const std::vector<std::uint32_t>& def, const std::vector<std::uint32_t>& end,
                               const std::vector<std::size_t>& size, std::size_t max_work) {
        std::vector<std::size_t> length(size.size());
        for (std::size_t i = 0; i < length.size(); ++i) length[i] = std::size_t{end[i]} - def[i] + 1;
        return prepare(def, end, size, length, max_work);
    }
    [[nodiscard]] bool prepare(const std::vector<std::uint32_t>& def, const std::vector<std::uint32_t>& end,
                               const std::vector<std::size_t>& size, const std::vector<std::size_t>& length,
                               std::size_t max_work) {
        n_ = size.size();
        if (n_ >= section_bit / 2) return false;  // buffer and section ids (< 2n) share the undo log
        size_ = &size;
        // Section boundaries: every def and every end + 1 of a buffer with bytes.
        std::vector<std::uint64_t> bounds;
        for (std::size_t i = 0; i < n_; ++i)
            if (size[i] > 0) {
                bounds.push_back(def[i]);
                bounds.push_back(std::uint64_t{end[i]} + 1);
            }
        std::sort(bounds.begin(), bounds.end());
        bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
        sections_ = bounds.empty() ? 0 : static_cast<std::uint32_t>(bounds.size() - 1);
        const auto index = [&](std::uint64_t p) {
            return static_cast<std::uint32_t>(std::lower_bound(bounds.begin(), bounds.end(), p) - bounds.begin());
        };
        lo_.assign(n_, 0);
        hi_.assign(n_, 0);
        std::vector<std::uint32_t> by_lo;
        std::size_t work = 0;
        for (std::uint32_t i = 0; i < n_; ++i)
            if (size[i] > 0) {
                lo_[i] = index(def[i]);
                hi_[i] = index(std::uint64_t{end[i]} + 1);
                by_lo.push_back(i);
                if ((work += hi_[i] - lo_[i]) > max_work) return false;
            }
        // Overlaps (compressed rows), by a sweep over buffers sorted by first section.
        sort_by(by_lo, [&](std::uint32_t x) { return lo_[x]; });
        const auto each_pair = [&](auto&& f) {
            for (std::size_t x = 0; x < by_lo.size(); ++x)
                for (std::size_t y = x + 1; y < by_lo.size() && lo_[by_lo[y]] < hi_[by_lo[x]]; ++y)
                    if (!f(by_lo[x], by_lo[y])) return false;
            return true;
        };
        overlap_begin_.assign(n_ + 1, 0);
        std::size_t pairs = 0;
        if (!each_pair([&](std::uint32_t a, std::uint32_t b) {
                ++overlap_begin_[a + 1];
                ++overlap_begin_[b + 1];
                pairs += 2;
                return pairs + work <= max_work;
            }))
            return false;
        std::partial_sum(overlap_begin_.begin(), overlap_begin_.end(), overlap_begin_.begin());
        overlaps_.resize(pairs);
        std::vector<std::size_t> fill(overlap_begin_.begin(), overlap_begin_.end() - 1);
        (void)each_pair([&](std::uint32_t a, std::uint32_t b) {
            overlaps_[fill[a]++] = b;
            overlaps_[fill[b]++] = a;
            return true;
        });
        // Per section: the total size live there; per boundary s | s+1: the buffers crossing it.
        total0_.assign(sections_, 0);
        cut0_.assign(sections_, 0);
        for (std::size_t i = 0; i < n_; ++i) {
            for (std::uint32_t s = lo_[i]; s < hi_[i]; ++s) total0_[s] += size[i];
            for (std::uint32_t s = lo_[i]; s + 1 < hi_[i]; ++s) ++cut0_[s];
        }
        // The tie-break keys (see run), larger first.
        for (auto& k : key_) k.assign(n_, 0);
        lower_index_.assign(n_, 0);
        for (std::size_t i = 0; i < n_; ++i) {  // key_[0], T, is taken per part (split)
            key_[1][i] = hi_[i] - lo_[i];
            if (mul_overflows(size[i], length[i], key_[2][i])) key_[2][i] = size_max;
            key_[3][i] = size[i];
            key_[4][i] = overlap_begin_[i + 1] - overlap_begin_[i];
            key_[5][i] = end[i];
            key_[6][i] = std::numeric_limits<std::uint32_t>::max() - def[i];
            key_[7][i] = length[i];
            lower_index_[i] = n_ - i;
        }
        return true;
    }

protected:
    static constexpr std::uint32_t section_bit = 0x80000000u;  // buffer and section ids share the undo log
    static constexpr char key_letters[] = "TLAZOESW";          // key_[k] for each letter (OffsetSearch::run)

    std::size_t n_ = 0;
    std::uint32_t sections_ = 0;
    const std::vector<std::size_t>* size_ = nullptr;
    std::vector<std::uint32_t> lo_, hi_;       // by buffer: its first section and one past its last
    std::vector<std::size_t> overlap_begin_;   // by buffer: where its row of overlaps_ starts
    std::vector<std::uint32_t> overlaps_;      // the buffers each overlaps in time, row by row
    std::vector<std::size_t> total0_;          // by section: the bytes live there
    std::vector<std::uint32_t> cut0_;          // by boundary s | s + 1: the buffers crossing it
    std::vector<std::size_t> key_[sizeof key_letters - 1];
    std::vector<std::size_t> lower_index_;  // n - index: descending, the lower index first
};

}  // namespace onnx_runtime_memory::detail
