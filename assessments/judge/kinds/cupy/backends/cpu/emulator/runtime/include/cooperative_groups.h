// Subset of cooperative_groups over the emulator's barrier and warp collectives: thread blocks,
// static warp tiles, coalesced groups; grid-wide sync needs every block resident at once, which
// blocks run one after another cannot give.
#pragma once

namespace cooperative_groups {
namespace kp_detail {
inline unsigned linear_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
}  // namespace kp_detail

class thread_block {
  public:
    void sync(int kp_line = __builtin_LINE()) const { kp::kp_barrier(kp_line, 0); }
    unsigned thread_rank() const { return kp_detail::linear_tid(); }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return dim3(blockIdx); }
    dim3 thread_index() const { return dim3(threadIdx); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }
typedef thread_block thread_group;

class grid_group {
  public:
    void sync() const { kp::kp_trap("grid-wide sync (cooperative launch) is not supported by the CPU emulator"); }
    unsigned long long thread_rank() const {
        unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
        return b * (blockDim.x * blockDim.y * blockDim.z) + kp_detail::linear_tid();
    }
    unsigned long long size() const {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;
    }
    unsigned long long num_threads() const { return size(); }
    bool is_valid() const { return true; }
};
inline grid_group this_grid() { return grid_group(); }

template <unsigned N>
class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tile size must be a power of two up to 32");

  public:
    static unsigned lane() { return kp_detail::linear_tid() & 31; }
    static unsigned mask() { return N == 32 ? 0xFFFFFFFFu : (((1u << N) - 1) << (lane() / N * N)); }
    unsigned thread_rank() const { return lane() % N; }
    unsigned size() const { return N; }
    unsigned num_threads() const { return N; }
    unsigned meta_group_rank() const { return kp_detail::linear_tid() / N; }
    unsigned meta_group_size() const { return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N; }
    void sync(int kp_line = __builtin_LINE()) const { __syncwarp(mask(), kp_line); }
    template <class T> T shfl(T v, int src, int kp_line = __builtin_LINE()) const { return __shfl_sync(mask(), v, src, N, kp_line); }
    template <class T> T shfl_down(T v, unsigned d, int kp_line = __builtin_LINE()) const { return __shfl_down_sync(mask(), v, d, N, kp_line); }
    template <class T> T shfl_up(T v, unsigned d, int kp_line = __builtin_LINE()) const { return __shfl_up_sync(mask(), v, d, N, kp_line); }
    template <class T> T shfl_xor(T v, int m, int kp_line = __builtin_LINE()) const { return __shfl_xor_sync(mask(), v, m, N, kp_line); }
    int any(int p, int kp_line = __builtin_LINE()) const { return __any_sync(mask(), p, kp_line); }
    int all(int p, int kp_line = __builtin_LINE()) const { return __all_sync(mask(), p, kp_line); }
    unsigned ballot(int p, int kp_line = __builtin_LINE()) const {
        unsigned b = __ballot_sync(mask(), p, kp_line);
        return N == 32 ? b : (b >> (lane() / N * N)) & ((1u << N) - 1);
    }
    template <class T> unsigned match_any(T v, int kp_line = __builtin_LINE()) const { return __match_any_sync(mask(), v, kp_line); }
};

template <unsigned N, class Parent>
thread_block_tile<N> tiled_partition(const Parent&) { return thread_block_tile<N>(); }

class coalesced_group {
    unsigned m_;

  public:
    explicit coalesced_group(unsigned m) : m_(m) {}
    static unsigned lane() { return kp_detail::linear_tid() & 31; }
    unsigned thread_rank() const { return __builtin_popcount(m_ & ((1u << lane()) - 1)); }
    unsigned size() const { return __builtin_popcount(m_); }
    unsigned num_threads() const { return size(); }
    void sync(int kp_line = __builtin_LINE()) const { __syncwarp(m_, kp_line); }
    unsigned src_lane(unsigned rank) const {
        unsigned m = m_;
        for (unsigned i = 0; i < rank && m; i++) m &= m - 1;
        return m ? unsigned(__builtin_ctz(m)) : lane();
    }
    template <class T> T shfl(T v, int rank, int kp_line = __builtin_LINE()) const {
        return __shfl_sync(m_, v, int(src_lane(unsigned(rank))), 32, kp_line);
    }
    template <class T> T shfl_down(T v, unsigned d, int kp_line = __builtin_LINE()) const {
        unsigned r = thread_rank() + d;
        return __shfl_sync(m_, v, int(r < size() ? src_lane(r) : lane()), 32, kp_line);
    }
    template <class T> T shfl_up(T v, unsigned d, int kp_line = __builtin_LINE()) const {
        unsigned r = thread_rank();
        return __shfl_sync(m_, v, int(r >= d ? src_lane(r - d) : lane()), 32, kp_line);
    }
    int any(int p, int kp_line = __builtin_LINE()) const { return __any_sync(m_, p, kp_line); }
    int all(int p, int kp_line = __builtin_LINE()) const { return __all_sync(m_, p, kp_line); }
    unsigned ballot(int p, int kp_line = __builtin_LINE()) const { return __ballot_sync(m_, p, kp_line); }
};
inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

template <class G> inline void sync(const G& g) { g.sync(); }

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

template <unsigned N, class T, class Op>
T reduce(const thread_block_tile<N>& g, T v, Op op) {
    for (unsigned o = N / 2; o > 0; o /= 2) v = op(v, g.shfl_xor(v, int(o)));
    return v;
}
template <unsigned N, class T, class Op>
T inclusive_scan(const thread_block_tile<N>& g, T v, Op op) {
    for (unsigned o = 1; o < N; o *= 2) {
        T u = g.shfl_up(v, o);
        if (g.thread_rank() >= o) v = op(v, u);
    }
    return v;
}
template <unsigned N, class T>
T inclusive_scan(const thread_block_tile<N>& g, T v) { return inclusive_scan(g, v, plus<T>()); }
template <unsigned N, class T, class Op>
T exclusive_scan(const thread_block_tile<N>& g, T v, Op op) {
    T inc = inclusive_scan(g, v, op);
    T prev = g.shfl_up(inc, 1);
    return g.thread_rank() == 0 ? T() : prev;
}
template <unsigned N, class T>
T exclusive_scan(const thread_block_tile<N>& g, T v) { return exclusive_scan(g, v, plus<T>()); }
}  // namespace cooperative_groups
