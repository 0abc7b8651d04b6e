// The first fit in a fixed order, fast where most buffers meet: the offsets
// place_in_order(..., Fit::first, ...) gives, without scanning every placed
// buffer for each one (TFLite's O(n^2)).
//
// Two facts make it fast. At each position u, the placed buffers live at u
// cover [0, solid(u)) without a hole, so no gap for a buffer live at u
// starts below solid(u): a buffer's first fit is at or above the largest
// solid(u) over its lifetime, its floor, and the scan of the placed buffers
// in offset order starts there, not at 0 (on the bench's 5k random DAG it
// then reads about 100 placed buffers a buffer, not 2,500). And solid(u) grows
// only where a buffer lands on it: buffers live at one time are disjoint, so
// the run goes on through the placed ones that start exactly where the last
// one ends and are live at u. Where a buffer lands, the run rises over a
// range of positions at once (SolidRuns), one step for each placed buffer
// it goes on through, not one for each position (a U-Net's long-lived
// buffers land at 132 positions each at 10k nodes).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory::detail {

// Placed buffers by (offset, def), in chunks of fewer than 2 * half entries,
// so that an insert moves O(half) entries, not O(n). Placed buffers with the
// same offset are never live at one time (they would share bytes), so by
// def they are also by end.
class OffsetList {
public:
    struct Entry {
        std::size_t lo, hi;  // [offset, end)
        NodeIndex def, end;
    };
    struct Place {
        std::size_t chunk, index;
    };

    void clear() {
        for (std::size_t c = 0; c < used_; ++c) chunks_[c].clear();
        used_ = 0;
        first_.clear();
    }
    [[nodiscard]] std::size_t chunks() const noexcept { return used_; }
    [[nodiscard]] const std::vector<Entry>& chunk(std::size_t c) const noexcept { return chunks_[c]; }

    void insert(const Entry& e) {
        if (used_ == 0) add_chunk(0);
        const std::size_t c = last_chunk_not_after(e.lo, e.def);
        auto& v = chunks_[c];
        v.insert(std::upper_bound(v.begin(), v.end(), e, before), e);
        first_[c] = v.front();
        if (v.size() < 2 * half) return;
        add_chunk(c + 1);  // the upper half moves there
        auto& full = chunks_[c];
        chunks_[c + 1].assign(full.begin() + half, full.end());
        full.resize(half);
        first_[c + 1] = chunks_[c + 1].front();
    }
    // The first entry whose offset is at least lo ({chunks(), 0} if none).
    [[nodiscard]] Place first_at_least(std::size_t lo) const {
        if (used_ == 0) return {0, 0};
        const auto starts_below = [&](std::size_t c) { return first_[c].lo < lo; };
        std::size_t c = 0;
        for (std::size_t step = std::bit_floor(used_); step > 0; step /= 2)  // the last chunk starting below lo
            if (c + step < used_ && starts_below(c + step)) c += step;
        if (!starts_below(c)) return {c, 0};
        const auto& v = chunks_[c];
        const auto i = static_cast<std::size_t>(
            std::lower_bound(v.begin(), v.end(), lo, [](const Entry& x, std::size_t l) { return x.lo < l; }) - v.begin());
        return i < v.size() ? Place{c, i} : Place{c + 1, 0};
    }
    // Calls f(e) for each entry at offset lo live at some time in [first,
    // last], in def order. They are disjoint in time: from the last one
    // defined at or before `first`, on while they are defined by `last`.
    template <class F>
    void each_at(std::size_t lo, NodeIndex first, NodeIndex last, F&& f) const {
        if (used_ == 0) return;
        const Entry probe{lo, lo, first, first};
        std::size_t c = last_chunk_not_after(lo, first);
        const auto& v = chunks_[c];
        auto i = static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), probe, before) - v.begin());
        if (i > 0) --i;  // else the first chunk starts past the probe
        for (; c < used_; ++c, i = 0)
            for (const auto& w = chunks_[c]; i < w.size(); ++i) {
                const Entry& e = w[i];
                if (e.lo > lo || (e.lo == lo && e.def > last)) return;
                if (e.lo == lo && e.end >= first) f(e);
            }
    }

