// Synthetic graphs for the benchmarks: a bare CSR graph type (the graph
// concept and nothing more) and generators of graph families, seeded and
// deterministic.
#pragma once

#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace synthetic {

namespace orm = onnx_runtime_memory;

struct CsrGraph {
    std::size_t values = 0;
    std::vector<std::uint32_t> in_begin{0}, in_ids, out_begin{0}, out_ids;
    std::vector<std::uint32_t> inputs, outputs;

    std::size_t value_count() const { return values; }
    std::size_t node_count() const { return in_begin.size() - 1; }
    std::span<const std::uint32_t> node_inputs(std::size_t n) const {
        return {in_ids.data() + in_begin[n], in_begin[n + 1] - in_begin[n]};
    }
    std::span<const std::uint32_t> node_outputs(std::size_t n) const {
        return {out_ids.data() + out_begin[n], out_begin[n + 1] - out_begin[n]};
    }
    std::span<const std::uint32_t> graph_inputs() const { return inputs; }
    std::span<const std::uint32_t> graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId) const { return false; }
};

struct Synthetic {
    CsrGraph graph;
    orm::ViewMap views;
    std::vector<std::size_t> sizes;  // by value id

    // A new value of `bytes` bytes.
    std::uint32_t value(std::size_t bytes) {
        sizes.push_back(bytes);
        return static_cast<std::uint32_t>(graph.values++);
    }
    void node(std::initializer_list<std::uint32_t> in, std::initializer_list<std::uint32_t> out) {
        node(std::span<const std::uint32_t>(in.begin(), in.size()), std::span<const std::uint32_t>(out.begin(), out.size()));
    }
    void node(std::span<const std::uint32_t> in, std::span<const std::uint32_t> out) {
        graph.in_ids.insert(graph.in_ids.end(), in.begin(), in.end());
        graph.in_begin.push_back(static_cast<std::uint32_t>(graph.in_ids.size()));
        graph.out_ids.insert(graph.out_ids.end(), out.begin(), out.end());
        graph.out_begin.push_back(static_cast<std::uint32_t>(graph.out_ids.size()));
    }
    auto oracle() const {
        return [this](orm::ValueId v) { return std::optional<std::size_t>(sizes[v]); };
    }
};

struct XorShift {
    std::uint64_t x;
    std::uint64_t operator()() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    }
};

// A chain where every node reads the previous value; one node in 4 also
// reads a value up to 64 back (a skip); one in 8 is a view of its input;
// one in 16 branches into two outputs, the second read 5 nodes later.
inline Synthetic chain_with_skips(std::size_t nodes, std::uint64_t seed) {
    Synthetic s;
    auto& g = s.graph;
    XorShift rnd{seed};
    g.inputs.push_back(s.value(0));  // value 0: the graph input
    std::uint32_t prev = 0;
    std::vector<std::uint32_t> pending;  // branch outputs waiting for their reader
    for (std::size_t n = 0; n < nodes; ++n) {
        g.in_ids.push_back(prev);
        if (n % 4 == 3 && g.values > 2)
            g.in_ids.push_back(static_cast<std::uint32_t>(g.values - 1 - rnd() % std::min<std::size_t>(64, g.values - 1)));
        if (n % 16 == 5 && !pending.empty()) {
            g.in_ids.push_back(pending.back());
            pending.pop_back();
        }
        g.in_begin.push_back(static_cast<std::uint32_t>(g.in_ids.size()));
        const auto out = s.value(std::size_t{1024} << (rnd() % 10));
        g.out_ids.push_back(out);
        if (n % 8 == 7) s.views.insert(out, prev);
        if (n % 16 == 0) {
            const auto extra = s.value(std::size_t{1024} << (rnd() % 10));
            g.out_ids.push_back(extra);
            pending.push_back(extra);
        }
        g.out_begin.push_back(static_cast<std::uint32_t>(g.out_ids.size()));
        prev = out;
    }
    g.outputs.push_back(prev);
    return s;
}

