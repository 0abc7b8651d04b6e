// ViewMap: which values are zero-copy views of which others.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "graph.hpp"

namespace onnx_runtime_memory {

// Edges view -> source. A view owns no buffer: it aliases its source, and
// root(v) (following edges until a value with none) is the buffer it pins.
// Which ops make views is the caller's business. Stored densely by view id:
// O(1) insert and lookup, iteration in ascending view id (deterministic).
class ViewMap {
public:
    ViewMap() = default;

    // Adds view -> source, replacing an edge the view already had.
    void insert(ValueId view, ValueId source) {
        if (source == no_value) {  // cannot be stored as an edge; planning reports it
            if (unstorable_view_ == no_value) unstorable_view_ = view;
            return;
        }
        if (view >= source_.size()) source_.resize(std::size_t{view} + 1, no_value);
        if (source_[view] == no_value) ++edges_;
        source_[view] = source;
    }
    // Removes the edge of `view`, if any.
    void erase(ValueId view) noexcept {
        if (view < source_.size() && source_[view] != no_value) {
            source_[view] = no_value;
            --edges_;
        }
    }

    [[nodiscard]] std::optional<ValueId> source_of(ValueId view) const noexcept {
        if (view < source_.size() && source_[view] != no_value) return source_[view];
        return std::nullopt;
    }
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
    std::vector<ValueId> source_;  // source_[view], or no_value
    std::size_t edges_ = 0;
    ValueId unstorable_view_ = no_value;
};

}  // namespace onnx_runtime_memory