private:
    static constexpr std::size_t half = 128;
    static bool before(const Entry& a, const Entry& b) noexcept { return a.lo != b.lo ? a.lo < b.lo : a.def < b.def; }
    // The last chunk whose first entry is at or before (lo, def), else 0.
    [[nodiscard]] std::size_t last_chunk_not_after(std::size_t lo, NodeIndex def) const {
        const Entry probe{lo, lo, def, def};
        std::size_t c = 0;
        for (std::size_t step = std::bit_floor(used_); step > 0; step /= 2)
            if (c + step < used_ && !before(probe, first_[c + step])) c += step;
        return c;
    }
    // An empty chunk at place c (a cleared one is reused: its memory stays).
    void add_chunk(std::size_t c) {
        if (used_ == chunks_.size()) chunks_.emplace_back();
        std::rotate(chunks_.begin() + static_cast<std::ptrdiff_t>(c), chunks_.begin() + static_cast<std::ptrdiff_t>(used_),
                    chunks_.begin() + static_cast<std::ptrdiff_t>(used_) + 1);
        first_.insert(first_.begin() + static_cast<std::ptrdiff_t>(c), Entry{});
        ++used_;
    }
    std::vector<std::vector<Entry>> chunks_;
    std::vector<Entry> first_;  // each chunk's first entry, side by side for the searches
    std::size_t used_ = 0;
};

// solid(u) over positions [0, n): the largest over a range, and where a
// buffer lands, every position of a range whose value is `from` raised to
// `to`, none of them being above `from`. A segment tree of maxima: a raise
// sets the nodes that cover its range (those whose largest is `from`) and
// leaves their children behind; a node above both children's largest has
// raised the places equal to that largest, and hands that down to the
// child that holds it (push) before anything reads below it. The nodes
// that cover a range hang from the paths of its two ends, so pushing down
// those paths first lets both calls read and set the covering nodes bottom
// up. O(log n) each.
class SolidRuns {
public:
    void reset(std::size_t n) {
        levels_ = 0;
        while ((std::size_t{1} << levels_) < n) ++levels_;
        top_.assign(std::size_t{2} << levels_, 0);
    }
    [[nodiscard]] std::size_t highest(std::size_t first, std::size_t last) {
        std::size_t a = first + leaves(), b = last + leaves() + 1;
        push_ends(a, b);
        std::size_t m = 0;
        for (; a < b; a /= 2, b /= 2) {
            if (a % 2 == 1) m = std::max(m, top_[a++]);
            if (b % 2 == 1) m = std::max(m, top_[--b]);
        }
        return m;
    }
    // Whether any position was raised. `pushed`: the last call was
    // highest(first, last), so the paths are pushed down already.
    bool raise(std::size_t first, std::size_t last, std::size_t from, std::size_t to, bool pushed = false) {
        const std::size_t a0 = first + leaves(), b0 = last + leaves() + 1;
        if (!pushed) push_ends(a0, b0);
        bool raised = false;
        const auto lift = [&](std::size_t p) {
            if (top_[p] != from) return;  // below it: nothing here is `from`
            top_[p] = to;
            raised = true;
        };
        for (std::size_t a = a0, b = b0; a < b; a /= 2, b /= 2) {
            if (a % 2 == 1) lift(a++);
            if (b % 2 == 1) lift(--b);
        }
        for (std::size_t level = 1; level <= levels_; ++level) {
            if (((a0 >> level) << level) != a0) pull(a0 >> level);
            if (((b0 >> level) << level) != b0) pull((b0 - 1) >> level);
        }
        return raised;
    }

private:
    [[nodiscard]] std::size_t leaves() const noexcept { return std::size_t{1} << levels_; }
    void push(std::size_t p) {
        const std::size_t below = std::max(top_[2 * p], top_[2 * p + 1]);
        if (top_[p] == below) return;
        if (top_[2 * p] == below) top_[2 * p] = top_[p];
        if (top_[2 * p + 1] == below) top_[2 * p + 1] = top_[p];
    }
    void pull(std::size_t p) { top_[p] = std::max(top_[2 * p], top_[2 * p + 1]); }
    // Pushes down the paths above the leaves a and b - 1 ([a, b) in leaves),
    // from the root, where a range end is not a node's own edge.
    void push_ends(std::size_t a, std::size_t b) {
        for (std::size_t level = levels_; level >= 1; --level) {
            if (((a >> level) << level) != a) push(a >> level);
            if (((b >> level) << level) != b) push((b - 1) >> level);
        }
    }
    std::size_t levels_ = 0;
    std::vector<std::size_t> top_ = std::vector<std::size_t>(2, 0);
};

// Kept memory of place_first_fit.
struct FirstFitSpace {
    OffsetList placed;
    SolidRuns solid;  // solid(u), by position
    struct Run {
        std::size_t top;
        NodeIndex first, last;
    };
    std::vector<Run> rising;  // where the run rose to `top` and may go on through placed buffers
};