// Residual blocks: conv, relu, conv, add (the add keeps the block's input
// alive), one block in 8 followed by a reshape view; every value lives at
// most four nodes. Widths change every 16 blocks, as a network's stages do.
inline Synthetic residual_chain(std::size_t nodes, std::uint64_t seed) {
    Synthetic s;
    XorShift rnd{seed};
    std::uint32_t x = s.value(0);
    s.graph.inputs.push_back(x);
    std::size_t width = 64 * 1024;
    for (std::size_t block = 0; s.graph.node_count() + 5 <= nodes; ++block) {
        if (block % 16 == 0) width = std::size_t{16 * 1024} << (rnd() % 6);
        const auto a = s.value(width), b = s.value(width), c = s.value(width), y = s.value(width);
        s.node({x}, {a});
        s.node({a}, {b});
        s.node({b}, {c});
        s.node({c, x}, {y});
        x = y;
        if (block % 8 == 7) {
            const auto r = s.value(width);
            s.node({y}, {r});
            s.views.insert(r, y);
            x = r;
        }
    }
    s.graph.outputs.push_back(x);
    return s;
}

// Residual stages as a user writes them (the shape bench_arena's
// residual_chain lacks: the skip outlives a block of two), each block
// `Conv x -> a`, `Relu a -> b`, one block in `view_every` a Reshape view of
// b, `Add x b -> y`: the skip x is alive across the block, a and b are one
// of `widths` rows wide, drawn per block.
struct ResidualShape {
    std::size_t skip_rows = 256;
    std::vector<std::size_t> widths{64, 128, 256, 512, 1024};
    std::size_t row_bytes = 64 * 4;  // 64 floats
    std::size_t view_every = 8;      // 0: no views
};
inline Synthetic residual_blocks(std::size_t nodes, std::uint64_t seed, const ResidualShape& shape = {}) {
    Synthetic s;
    XorShift rnd{seed};
    std::uint32_t x = s.value(shape.skip_rows * shape.row_bytes);
    s.graph.inputs.push_back(x);
    for (std::size_t block = 0; s.graph.node_count() + 4 <= nodes; ++block) {
        const std::size_t bytes = shape.widths[rnd() % shape.widths.size()] * shape.row_bytes;
        const auto a = s.value(bytes), b = s.value(bytes);
        s.node({x}, {a});
        s.node({a}, {b});
        std::uint32_t read = b;
        if (shape.view_every > 0 && block % shape.view_every == shape.view_every - 1) {
            read = s.value(bytes);
            s.node({b}, {read});
            s.views.insert(read, b);
        }
        const auto y = s.value(shape.skip_rows * shape.row_bytes);
        s.node({x, read}, {y});
        x = y;
    }
    s.graph.outputs.push_back(x);
    return s;
}

// A chain of values of random width where one value in `keep_every` is
// kept: read now and then (one node in `read_one_in`) over the next
// `min_span` to `max_span` nodes, and, with `kept_are_outputs`, a graph
// output (alive to the end).
struct KeptShape {
    std::size_t min_rows = 16, max_rows = 512, row_bytes = 64 * 4;
    std::size_t keep_every = 64;
    std::size_t min_span = 1000, max_span = 8000;
    std::size_t read_one_in = 256;
    bool kept_are_outputs = true;
};
inline Synthetic kept_values(std::size_t nodes, std::uint64_t seed, const KeptShape& shape = {}) {
    Synthetic s;
    XorShift rnd{seed};
    const auto width = [&] { return (shape.min_rows + rnd() % (shape.max_rows - shape.min_rows + 1)) * shape.row_bytes; };
    std::uint32_t x = s.value(width());
    s.graph.inputs.push_back(x);
    struct Kept {
        std::uint32_t value;
        std::size_t until;
    };
    std::vector<Kept> kept;  // in order of `until`'s arrival; dropped once past
    std::vector<std::uint32_t> in;
    for (std::size_t n = 0; n < nodes; ++n) {
        const auto y = s.value(width());
        in.assign(1, x);
        std::erase_if(kept, [&](const Kept& k) { return k.until <= n; });
        for (const Kept& k : kept)
            if (rnd() % shape.read_one_in == 0) in.push_back(k.value);
        s.node(in, std::span<const std::uint32_t>(&y, 1));
        if (n % shape.keep_every == 0) {
            kept.push_back({y, n + shape.min_span + rnd() % (shape.max_span - shape.min_span + 1)});
            if (shape.kept_are_outputs) s.graph.outputs.push_back(y);
        }
        x = y;
    }
    if (s.graph.outputs.empty() || s.graph.outputs.back() != x) s.graph.outputs.push_back(x);
    return s;
}

