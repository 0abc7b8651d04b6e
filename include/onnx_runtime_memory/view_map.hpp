// ViewMap: which values are zero-copy views of which others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "graph.hpp"

namespace onnx_runtime_memory {

// Edges view -> source. A view owns no buffer: it aliases its source's
// bytes from a byte offset on (0 unless the edge says otherwise: a Split or
// Slice output is a window into its input), and root(v) (following edges
// until a value with none) is the buffer it pins; offsets add up along the
// chain. Which ops make views, and where, is the caller's business. Stored
// densely by view id: O(1) insert and lookup, iteration in ascending view id
// (deterministic); the offsets take memory only once one is not 0.
class ViewMap {
public:
    ViewMap() = default;

    // Adds view -> source, its bytes from `offset` on in the source's,
    // replacing an edge the view already had.
    void insert(ValueId view, ValueId source, std::size_t offset = 0) {
        if (source == no_value) {  // cannot be stored as an edge; planning reports it
            if (unstorable_view_ == no_value) unstorable_view_ = view;
            return;
        }
        if (view >= source_.size()) source_.resize(std::size_t{view} + 1, no_value);
        if (source_[view] == no_value) ++edges_;
        source_[view] = source;
        if (offset != 0 && offset_.size() < source_.size()) offset_.resize(source_.size(), 0);
        if (view < offset_.size()) offset_[view] = offset;
        if (view < part_.size()) part_[view] = 0;
    }
    // Adds part -> whole (Concat in place): `part` is written by its own
    // producer straight into `whole`'s bytes from `offset` on, before the
    // node producing `whole` runs, so `whole`'s buffer lives from the first
    // of its parts on. Otherwise like a view: `part` owns no buffer, and the
    // edge replaces one it had. The node producing `whole` must write no
    // byte a part covers: a Concat of its parts copies nothing. A graph
    // input may be a part only of a graph output the executor holds
    // (OutputPlacement::external): a KV cache, `present` = Concat(`past`,
    // `new`) in one buffer, with `past` a part at 0 and `new` appended.
    void insert_part(ValueId part, ValueId whole, std::size_t offset) {
        insert(part, whole, offset);
        if (whole == no_value) return;
        if (offset_.size() < source_.size()) offset_.resize(source_.size(), 0);  // parts always have windows
        if (part_.size() < source_.size()) part_.resize(source_.size(), 0);
        part_[part] = 1;
    }
    // Removes the edge of `view`, if any.
    void erase(ValueId view) noexcept {
        if (view < source_.size() && source_[view] != no_value) {
            source_[view] = no_value;
            if (view < offset_.size()) offset_[view] = 0;
            if (view < part_.size()) part_[view] = 0;
            --edges_;
        }
    }

    [[nodiscard]] std::optional<ValueId> source_of(ValueId view) const noexcept {
        if (view < source_.size() && source_[view] != no_value) return source_[view];
        return std::nullopt;
    }
    // Where the view's bytes start in its source's: 0 for an edge without
    // an offset, and for a value with no edge.
    [[nodiscard]] std::size_t offset_of(ValueId view) const noexcept {
        return view < offset_.size() && source_[view] != no_value ? offset_[view] : 0;
    }
    // Whether an edge was ever given an offset other than 0, or a part
    // inserted (then planning works out each view's window in its root).
    [[nodiscard]] bool has_offsets() const noexcept { return !offset_.empty(); }
    // Whether v's edge is a part's (insert_part).
    [[nodiscard]] bool is_part(ValueId v) const noexcept { return v < part_.size() && part_[v] != 0; }
    // Whether insert_part was ever called.
    [[nodiscard]] bool has_parts() const noexcept { return !part_.empty(); }
    [[nodiscard]] bool contains(ValueId view) const noexcept { return source_of(view).has_value(); }
    [[nodiscard]] std::size_t size() const noexcept { return edges_; }
    [[nodiscard]] bool empty() const noexcept { return edges_ == 0; }

    // One past the largest view id that has (or had) an edge.
    [[nodiscard]] std::size_t id_bound() const noexcept { return source_.size(); }

    // A view inserted with source no_value (never a valid id), or no_value.
    [[nodiscard]] ValueId unstorable_edge() const noexcept { return unstorable_view_; }

    // Calls f(view, source) for every edge, in ascending view id.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t v = 0; v < source_.size(); ++v)
            if (source_[v] != no_value) f(static_cast<ValueId>(v), source_[v]);
    }

private:
    std::vector<ValueId> source_;      // source_[view], or no_value
    std::vector<std::size_t> offset_;  // offset_[view]; empty until an offset is not 0 (or a part)
    std::vector<std::uint8_t> part_;   // part_[view]: 1 for a part's edge; empty until a part
    std::size_t edges_ = 0;
    ValueId unstorable_view_ = no_value;
};

}  // namespace onnx_runtime_memory
