// An exact search for offsets under a given capacity: a depth-first search
// over "gravity" placements, after MiniMalloc (Moffitt, ASPLOS 2023).
//
// Every feasible placement can be pushed down until each buffer rests on one
// it overlaps in time (or on 0), and then listed by increasing offset. So
// the search places buffers in that order, each at its lowest offset above
// the placed buffers it overlaps (its "min offset"), and only considers:
//   - canonical orders: (offset, rank) never decreases along a branch;
//   - no avoidable gap: nothing is placed at or above a height where some
//     unplaced buffer would fit wholly below it (it could move down);
//   - sections (time stretches with a constant live set) whose floor still
//     leaves room for their unplaced buffers under the capacity; the floor
//     is the highest of: the top of what is placed there, the current
//     offset (nothing goes lower any more), the lowest min offset of the
//     section's unplaced buffers;
//   - independent parts: once no unplaced buffer crosses a section
//     boundary, and the placement has passed the section check over the
//     whole part, each side is solved on its own (no thrashing between
//     them): keeping the canonical order so far, or, with fresh parts,
//     from scratch as MiniMalloc solves its sub-partitions (the part's
//     buffers ranked anew, the section totals counting only what is
//     unplaced, the canonical order started over).
// Within its node budget the search is complete: `infeasible` is a proof
// that the capacity is too small.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "deadline.hpp"
#include "search_problem.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// prepare() (SearchProblem) once, then run() as often as wanted.
class OffsetSearch : public SearchProblem {
public:
    enum class Result : std::uint8_t { found, infeasible, out_of_budget };

    // Searches for offsets (written to `offset`, by buffer; 0 for empty
    // buffers) with every top at most `capacity`. Stops after `nodes` nodes
    // (decremented) or at `deadline`, then out_of_budget.
    //
    // `rank` breaks ties between buffers at the same offset: letters, each a
    // key compared in turn, larger first: T the largest total size of the
    // unplaced buffers in a section the buffer spans (when its part is
    // made), L its lifetime in sections, W its lifetime in positions, A
    // size x W, Z size, O the number of buffers it overlaps, E its end, S
    // the earlier start; then the buffer index. MiniMalloc's letters mean
    // the same. The search is heavy-tailed: one order may finish in a few
    // hundred nodes where another needs millions, so callers should cycle
    // through several.
    [[nodiscard]] Result run(std::size_t capacity, const char* rank, bool fresh_parts, std::uint64_t& nodes,
                             std::vector<std::size_t>& offset, const Deadline& deadline = {}) {
        capacity_ = capacity;
        fresh_parts_ = fresh_parts;
        nodes_ = &nodes;
        deadline_ = deadline;
        keys_.clear();
        for (const char* c = rank; *c; ++c)
            for (std::size_t l = 0; l + 1 < sizeof key_letters; ++l)
                if (key_letters[l] == *c) keys_.push_back(&key_[l]);
        keys_.push_back(&lower_index_);
        min_off_.assign(n_, 0);
        floor_.assign(sections_, 0);
        next_.assign(std::size_t{sections_} + 1, 0);
        total_ = total0_;
        cut_ = cut0_;
        placed_.assign(n_, 0);
        solution_.assign(n_, 0);
        rank_.assign(n_, 0);
        trail_.clear();
        rank_trail_.clear();
        list_.clear();
        for (std::uint32_t i = 0; i < n_; ++i)
            if ((*size_)[i] > 0) list_.push_back({0, 0, i});
        const Result r = floors_fit(0, sections_, 0) ? split(0, sections_, 0, list_.size(), 0, 0, true) : Result::infeasible;
        if (r == Result::found) offset = solution_;
        return r;
    }

private:
    struct Candidate {
        std::size_t off;  // the buffer's min offset when the list was made
        std::uint32_t rank, buffer;
        bool operator<(const Candidate& o) const noexcept { return off != o.off ? off < o.off : rank < o.rank; }
    };
    struct Undo {
        std::uint32_t index;  // a buffer (its min offset) or, with the high bit, a section (its floor)
        std::size_t old;
    };

    // Ranks the buffers of list_[begin, end) by the keys (T from the
    // section totals as they stand), 0 first, saving the old ranks.
    void rank_part(std::size_t begin, std::size_t end) {
        auto& order = order_;
        order.clear();
        for (std::size_t k = begin; k < end; ++k) {
            const std::uint32_t i = list_[k].buffer;
            order.push_back(i);
            std::size_t t = 0;
            for (std::uint32_t s = lo_[i]; s < hi_[i]; ++s) t = std::max(t, total_[s]);
            key_[0][i] = t;
        }
        // Each key descending, ties to the lower index (the last key): two
        // keys a pass, the least significant first (ties keep their order).
        for (std::size_t j = keys_.size(); j > 0;) {
            const std::vector<std::size_t>& minor = *keys_[--j];
            const std::vector<std::size_t>* major = j > 0 ? keys_[--j] : nullptr;
            sort_by(order, [&](std::uint32_t x) { return major ? descending((*major)[x]) : 0; },
                    [&](std::uint32_t x) { return descending(minor[x]); });
        }
        for (std::uint32_t r = 0; r < order.size(); ++r) {
            rank_trail_.push_back({order[r], rank_[order[r]]});
            rank_[order[r]] = r;
        }
        for (std::size_t k = begin; k < end; ++k) list_[k].rank = rank_[list_[k].buffer];
    }