// Places buffers in `order` as place_in_order does with Fit::first and no
// floor: pinned ones at their pins first, then each into the lowest gap
// among the placed buffers it meets, else above them all. Returns the arena,
// or no_offset when the steps it takes (placed buffers read, plus log2 of
// the positions for each search of the trees) pass `budget` first, or once
// the arena reaches `give_up_at` (no_offset: never); the steps are taken
// from `budget`.
[[nodiscard]] inline std::size_t place_first_fit(const Buffers& b, const std::vector<std::uint32_t>& order,
                                                 std::vector<std::size_t>& offset, FirstFitSpace& space,
                                                 std::size_t& budget, std::size_t give_up_at = no_offset) {
    const std::size_t n = b.count();
    offset.assign(n, 0);
    auto& placed = space.placed;
    auto& solid = space.solid;
    placed.clear();
    const std::size_t positions = b.positions();
    solid.reset(positions);
    const std::size_t depth = log2_steps(positions);
    std::size_t arena = 0, widest = 0;
    const auto spend = [&budget](std::size_t steps) {
        if (steps > budget) return false;
        budget -= steps;
        return true;
    };
    // Whether a placed buffer starts at lo.
    const auto starts_at = [&](std::size_t lo) {
        const OffsetList::Place p = placed.first_at_least(lo);
        return p.chunk < placed.chunks() && placed.chunk(p.chunk)[p.index].lo == lo;
    };
    // Places x at o; where it lands on the solid run (solid(u) = o: no
    // position of its lifetime is above o, as x is free there, so only
    // where o is its floor, the largest of them), the run rises to its top,
    // and goes on through the placed buffers that start there and are live
    // where it rose (`continued`: some placed buffer starts at x's top). A
    // step for each search of the tree or the list (log2 of the positions),
    // and one for each placed buffer gone through. False when out of steps.
    const auto place = [&](std::uint32_t x, std::size_t o, bool lands, bool pushed, bool continued) {
        offset[x] = o;
        const std::size_t top = o + b.size[x];
        arena = std::max(arena, top);
        widest = std::max(widest, b.size[x]);
        placed.insert({o, top, b.def[x], b.end[x]});
        std::size_t steps = 2 * depth;
        auto& rising = space.rising;
        rising.clear();
        if (lands && solid.raise(b.def[x], b.end[x], o, top, pushed) && continued)
            rising.push_back({top, b.def[x], b.end[x]});
        while (!rising.empty()) {
            const FirstFitSpace::Run r = rising.back();
            rising.pop_back();
            steps += depth;
            placed.each_at(r.top, r.first, r.last, [&](const OffsetList::Entry& e) {
                const NodeIndex first = std::max(r.first, e.def), last = std::min(r.last, e.end);
                steps += depth + 1;
                if (solid.raise(first, last, r.top, e.hi)) rising.push_back({e.hi, first, last});
            });
        }
        return spend(steps);
    };
    for (std::uint32_t x = 0; x < n; ++x)
        if (b.is_pinned(x)) {
            offset[x] = b.pin[x];
            if (b.size[x] > 0 && !place(x, b.pin[x], true, false, starts_at(b.pin[x] + b.size[x]))) return no_offset;
        }
    for (const std::uint32_t x : order) {
        const std::size_t need = b.size[x];
        if (need == 0 || b.is_pinned(x)) continue;
        const NodeIndex first = b.def[x], last = b.end[x];
        // No gap starts below the floor; a placed buffer lower than
        // floor - widest + 1 ends at or below it.
        const std::size_t floor = solid.highest(first, last);
        std::size_t cursor = floor, read = 0;
        bool continued = false;  // the first placed buffer past the gap starts at its end
        OffsetList::Place p = placed.first_at_least(cursor >= widest ? cursor - widest + 1 : 0);
        for (bool open = true; open && p.chunk < placed.chunks(); ++p.chunk, p.index = 0) {
            const auto& v = placed.chunk(p.chunk);
            for (std::size_t i = p.index; i < v.size(); ++i) {
                const OffsetList::Entry& y = v[i];
                // Past here every placed buffer starts at cursor + need or
                // higher: the gap at the cursor is free.
                if (y.lo >= cursor + need) {
                    continued = y.lo == cursor + need;
                    open = false;
                    break;
                }
                ++read;
                if (y.def <= last && y.end >= first) cursor = std::max(cursor, y.hi);
            }
        }
        // The tree is as solid.highest left it: x lands where its floor is.
        if (!spend(read) || !place(x, cursor, cursor == floor, true, continued)) return no_offset;
        if (reached(arena, give_up_at)) return no_offset;
    }
    return arena;
}

}  // namespace onnx_runtime_memory::detail
