// The types of a spilled plan (spill.hpp): what each buffer is used at,
// where it resides over its life (fast segments, slow segments), and the
// copies between the two spaces an executor runs, in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"
#include "plan_types.hpp"
#include "spaces.hpp"

namespace onnx_runtime_memory {

// The positions each buffer is read or written at: buffer i's are
// at[begin[i] .. begin[i + 1]), strictly ascending, within [first, last]. A
// buffer with none is used at its first and last. Both empty: every buffer
// is used at its first and last only.
struct BufferUses {
    std::vector<std::size_t> begin;  // buffers + 1 entries
    std::vector<NodeIndex> at;
};

enum class SpillStrategy : std::uint8_t {
    best,     // the lowest of the two below (planned where they tie)
    planned,  // spills chosen by load, then packed (plan_offsets) or laid out in time order
    caching,  // a caching allocator: first fit, evicting the farthest next use (the baseline)
};

struct SpillOptions {
    MemorySpace fast{"device", unbounded, 64};  // where every use happens
    MemorySpace slow{"host", unbounded, 64};    // where a buffer waits; its capacity is not enforced
    ArenaOptions packing{};                     // how each space is packed (its alignment: the space's)
    SpillStrategy strategy = SpillStrategy::best;
    std::uint32_t rounds = 2;  // packings of each rule's spills, each at a lower load target, before giving up on them
    // Up to this many gaps (a gap: where a buffer may be out, between two
    // uses or at either end of its life), every set of them is tried, the
    // cheapest first, each packed by the exact search: the least bytes any
    // plan of whole gaps moves. At most `exact_packings` packings, and never
    // past 20 gaps (2^20 sets), whatever is asked.
    std::uint32_t exact_gaps = 14;
    std::uint32_t exact_packings = 512;
    // Compute costs: node_seconds[t], the seconds the node at position t
    // takes, and the copies' bandwidth. With both, each copy in is issued
    // earlier (its fast segment begun sooner, at its offset, where its bytes
    // are free), until the nodes before its use take as long as it: copies
    // on a second stream then overlap with compute. The bytes moved do not change.
    std::vector<double> node_seconds;
    double bytes_per_second = 0;
};

// Where a buffer is over [first, last] (the caller's positions). Space 0 is
// the fast one, 1 the slow. A slow segment between two fast ones may be
// empty (first == last + 1): the buffer goes out after node `last` and
// back in, to another offset, before node `first`.
struct Segment {
    std::uint32_t space = 0;
    NodeIndex first = 0, last = 0;
    std::size_t offset = 0;
    friend bool operator==(const Segment&, const Segment&) = default;
};

// One copy: `out` after the node at `position` (fast to slow), `in` before
// it (slow to fast). from_offset is in the space copied from.
struct Transfer {
    enum class Direction : std::uint8_t { in, out };
    std::uint32_t buffer = 0;
    Direction direction = Direction::out;
    NodeIndex position = 0;
    std::size_t bytes = 0, from_offset = 0, to_offset = 0;
    friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct SpillPlan {
    std::vector<std::size_t> segment_begin;  // by buffer, n + 1: buffer i's segments are
    std::vector<Segment> segments;           // segments[segment_begin[i] .. segment_begin[i + 1]), in time order
    // In the order to run them: by position, at each the ins (before the
    // node) ahead of the outs (after it), each by buffer.
    std::vector<Transfer> transfers;
    std::size_t fast_bytes = 0, slow_bytes = 0;  // each space's highest end
    std::size_t transfer_bytes = 0;              // out plus in
    std::size_t transfer_lower_bound_bytes = 0;  // no plan within the fast capacity moves fewer
    std::size_t spilled_buffers = 0;             // buffers that move at least once
    // With compute costs (SpillOptions::node_seconds): the seconds the copies
    // in take beyond the compute they overlap, in all (an estimate; 0 without).
    double copy_in_wait_seconds = 0;
    SpillStrategy strategy = SpillStrategy::planned;  // which one made it
};

// A position whose operands (the buffers used there, rounded up to the fast
// alignment) need more than the fast capacity: no plan of whole buffers runs it.
struct OverCapacity {
    NodeIndex position = 0;
    std::size_t bytes = 0;
    friend bool operator==(const OverCapacity&, const OverCapacity&) = default;
};

struct SpillError {
    enum class Kind : std::uint8_t {
        bad_records,  // the records are malformed or their bytes overflow: see `plan`
        bad_uses,     // buffer `buffer`'s uses are not ascending within its life (at `position`), or the
                      // table does not have one list per buffer (`buffer`: the buffers there are)
        pinned,       // buffer `buffer` (a graph's: the owner's value id) is pinned: spilled plans place
                      // every buffer themselves
        below_floor,  // the fast capacity is below what some positions use: `over` lists them all
    };
    Kind kind{};
    std::size_t buffer = no_offset;
    NodeIndex position = no_node;
    std::size_t capacity = 0;
    std::vector<OverCapacity> over;
    PlanError plan{};

    [[nodiscard]] std::string message() const {
        switch (kind) {
            case Kind::bad_records: return plan.message();
            case Kind::bad_uses:
                if (position == no_node)
                    return "the uses table does not have one list per buffer (" + std::to_string(buffer) + " buffers)";
                return "buffer " + std::to_string(buffer) + "'s uses are not strictly ascending within its life (at " +
                       std::to_string(position) + ")";
            case Kind::pinned: return "buffer " + std::to_string(buffer) + " is pinned; a spilled plan places every buffer";
            case Kind::below_floor: {
                std::string s = std::to_string(over.size()) + " position(s) use more than the fast capacity of " +
                                std::to_string(capacity) + " bytes:";
                for (std::size_t k = 0; k < over.size() && k < 8; ++k)
                    s += " " + std::to_string(over[k].position) + " (" + std::to_string(over[k].bytes) + ", " +
                         std::to_string(over[k].bytes - capacity) + " over)";
                if (over.size() > 8) s += " ...";
                return s;
            }
        }
        return "unknown spill error";
    }
};

}  // namespace onnx_runtime_memory
