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
// one ends and are live at u.
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
#include "max_tree.hpp"

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

    // Empty. The chunks are kept, each with room for 2 * half entries, so
    // that a list allocates only when it needs more chunks than ever before.
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
    // The entry at offset lo that is live at u, if any.
    [[nodiscard]] const Entry* live_at(std::size_t lo, NodeIndex u) const {
        if (used_ == 0) return nullptr;
        const Entry probe{lo, lo, u, u};
        const std::size_t c = last_chunk_not_after(lo, u);
        const auto& v = chunks_[c];
        const auto it = std::upper_bound(v.begin(), v.end(), probe, before);  // past the last at or before (lo, u)
        if (it == v.begin()) return nullptr;
        const Entry& e = *(it - 1);
        return e.lo == lo && e.end >= u ? &e : nullptr;
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
        if (used_ == chunks_.size()) chunks_.emplace_back().reserve(2 * half);
        std::rotate(chunks_.begin() + static_cast<std::ptrdiff_t>(c), chunks_.begin() + static_cast<std::ptrdiff_t>(used_),
                    chunks_.begin() + static_cast<std::ptrdiff_t>(used_) + 1);
        first_.insert(first_.begin() + static_cast<std::ptrdiff_t>(c), Entry{});
        ++used_;
    }
    std::vector<std::vector<Entry>> chunks_;
    std::vector<Entry> first_;  // each chunk's first entry, side by side for the searches
    std::size_t used_ = 0;
};

// Kept memory of place_first_fit.
struct FirstFitSpace {
    OffsetList placed;
    MaxTree solid;  // solid(u), by position
    std::vector<NodeIndex> landed;  // the positions where a buffer lands on the solid run
    std::vector<std::size_t> run;   // and where the run goes on to there
    std::vector<OffsetList::Entry> chain;  // the placed buffers the run went on through, bottom up
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
    // Places x at o; where it lands on the solid run, the run goes on
    // through x and the buffers that continue it (`continued`: a placed
    // buffer starts where x ends). False when out of steps.
    const auto place = [&](std::uint32_t x, std::size_t o, bool continued) {
        offset[x] = o;
        const std::size_t top = o + b.size[x];
        arena = std::max(arena, top);
        widest = std::max(widest, b.size[x]);
        placed.insert({o, top, b.def[x], b.end[x]});
        auto& landed = space.landed;
        landed.clear();
        // solid(u) <= o over x's lifetime (x was free there): these are where it is o.
        solid.each_at_least(b.def[x], b.end[x], o, [&](std::size_t u) { landed.push_back(static_cast<NodeIndex>(u)); });
        std::size_t steps = depth * 3 + 2 * landed.size();
        auto& run = space.run;
        run.assign(landed.size(), top);
        // Does any placed buffer start at the top? Often none does. Where
        // some do, the run at one landed position mostly goes on through
        // the same buffers as at the one before: `chain` keeps those, and
        // one that is still live here is the one a search would find (at
        // one offset, one placed buffer is live at a time).
        if (continued) {
            auto& chain = space.chain;
            chain.clear();
            for (std::size_t k = 0; k < landed.size(); ++k) {
                for (std::size_t step = 0;; ++step) {
                    if (step < chain.size() && chain[step].end >= landed[k]) {
                        ++steps;
                    } else {
                        chain.resize(step);
                        steps += depth;
                        const OffsetList::Entry* e = placed.live_at(run[k], landed[k]);
                        if (e == nullptr) break;
                        chain.push_back(*e);
                    }
                    run[k] = chain[step].hi;
                }
            }
        }
        solid.set(landed, run);
        return spend(steps);
    };
    for (std::uint32_t x = 0; x < n; ++x)
        if (b.is_pinned(x)) {
            offset[x] = b.pin[x];
            if (b.size[x] > 0 && !place(x, b.pin[x], starts_at(b.pin[x] + b.size[x]))) return no_offset;
        }
    for (const std::uint32_t x : order) {
        const std::size_t need = b.size[x];
        if (need == 0 || b.is_pinned(x)) continue;
        const NodeIndex first = b.def[x], last = b.end[x];
        // No gap starts below the floor; a placed buffer lower than
        // floor - widest + 1 ends at or below it.
        auto cursor = static_cast<std::size_t>(solid.highest(first, last));
        std::size_t read = 0;
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
        if (!spend(read) || !place(x, cursor, continued)) return no_offset;
        if (reached(arena, give_up_at)) return no_offset;
    }
    return arena;
}

}  // namespace onnx_runtime_memory::detail