// A random DAG with mixed lifetimes: node n reads node n-1's output and, half
// the time, an earlier output at a log-uniform distance (most short, some
// across the whole graph); sizes log-uniform from 1 KiB to 1 MiB.
inline Synthetic random_dag(std::size_t nodes, std::uint64_t seed) {
    Synthetic s;
    XorShift rnd{seed};
    std::vector<std::uint32_t> outs;
    outs.push_back(s.value(0));
    s.graph.inputs.push_back(outs[0]);
    for (std::size_t n = 0; n < nodes; ++n) {
        const auto y = s.value(std::size_t{1024} << (rnd() % 11));
        if (rnd() % 2 == 0 && outs.size() > 2) {
            const std::size_t bits = 1 + rnd() % 20;
            const std::size_t back = 2 + rnd() % std::min<std::size_t>(std::size_t{1} << bits, outs.size() - 2);
            s.node({outs.back(), outs[outs.size() - back]}, {y});
        } else {
            s.node({outs.back()}, {y});
        }
        outs.push_back(y);
    }
    s.graph.outputs.push_back(outs.back());
    return s;
}

// A U-Net: each layer of the way down keeps a skip that the mirror layer on
// the way up reads; sizes from 4 KiB to 128 KiB. With `caches`, each layer
// down also writes a cache entry (a quarter of its size) the last node reads
// (KV-cache-like).
inline Synthetic unet_with(std::size_t nodes, std::uint64_t seed, bool caches) {
    Synthetic s;
    XorShift rnd{seed};
    std::uint32_t x = s.value(0);
    s.graph.inputs.push_back(x);
    std::vector<std::uint32_t> skips, cached;
    const std::size_t layers = nodes / 4;  // 2 nodes per layer down, 2 up
    for (std::size_t l = 0; l < layers; ++l) {
        const std::size_t bytes = std::size_t{4096} << (rnd() % 6);
        const auto skip = s.value(bytes);
        const auto cache = caches ? s.value(bytes / 4) : 0;
        const auto y = s.value(bytes);
        if (caches) {
            s.node({x}, {skip, cache});
            cached.push_back(cache);
        } else {
            s.node({x}, {skip});
        }
        s.node({skip}, {y});
        x = y;
        skips.push_back(skip);
    }
    for (std::size_t l = layers; l-- > 0;) {
        const auto u = s.value(s.sizes[skips[l]]), y = s.value(s.sizes[skips[l]]);
        s.node({x}, {u});
        s.node({u, skips[l]}, {y});
        x = y;
    }
    if (!caches) {
        s.graph.outputs.push_back(x);
        return s;
    }
    cached.push_back(x);
    const auto out = s.value(1024);
    s.node(cached, std::span<const std::uint32_t>(&out, 1));
    s.graph.outputs.push_back(out);
    return s;
}

// Many values live across thousands of nodes: a U-Net whose layers also
// write a cache entry the last node reads.
inline Synthetic long_lived(std::size_t nodes, std::uint64_t seed) { return unet_with(nodes, seed, true); }

// A plain U-Net: the skips are live together at the bottom, but no node
// reads more than two values: the shape spilling is for (its floor is far
// below its bound).
inline Synthetic unet(std::size_t nodes, std::uint64_t seed) { return unet_with(nodes, seed, false); }

// RandWire (Xie et al. 2019): stages of Watts-Strogatz graphs (each node
// joined to its k nearest on a ring, each edge rewired with probability p),
// oriented from lower to higher index; a node sums its inputs and convolves
// (one value); nodes without inputs read the stage input, a final node
// averages the nodes without outputs. Each stage halves the values' size.
// Nodes come in index order: the order such a model is written in.
inline Synthetic randwire(std::size_t stages, std::size_t n, std::size_t k, double p, std::uint64_t seed) {
    Synthetic s;
    XorShift rnd{seed};
    std::uint32_t x = s.value(0);
    s.graph.inputs.push_back(x);
    std::size_t bytes = std::size_t{1} << 20;
    for (std::size_t stage = 0; stage < stages; ++stage, bytes /= 2) {
        std::vector<std::vector<std::size_t>> adj(n);  // undirected
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 1; j <= k / 2; ++j) {
                std::size_t to = (i + j) % n;
                if (static_cast<double>(rnd() % 1000000) < p * 1e6) {
                    to = rnd() % n;
                    while (to == i) to = rnd() % n;
                }
                adj[i].push_back(to);
                adj[to].push_back(i);
            }
        std::vector<std::uint32_t> value(n);
        std::vector<bool> read(n, false);
        for (std::size_t i = 0; i < n; ++i) {
            std::vector<std::uint32_t> in;
            for (std::size_t j : adj[i])
                if (j < i && std::find(in.begin(), in.end(), value[j]) == in.end()) {
                    in.push_back(value[j]);
                    read[j] = true;
                }
            if (in.empty()) in.push_back(x);
            value[i] = s.value(bytes);
            s.node(in, std::span<const std::uint32_t>(&value[i], 1));
        }
        std::vector<std::uint32_t> sinks;
        for (std::size_t i = 0; i < n; ++i)
            if (!read[i]) sinks.push_back(value[i]);
        x = s.value(bytes / 2);
        s.node(sinks, std::span<const std::uint32_t>(&x, 1));
    }
    s.graph.outputs.push_back(x);
    return s;
}

