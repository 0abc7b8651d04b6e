// The exact offset search (detail/offset_search.hpp) on its own: it finds
// perfect packings, proves capacities too small, and every placement it
// returns is valid.
#include <onnx_runtime_memory/detail/offset_search.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "support.hpp"

using Search = orm::detail::OffsetSearch;

namespace {

struct Problem {
    std::vector<std::uint32_t> def, end;  // inclusive positions
    std::vector<std::size_t> size;
};

// Empty when every buffer lies inside [0, capacity) and no two buffers live
// at the same position share a byte; else what is wrong.
std::string check_offsets(const Problem& p, const std::vector<std::size_t>& offset, std::size_t capacity) {
    if (offset.size() != p.size.size()) return "one offset per buffer";
    for (std::size_t i = 0; i < p.size.size(); ++i) {
        if (offset[i] + p.size[i] > capacity) return "buffer " + std::to_string(i) + " above the capacity";
        for (std::size_t j = i + 1; j < p.size.size(); ++j)
            if (p.def[i] <= p.end[j] && p.def[j] <= p.end[i] && offset[i] < offset[j] + p.size[j] &&
                offset[j] < offset[i] + p.size[i])
                return "buffers " + std::to_string(i) + " and " + std::to_string(j) + " overlap";
    }
    return {};
}

// Cuts the rectangle [t0, t1) x [y0, y1) (time x bytes) at random, across
// time or across bytes, down to at most `depth` levels: the pieces tile it.
void cut(std::mt19937& rng, std::uint32_t t0, std::uint32_t t1, std::size_t y0, std::size_t y1, int depth,
         Problem& out) {
    const bool across_time = t1 - t0 >= 2, across_bytes = y1 - y0 >= 2;
    if (depth == 0 || (!across_time && !across_bytes) || rng() % 5 == 0) {
        out.def.push_back(t0);
        out.end.push_back(t1 - 1);
        out.size.push_back(y1 - y0);
        return;
    }
    if (across_time && (!across_bytes || rng() % 2 == 0)) {
        const auto m = static_cast<std::uint32_t>(t0 + 1 + rng() % (t1 - t0 - 1));
        cut(rng, t0, m, y0, y1, depth - 1, out);
        cut(rng, m, t1, y0, y1, depth - 1, out);
    } else {
        const std::size_t m = y0 + 1 + rng() % (y1 - y0 - 1);
        cut(rng, t0, t1, y0, m, depth - 1, out);
        cut(rng, t0, t1, m, y1, depth - 1, out);
    }
}

// Cycles through tie-break orders, parts searched afresh or not, with
// doubling budgets, as plan_arena does.
Search::Result solve(Search& search, std::size_t capacity, std::vector<std::size_t>& offset) {
    for (std::uint64_t budget = 1000; budget <= 64000; budget *= 2)
        for (const char* rank : {"TWA", "TLA", "ELA", "AE", "OL", "TEZ"})
            for (const bool fresh_parts : {true, false}) {
                std::uint64_t nodes = budget;
                const auto result = search.run(capacity, rank, fresh_parts, nodes, offset);
                if (result != Search::Result::out_of_budget) return result;
            }
    return Search::Result::out_of_budget;
}

}  // namespace

TEST_CASE("exact search: random tilings are packed into exactly their capacity") {
    // A tiling leaves no byte spare: only a perfect packing fits, which
    // greedy placement rarely finds. Dropping pieces keeps it feasible.
    for (std::uint32_t seed = 0; seed < 600; ++seed) {
        INFO("seed " << seed);
        std::mt19937 rng(seed);
        const std::size_t capacity = 8 + rng() % 40;
        const auto positions = static_cast<std::uint32_t>(4 + rng() % 12);
        Problem tiling, p;
        cut(rng, 0, positions, 0, capacity, 7, tiling);
        for (std::size_t i = 0; i < tiling.size.size(); ++i)
            if (seed % 2 == 0 || rng() % 4 != 0) {
                p.def.push_back(tiling.def[i]);
                p.end.push_back(tiling.end[i]);
                p.size.push_back(tiling.size[i]);
            }
        Search search;
        REQUIRE(search.prepare(p.def, p.end, p.size, std::size_t{1} << 20));
        std::vector<std::size_t> offset;
        REQUIRE(solve(search, capacity, offset) == Search::Result::found);  // within the budget, on these sizes
        REQUIRE(check_offsets(p, offset, capacity).empty());
    }
}