    // Solves the unplaced buffers of list_[begin, end) inside sections
    // [lo, hi), one independent part at a time (split at every boundary no
    // unplaced buffer crosses). With `rank_anew` each part is ranked anew
    // and searched from offset 0 on: its placements need not follow the
    // ones before it (MiniMalloc's sub-partitions). Else the part keeps the
    // ranks and the canonical order so far: the part of a canonical
    // placement is canonical too. Both are complete.
    Result split(std::uint32_t lo, std::uint32_t hi, std::size_t begin, std::size_t end, std::size_t last_off,
                 std::uint32_t last_rank, bool rank_anew) {
        std::uint32_t from = lo;
        for (std::uint32_t s = lo; s < hi; ++s) {
            if (s + 1 < hi && cut_[s] > 0) continue;
            const std::size_t part = list_.size(), ranks = rank_trail_.size();
            for (std::size_t k = begin; k < end; ++k) {
                const std::uint32_t i = list_[k].buffer;
                if (!placed_[i] && lo_[i] >= from && hi_[i] <= s + 1) list_.push_back({min_off_[i], rank_[i], i});
            }
            Result r = Result::found;
            if (list_.size() > part) {
                if (rank_anew) rank_part(part, list_.size());
                std::sort(list_.begin() + static_cast<std::ptrdiff_t>(part), list_.end());
                r = rank_anew ? search(from, s + 1, part, list_.size(), 0, 0)
                              : search(from, s + 1, part, list_.size(), last_off, last_rank);
            }
            for (std::size_t k = rank_trail_.size(); k-- > ranks;) rank_[rank_trail_[k].buffer] = rank_trail_[k].old;
            rank_trail_.resize(ranks);
            list_.resize(part);
            if (r != Result::found) return r;
            from = s + 1;
        }
        return Result::found;
    }

    // list_[begin, end): exactly the unplaced buffers of this part, sorted.
    Result search(std::uint32_t lo, std::uint32_t hi, std::size_t begin, std::size_t end, std::size_t last_off,
                  std::uint32_t last_rank) {
        if (begin == end) return Result::found;
        std::size_t min_height = std::numeric_limits<std::size_t>::max();
        for (std::size_t k = begin; k < end; ++k)
            min_height = std::min(min_height, list_[k].off + (*size_)[list_[k].buffer]);
        for (std::size_t k = begin; k < end; ++k) {
            const Candidate c = list_[k];
            if (c.off >= min_height) break;  // an unplaced buffer would fit wholly below: a gap
            if (c.off < last_off || (c.off == last_off && c.rank < last_rank)) continue;
            // A node: one placement tried.
            if (*nodes_ == 0 || ((*nodes_ & 255u) == 0 && deadline_.passed()))
                return Result::out_of_budget;
            --*nodes_;
            const std::size_t mark = trail_.size(), child = list_.size();
            Result r;
            const Placed placed = place(c.buffer, c.off);
            // The section check over the whole part, before the child's list
            // is made (most placements fail it) and before any split.
            if (c.off > capacity_ || (*size_)[c.buffer] > capacity_ - c.off || !floors_fit(lo, hi, c.off))
                r = Result::infeasible;
            else {
                child_list(begin, end, c.buffer, mark);
                if (!lows_fit(lo, hi, child, list_.size(), c.off)) r = Result::infeasible;
                else if (placed.splits) r = split(lo, hi, child, list_.size(), c.off, c.rank, fresh_parts_);
                else r = search(lo, hi, child, list_.size(), c.off, c.rank);
            }
            list_.resize(child);
            unplace(c.buffer, mark);
            if (r == Result::found) solution_[c.buffer] = c.off;
            if (r != Result::infeasible) return r;
            // Nothing unplaced overlaps it, so its min offset stays put: in
            // any later sibling's subtree it would have to go below that
            // sibling, out of canonical order. No later sibling can succeed.
            if (placed.hatless) break;
        }
        return Result::infeasible;
    }