// NASNet-like cells: each of five blocks applies an op to each of two inputs
// chosen among the cell's two inputs (the two previous cells' outputs) and
// the earlier blocks, then adds them; the cell concatenates the blocks no
// other block read. Nodes come block by block, as such a cell is written.
inline Synthetic nasnet(std::size_t cells, std::uint64_t seed) {
    Synthetic s;
    XorShift rnd{seed};
    const std::size_t bytes = 256 * 1024;
    std::uint32_t prev2 = s.value(0), prev1 = s.value(0);
    s.graph.inputs = {prev2, prev1};
    for (std::size_t c = 0; c < cells; ++c) {
        std::vector<std::uint32_t> pool{prev2, prev1};
        std::vector<bool> used(7, false);
        for (std::size_t b = 0; b < 5; ++b) {
            std::uint32_t branch[2];
            for (int side = 0; side < 2; ++side) {
                const std::size_t pick = rnd() % pool.size();
                used[pick] = true;
                branch[side] = s.value(bytes);
                s.node({pool[pick]}, {branch[side]});  // a separable conv or a pool
            }
            const auto sum = s.value(bytes);
            s.node({branch[0], branch[1]}, {sum});
            pool.push_back(sum);
        }
        std::vector<std::uint32_t> unused;
        for (std::size_t i = 2; i < pool.size(); ++i)
            if (!used[i]) unused.push_back(pool[i]);
        const auto out = s.value(bytes * unused.size());
        s.node(unused, std::span<const std::uint32_t>(&out, 1));
        prev2 = prev1;
        prev1 = out;
    }
    s.graph.outputs.push_back(prev1);
    return s;
}

// A perfect packing: a strip of `capacity` bytes (a multiple of 1,024) over
// `times` time steps, cut at random into `pieces` rectangles (each time the
// largest, across time or across bytes), each a buffer live over its time
// range and as large as its bytes. Its optimum is the capacity, which is
// also its lower bound: a hard set whose answers are known, for checking
// the exact search on instances it was not tuned on.
inline std::vector<orm::Buffer> perfect_packing(std::size_t pieces, std::size_t capacity, std::uint32_t times,
                                                std::uint64_t seed) {
    struct Piece {
        std::uint32_t first, past;  // time [first, past)
        std::size_t lo, hi;         // units of 1,024 bytes [lo, hi)
        std::uint64_t area() const { return std::uint64_t{past - first} * (hi - lo); }
    };
    XorShift rng{seed * 0x9E3779B97F4A7C15ull + 1};
    std::vector<Piece> cut{{0, times, 0, capacity / 1024}};
    while (cut.size() < pieces) {
        const auto by_area = [](const Piece& a, const Piece& b) { return a.area() < b.area(); };
        const auto largest = std::max_element(cut.begin(), cut.end(), by_area);
        const Piece p = *largest;
        const bool across_time = p.hi - p.lo <= 1 || (p.past - p.first > 1 && rng() % 2 == 0);
        if (across_time && p.past - p.first <= 1) break;  // no piece can be cut further
        Piece a = p, b = p;
        if (across_time) a.past = b.first = p.first + 1 + static_cast<std::uint32_t>(rng() % (p.past - p.first - 1));
        else a.hi = b.lo = p.lo + 1 + static_cast<std::size_t>(rng() % (p.hi - p.lo - 1));
        *largest = a;
        cut.push_back(b);
    }
    std::vector<orm::Buffer> buffers;
    for (const Piece& p : cut) buffers.push_back({(p.hi - p.lo) * 1024, p.first, p.past - 1});
    return buffers;
}

}  // namespace synthetic
