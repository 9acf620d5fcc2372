// cache_sim's C++ reference (never served): the performance baseline of C++ submissions.
// Each set is `ways` slots in three arrays (line, stamp, dirty); a hit is found by a linear scan;
// the stamp is the last use (LRU) or the fill (FIFO), and a full set evicts its smallest stamp.
// Lines are addresses shifted by at least 4 bits, so no line is ~0, the empty slot's mark.
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" void simulate(const uint64_t* addresses, const uint8_t* writes, int64_t n,
                         int64_t size_bytes, int64_t line_bytes, int64_t ways,
                         int policy, int64_t out[4]) {
    const uint64_t sets = static_cast<uint64_t>(size_bytes / (line_bytes * ways));
    int shift = 0;
    while ((int64_t{1} << shift) < line_bytes) ++shift;
    const size_t slots = static_cast<size_t>(sets * ways);
    std::vector<uint64_t> line_of(slots, ~uint64_t{0}), stamp(slots, 0);
    std::vector<uint8_t> dirty(slots, 0);
    std::vector<int64_t> filled(sets, 0);
    const bool lru = policy == 0;
    int64_t hits = 0, misses = 0, evictions = 0, writebacks = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t line = addresses[i] >> shift;
        const uint64_t set = line & (sets - 1);
        const size_t base = static_cast<size_t>(set * ways);
        const uint64_t now = static_cast<uint64_t>(i) + 1;
        int64_t w = 0;
        while (w < ways && line_of[base + w] != line) ++w;
        if (w < ways) {
            ++hits;
            if (lru) stamp[base + w] = now;
            dirty[base + w] |= writes[i] ? 1 : 0;
            continue;
        }
        ++misses;
        int64_t victim;
        if (filled[set] < ways) {
            victim = filled[set]++;
        } else {
            victim = 0;
            for (int64_t v = 1; v < ways; ++v)
                if (stamp[base + v] < stamp[base + victim]) victim = v;
            ++evictions;
            if (dirty[base + victim]) ++writebacks;
        }
        line_of[base + victim] = line;
        stamp[base + victim] = now;
        dirty[base + victim] = writes[i] ? 1 : 0;
    }
    out[0] = hits; out[1] = misses; out[2] = evictions; out[3] = writebacks;
}
