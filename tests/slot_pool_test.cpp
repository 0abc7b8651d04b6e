// The best-fit pool against a brute-force model, over random operations.
#include <onnx_runtime_memory/detail/slot_pool.hpp>

#include <random>

#include "support.hpp"

TEST_CASE("SlotPool::acquire is best fit with ties to the smallest id, like a linear scan") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        orm::detail::SlotPool pool;
        std::vector<std::size_t> cap;    // model: every slot's capacity
        std::vector<bool> free_slot;     // model: which are free
        std::vector<std::uint32_t> busy;
        for (int step = 0; step < 3000; ++step) {
            if (busy.empty() || rng() % 100 < 55) {
                const std::size_t need = rng() % (seed % 4 == 0 ? 4 : 64);  // few sizes: many ties
                std::uint32_t expect = static_cast<std::uint32_t>(cap.size());
                for (std::uint32_t s = 0; s < cap.size(); ++s)
                    if (free_slot[s] && cap[s] >= need && (expect == cap.size() || cap[s] < cap[expect])) expect = s;
                const std::uint32_t got = pool.acquire(need);
                REQUIRE(got == expect);
                if (got == cap.size()) {
                    cap.push_back(need);
                    free_slot.push_back(false);
                } else {
                    free_slot[got] = false;
                }
                busy.push_back(got);
            } else {
                const std::size_t k = rng() % busy.size();
                pool.release(busy[k]);
                free_slot[busy[k]] = true;
                busy[k] = busy.back();
                busy.pop_back();
            }
        }
        CHECK(pool.capacities() == cap);
        pool.reset();
        CHECK(pool.capacities().empty());
        CHECK(pool.acquire(5) == 0);
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
    for (int step = 0; step < 150; ++step) {
        const std::size_t need = rng() % 1100;
        std::uint32_t expect = static_cast<std::uint32_t>(cap.size());
        for (std::uint32_t s = 0; s < cap.size(); ++s)
            if (!taken[s] && cap[s] >= need && (expect == cap.size() || cap[s] < cap[expect])) expect = s;
        const std::uint32_t got = pool.acquire(need);
        REQUIRE(got == expect);
        if (got == cap.size()) {
            cap.push_back(need);
            taken.push_back(true);
        } else {
            taken[got] = true;
        }
    }
}