    // Appends the child's sorted list: the parent's list_[begin, end) less
    // the placed buffer, where the buffers the placement raised (the trail
    // since `mark`; all now at the same min offset) move to their new place.
    void child_list(std::size_t begin, std::size_t end, std::uint32_t placed, std::size_t mark) {
        raised_.clear();
        for (std::size_t k = mark; k < trail_.size(); ++k) {
            const std::uint32_t i = trail_[k].index;
            if (!(i & section_bit)) raised_.push_back({min_off_[i], rank_[i], i});
        }
        std::sort(raised_.begin(), raised_.end());
        std::size_t r = 0;
        for (std::size_t k = begin; k < end; ++k) {
            const Candidate c = list_[k];
            if (c.buffer == placed || min_off_[c.buffer] != c.off) continue;  // placed, or raised
            for (; r < raised_.size() && raised_[r] < c; ++r) list_.push_back(raised_[r]);
            list_.push_back(c);
        }
        list_.insert(list_.end(), raised_.begin() + static_cast<std::ptrdiff_t>(r), raised_.end());
    }

    struct Placed {
        bool splits = false;  // a section boundary lost its last unplaced crossing buffer
        bool hatless = true;  // no unplaced buffer overlaps it
    };
    Placed place(std::uint32_t i, std::size_t off) {
        Placed result;
        const std::size_t top = off + (*size_)[i];
        placed_[i] = 1;
        for (std::size_t k = overlap_begin_[i]; k < overlap_begin_[i + 1]; ++k) {
            const std::uint32_t j = overlaps_[k];
            if (placed_[j]) continue;
            result.hatless = false;
            if (min_off_[j] >= top) continue;
            trail_.push_back({j, min_off_[j]});
            min_off_[j] = top;
        }
        for (std::uint32_t s = lo_[i]; s < hi_[i]; ++s) {
            trail_.push_back({s | section_bit, floor_[s]});
            floor_[s] = top;  // the highest top there: offsets only grow along a branch
            total_[s] -= (*size_)[i];
            if (s + 1 < hi_[i] && --cut_[s] == 0) result.splits = true;
        }
        return result;
    }

    void unplace(std::uint32_t i, std::size_t mark) {
        for (std::size_t k = trail_.size(); k-- > mark;) {
            const Undo u = trail_[k];
            if (u.index & section_bit) floor_[u.index & ~section_bit] = u.old;
            else min_off_[u.index] = u.old;
        }
        trail_.resize(mark);
        for (std::uint32_t s = lo_[i]; s < hi_[i]; ++s) {
            total_[s] += (*size_)[i];
            if (s + 1 < hi_[i]) ++cut_[s];
        }
        placed_[i] = 0;
    }

    // The section check (see the top of this file), in two steps, where
    // `off` and every floor are at most the capacity (each placement's top
    // is checked as it is made). A section's unplaced buffers do not fit
    // above `floor` (none there fit anywhere).
    [[nodiscard]] bool too_high(std::uint32_t s, std::size_t floor) const noexcept {
        return total_[s] > capacity_ - floor;
    }
    // First without the min offsets: cheaper, and often enough. One
    // comparison a section, no branch on its contents. O(sections).
    [[nodiscard]] bool floors_fit(std::uint32_t lo, std::uint32_t hi, std::size_t off) const noexcept {
        const std::size_t room = capacity_ - off;
        for (std::uint32_t s = lo; s < hi; ++s)
            if (total_[s] > std::min(room, capacity_ - floor_[s])) return false;
        return true;
    }
    // Then with them. The list is sorted by min offset, so a section's
    // lowest min offset is that of the first buffer in the list covering
    // it; next_ skips sections already met. Every section with unplaced
    // bytes is covered by one of the part's buffers, so each is checked as
    // it is met. O(list + sections).
    [[nodiscard]] bool lows_fit(std::uint32_t lo, std::uint32_t hi, std::size_t begin, std::size_t end, std::size_t off) {
        for (std::uint32_t s = lo; s <= hi; ++s) next_[s] = s;
        const auto find = [&](std::uint32_t s) {
            while (next_[s] != s) s = next_[s] = next_[next_[s]];
            return s;
        };
        for (std::size_t k = begin; k < end; ++k) {
            const std::uint32_t i = list_[k].buffer;
            const std::size_t low = std::max(off, list_[k].off);
            for (std::uint32_t s = find(lo_[i]); s < hi_[i]; s = find(s + 1)) {
                if (too_high(s, std::max(low, floor_[s]))) return false;
                next_[s] = hi_[i];  // later finds jump past this buffer's sections
            }
        }
        return true;
    }

    std::size_t capacity_ = 0;
    bool fresh_parts_ = false;
    std::uint64_t* nodes_ = nullptr;
    Deadline deadline_;
    std::vector<std::uint32_t> cut_, rank_, next_;  // by section, buffer, section
    std::vector<std::size_t> total_, min_off_, floor_, solution_;
    std::vector<std::uint8_t> placed_;
    struct RankUndo {
        std::uint32_t buffer, old;
    };
    std::vector<Undo> trail_;
    std::vector<RankUndo> rank_trail_;
    std::vector<std::uint32_t> order_;                 // rank_part's working memory
    std::vector<const std::vector<std::size_t>*> keys_;  // the keys of `rank`, in order
    std::vector<Candidate> list_, raised_;  // list_: the candidate lists of the nodes on the path, stacked
};

}  // namespace onnx_runtime_memory::detail
