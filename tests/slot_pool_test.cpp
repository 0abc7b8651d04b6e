// The best-fit pool against a brute-force model, over random operations.
#include <onnx_runtime_memory/detail/slot_pool.hpp>

#include <numeric>
#include <random>

#include "support.hpp"

namespace {

// The model: a linear scan for the free slot of smallest capacity >= need,
// ties to the smallest id; cap.size() (a new slot) when none fits.
std::uint32_t linear_best_fit(const std::vector<std::size_t>& cap, const std::vector<bool>& busy, std::size_t need) {
    auto best = static_cast<std::uint32_t>(cap.size());
    for (std::uint32_t s = 0; s < cap.size(); ++s)
        if (!busy[s] && cap[s] >= need && (best == cap.size() || cap[s] < cap[best])) best = s;
    return best;
}

// Acquires from the pool, checks it against the model, and takes the slot in
// the model too; returns the slot.
std::uint32_t acquire_checked(orm::detail::SlotPool& pool, std::vector<std::size_t>& cap, std::vector<bool>& busy,
                              std::size_t need) {
    const std::uint32_t expect = linear_best_fit(cap, busy, need);
    const std::uint32_t got = pool.acquire(need);
    REQUIRE(got == expect);
    if (got == cap.size()) {
        cap.push_back(need);
        busy.push_back(true);
    } else {
        busy[got] = true;
    }
    return got;
}

}  // namespace

TEST_CASE("SlotPool::acquire is best fit with ties to the smallest id, like a linear scan") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        orm::detail::SlotPool pool;
        std::vector<std::size_t> cap;    // model: every slot's capacity
        std::vector<bool> busy;          // model: which are taken
        std::vector<std::uint32_t> held;  // slots taken, to release at random
        for (int step = 0; step < 3000; ++step) {
            if (held.empty() || rng() % 100 < 55) {
                const std::size_t need = rng() % (seed % 4 == 0 ? 4 : 64);  // few sizes: many ties
                held.push_back(acquire_checked(pool, cap, busy, need));
            } else {
                const std::size_t k = rng() % held.size();
                pool.release(held[k]);
                busy[held[k]] = false;
                held[k] = held.back();
                held.pop_back();
            }
        }
        CHECK(pool.capacities() == cap);
        CHECK(pool.total() == std::accumulate(cap.begin(), cap.end(), std::size_t{0}));
        pool.reset();
        CHECK(pool.capacities().empty());
        CHECK(pool.total() == 0);
        CHECK(pool.acquire(5) == 0);
    }
}

TEST_CASE("SlotPool::total is the sum of the capacities, slots growing or not") {
    std::mt19937 rng(11);
    orm::detail::SlotPool pool;
    std::vector<std::uint32_t> held;
    for (int step = 0; step < 3000; ++step) {
        if (held.empty() || rng() % 100 < 55) {
            const std::size_t need = rng() % 100;
            held.push_back(rng() % 2 ? pool.acquire_growing(need) : pool.acquire(need));
        } else {
            const std::size_t k = rng() % held.size();
            pool.release(held[k]);
            held[k] = held.back();
            held.pop_back();
        }
        const auto& cap = pool.capacities();
        REQUIRE(pool.total() == std::accumulate(cap.begin(), cap.end(), std::size_t{0}));
    }
}

TEST_CASE("SlotPool stays best fit when more than 64 slots are free at once (the tree takes over)") {
    orm::detail::SlotPool pool;
    std::vector<std::uint32_t> ids;
    for (std::size_t k = 0; k < 200; ++k) ids.push_back(pool.acquire((k * 7919) % 1000));  // 200 new slots
    for (std::uint32_t id : ids) pool.release(id);                                        // 200 free: past 64
    std::vector<std::size_t> cap = pool.capacities();
    std::vector<bool> taken(cap.size(), false);
    std::mt19937 rng(7);
    for (int step = 0; step < 150; ++step) (void)acquire_checked(pool, cap, taken, rng() % 1100);
}