TEST_CASE("exact search: a capacity too small is proved infeasible") {
    // Four buffers live together at position 1 need 7 bytes.
    Problem p{{0, 0, 0, 1}, {2, 2, 2, 1}, {2, 2, 2, 1}};
    Search search;
    REQUIRE(search.prepare(p.def, p.end, p.size, 1000));
    std::vector<std::size_t> offset;
    for (const bool fresh_parts : {false, true}) {
        std::uint64_t nodes = 1000;
        CHECK(search.run(6, "TLA", fresh_parts, nodes, offset) == Search::Result::infeasible);
        nodes = 1000;
        REQUIRE(search.run(7, "TLA", fresh_parts, nodes, offset) == Search::Result::found);
        CHECK(check_offsets(p, offset, 7).empty());
    }
}

TEST_CASE("exact search: the least capacity it finds is the true optimum") {
    // Small random problems: raise the capacity from 1 until the search
    // finds a placement; every capacity below must be proved infeasible,
    // and the first found must equal a brute force over all offsets.
    for (std::uint32_t seed = 0; seed < 300; ++seed) {
        INFO("seed " << seed);
        std::mt19937 rng(seed);
        Problem p;
        const std::size_t n = 3 + rng() % 4;
        for (std::size_t i = 0; i < n; ++i) {
            const auto a = static_cast<std::uint32_t>(rng() % 4), b = static_cast<std::uint32_t>(rng() % 4);
            p.def.push_back(std::min(a, b));
            p.end.push_back(std::max(a, b));
            p.size.push_back(1 + rng() % 4);
        }
        std::size_t brute = 0;  // the least arena, by depth-first search over every offset
        for (std::size_t s : p.size) brute += s;
        std::vector<std::size_t> o(n, 0);
        const auto place = [&](auto& self, std::size_t i, std::size_t top) -> void {
            if (top >= brute) return;
            if (i == n) {
                brute = top;
                return;
            }
            for (o[i] = 0; o[i] + p.size[i] < brute; ++o[i]) {
                bool clash = false;
                for (std::size_t j = 0; j < i && !clash; ++j)
                    clash = p.def[i] <= p.end[j] && p.def[j] <= p.end[i] && o[i] < o[j] + p.size[j] &&
                            o[j] < o[i] + p.size[i];
                if (!clash) self(self, i + 1, std::max(top, o[i] + p.size[i]));
            }
        };
        place(place, 0, 0);

        Search search;
        REQUIRE(search.prepare(p.def, p.end, p.size, 1000));
        std::vector<std::size_t> offset;
        std::size_t least = 0;
        for (std::size_t capacity = 1; least == 0; ++capacity) {
            std::uint64_t nodes = 100000;
            const auto result = search.run(capacity, seed % 2 ? "TLA" : "TWA", seed % 4 >= 2, nodes, offset);
            REQUIRE(result != Search::Result::out_of_budget);
            if (result == Search::Result::found) {
                REQUIRE(check_offsets(p, offset, capacity).empty());
                least = capacity;
            }
        }
        CHECK(least == brute);
    }
}

TEST_CASE("exact search: empty buffers, no buffers, and a budget that runs out") {
    Search search;
    std::vector<std::size_t> offset;
    std::uint64_t nodes = 10;
    Problem none;
    REQUIRE(search.prepare(none.def, none.end, none.size, 10));
    CHECK(search.run(0, "TLA", false, nodes, offset) == Search::Result::found);
    CHECK(offset.empty());

    Problem empty{{0, 0}, {3, 1}, {0, 5}};  // the empty one takes no bytes and gets offset 0
    REQUIRE(search.prepare(empty.def, empty.end, empty.size, 10));
    nodes = 10;
    REQUIRE(search.run(5, "TLA", false, nodes, offset) == Search::Result::found);
    CHECK(offset == std::vector<std::size_t>{0, 0});

    // Work beyond the limit is too big to search: here one section spanned
    // by 3 buffers, and 3 overlapping pairs listed both ways, 9 in all.
    Problem crowd{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}};
    CHECK_FALSE(search.prepare(crowd.def, crowd.end, crowd.size, 8));
    REQUIRE(search.prepare(crowd.def, crowd.end, crowd.size, 9));
    nodes = 1;
    CHECK(search.run(3, "TLA", false, nodes, offset) == Search::Result::out_of_budget);
    CHECK(nodes == 0);
}
