// CPU counterpart of the parts of CuPy's <cupy/carray.cuh> that generated kernels use
// (ElementwiseKernel, ReductionKernel, cupyx.jit): CArray, CIndexer, CUPY_FOR, _floor_divide,
// the CUDART_* constants. Prepended to a kernel's source when it is built for the emulator.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#ifndef __device__
#define __device__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif

namespace STD = std;

#define CUPY_FOR(i, n)                                                                  \
  for (ptrdiff_t i = static_cast<ptrdiff_t>(blockIdx.x) * blockDim.x + threadIdx.x;    \
       i < (n); i += static_cast<ptrdiff_t>(blockDim.x) * gridDim.x)

#if defined(__has_include)
#if __has_include(<math_constants.h>)
#include <math_constants.h>
#endif
#endif
#ifndef CUDART_INF_F
#define CUDART_INF_F (std::numeric_limits<float>::infinity())
#define CUDART_NAN_F (std::numeric_limits<float>::quiet_NaN())
#define CUDART_MIN_DENORM_F (std::numeric_limits<float>::denorm_min())
#define CUDART_MAX_NORMAL_F (std::numeric_limits<float>::max())
#define CUDART_NEG_ZERO_F (-0.0f)
#define CUDART_ZERO_F 0.0f
#define CUDART_ONE_F 1.0f
#define CUDART_PI_F 3.141592654f
#define CUDART_INF (std::numeric_limits<double>::infinity())
#define CUDART_NAN (std::numeric_limits<double>::quiet_NaN())
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_SQRT_2 1.4142135623730951e+0
#endif
#ifndef M_PI
#define M_PI 3.1415926535897932384626433832795
#endif

namespace kp_carray {
// What CArray::get_shape() returns: the transpiler unpacks two extents as a pair and other
// counts as a tuple.
template <typename T, std::size_t... I>
auto repeat_tuple(std::index_sequence<I...>) -> std::tuple<decltype((void)I, T())...>;
template <int N, typename T>
struct tuple_of_impl {
  typedef decltype(repeat_tuple<T>(std::make_index_sequence<N>())) type;
};
template <typename T>
struct tuple_of_impl<2, T> {
  typedef std::pair<T, T> type;
};
template <int N, typename T>
using tuple_of = typename tuple_of_impl<N, T>::type;

template <int N, typename T, std::size_t... I>
inline tuple_of<N, ptrdiff_t> to_tuple(const T* v, std::index_sequence<I...>) {
  return tuple_of<N, ptrdiff_t>(static_cast<ptrdiff_t>(v[I])...);
}
}  // namespace kp_carray

template <int dim>
struct Dim {};

template <typename T, int _ndim, bool _c_contiguous = false, bool _use_32bit_indexing = false>
class CArray {
 public:
  static const int ndim = _ndim;
  static const bool c_contiguous = _c_contiguous;
  typedef typename std::conditional<_use_32bit_indexing, int, ptrdiff_t>::type index_t;

 private:
  T* data_;
  ptrdiff_t size_;
  ptrdiff_t shape_[_ndim];
  ptrdiff_t strides_[_ndim];

  T& at_bytes(ptrdiff_t offset) const {
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(data_) + offset);
  }

 public:
  CArray() : data_(nullptr), size_(1) {
    std::memset(shape_, 0, sizeof(shape_));
    std::memset(strides_, 0, sizeof(strides_));
  }

  template <typename Int1, typename Int2>
  CArray(T* data, const Int1* shape, const Int2* strides) : data_(data), size_(1) {
    for (int i = 0; i < _ndim; i++) {
      shape_[i] = shape[i];
      strides_[i] = strides[i];
      size_ *= shape[i];
    }
  }

  template <typename Int>
  CArray(T* data, const Int* shape) : data_(data), size_(1) {
    ptrdiff_t stride = sizeof(T);
    for (int i = _ndim - 1; i >= 0; i--) {
      shape_[i] = shape[i];
      strides_[i] = stride;
      stride *= shape[i];
      size_ *= shape[i];
    }
  }

  template <typename Int>
  CArray(T* data, std::initializer_list<Int> shape) : CArray(data, shape.begin()) {}

  template <typename Int1, typename Int2>
  CArray(T* data, std::initializer_list<Int1> shape, std::initializer_list<Int2> strides)
      : CArray(data, shape.begin(), strides.begin()) {}

  ptrdiff_t size() const { return size_; }
  const ptrdiff_t* shape() const { return shape_; }
  const ptrdiff_t* strides() const { return strides_; }
  T* data() const { return data_; }

  kp_carray::tuple_of<_ndim, ptrdiff_t> get_shape() const {
    return kp_carray::to_tuple<_ndim>(shape_, std::make_index_sequence<_ndim>());
  }
  kp_carray::tuple_of<_ndim, ptrdiff_t> get_strides() const {
    return kp_carray::to_tuple<_ndim>(strides_, std::make_index_sequence<_ndim>());
  }

  // Linear element index in C order (a raw parameter's z[j]).
  T& operator[](ptrdiff_t idx) const {
    if (_c_contiguous) return data_[idx];
    ptrdiff_t offset = 0;
    ptrdiff_t rest = idx;
    for (int dim = _ndim - 1; dim > 0; --dim) {
      offset += strides_[dim] * (rest % shape_[dim]);
      rest /= shape_[dim];
    }
    offset += strides_[0] * rest;
    return at_bytes(offset);
  }

  // An index per dimension (what CIndexer::get() hands over).
  template <typename Int>
  T& operator[](const Int (&idx)[_ndim]) const {
    ptrdiff_t offset = 0;
    for (int dim = 0; dim < _ndim; ++dim) offset += strides_[dim] * static_cast<ptrdiff_t>(idx[dim]);
    return at_bytes(offset);
  }

  template <typename Int>
  T& operator[](std::initializer_list<Int> idx) const {
    ptrdiff_t offset = 0;
    int dim = 0;
    for (Int v : idx) offset += strides_[dim++] * static_cast<ptrdiff_t>(v);
    return at_bytes(offset);
  }

  // cupyx.jit: a[i, j] and a[i] on an n-d array.
  template <typename Tuple, std::size_t... I>
  T& index_tuple(const Tuple& idx, std::index_sequence<I...>) const {
    ptrdiff_t offset = 0;
    int expand[] = {0, ((offset += strides_[I] * static_cast<ptrdiff_t>(std::get<I>(idx))), 0)...};
    (void)expand;
    return at_bytes(offset);
  }

  template <typename Tuple>
  T& _indexing(const Tuple& idx) const {
    return index_tuple(idx, std::make_index_sequence<std::tuple_size<Tuple>::value>());
  }

  template <typename Tuple, std::size_t... I>
  ptrdiff_t slice_offset(const Tuple& idx, std::index_sequence<I...>) const {
    ptrdiff_t offset = 0;
    int expand[] = {0, ((offset += strides_[I] * static_cast<ptrdiff_t>(std::get<I>(idx))), 0)...};
    (void)expand;
    return offset;
  }

  template <typename Tuple, int dimreduce>
  CArray<T, _ndim - dimreduce, _c_contiguous, _use_32bit_indexing> _slicing(const Tuple& idx,
                                                                             Dim<dimreduce>) const {
    ptrdiff_t offset = slice_offset(idx, std::make_index_sequence<dimreduce>());
    return CArray<T, _ndim - dimreduce, _c_contiguous, _use_32bit_indexing>(
        &at_bytes(offset), shape_ + dimreduce, strides_ + dimreduce);
  }

  CArray<T, _ndim - 1, _c_contiguous, _use_32bit_indexing> _slicing(ptrdiff_t idx) const {
    return CArray<T, _ndim - 1, _c_contiguous, _use_32bit_indexing>(
        &at_bytes(strides_[0] * idx), shape_ + 1, strides_ + 1);
  }

  T* begin_ptr() const { return data_; }
  T* end_ptr() const { return data_ + size_; }
};

template <typename T, bool _c_contiguous, bool _use_32bit_indexing>
class CArray<T, 0, _c_contiguous, _use_32bit_indexing> {
 public:
  static const int ndim = 0;
  static const bool c_contiguous = true;

 private:
  T* data_;

 public:
  CArray() : data_(nullptr) {}
  explicit CArray(T* data) : data_(data) {}
  template <typename Int1, typename Int2>
  CArray(T* data, const Int1*, const Int2*) : data_(data) {}
  template <typename Int>
  CArray(T* data, const Int*) : data_(data) {}

  ptrdiff_t size() const { return 1; }
  const ptrdiff_t* shape() const { return nullptr; }
  const ptrdiff_t* strides() const { return nullptr; }
  T* data() const { return data_; }
  std::tuple<> get_shape() const { return std::tuple<>(); }
  std::tuple<> get_strides() const { return std::tuple<>(); }

  template <typename U>
  T& operator[](const U&) const { return *data_; }
  template <typename Tuple>
  T& _indexing(const Tuple&) const { return *data_; }
};

template <int _ndim, bool _use_32bit_indexing = false>
class CIndexer {
 private:
  ptrdiff_t size_;
  ptrdiff_t shape_[_ndim];
  ptrdiff_t index_[_ndim];

 public:
  CIndexer() : size_(1) {}

  template <typename Int>
  CIndexer(ptrdiff_t size, const Int* shape) : size_(size) {
    for (int i = 0; i < _ndim; i++) {
      shape_[i] = shape[i];
      index_[i] = 0;
    }
  }

  ptrdiff_t size() const { return size_; }
  const ptrdiff_t* shape() const { return shape_; }

  void set(ptrdiff_t i) {
    for (int dim = _ndim - 1; dim > 0; --dim) {
      index_[dim] = i % shape_[dim];
      i /= shape_[dim];
    }
    index_[0] = i;
  }

  const ptrdiff_t (&get() const)[_ndim] { return index_; }
};

template <bool _use_32bit_indexing>
class CIndexer<0, _use_32bit_indexing> {
 private:
  ptrdiff_t size_;

 public:
  CIndexer() : size_(1) {}
  template <typename Int>
  CIndexer(ptrdiff_t size, const Int*) : size_(size) {}
  ptrdiff_t size() const { return size_; }
  const ptrdiff_t* shape() const { return nullptr; }
  void set(ptrdiff_t) {}
  const ptrdiff_t* get() const { return nullptr; }
};

inline int _floor_divide(int x, int y) {
  if (y == 0) return 0;
  int q = x / y;
  return q - (((x < 0) != (y < 0)) && q * y != x);
}

inline long long _floor_divide(long long x, long long y) {
  if (y == 0) return 0;
  long long q = x / y;
  return q - (((x < 0) != (y < 0)) && q * y != x);
}

inline unsigned _floor_divide(unsigned x, unsigned y) { return y == 0 ? 0 : x / y; }

inline unsigned long long _floor_divide(unsigned long long x, unsigned long long y) {
  return y == 0 ? 0 : x / y;
}

inline float _floor_divide(float x, float y) { return std::floor(x / y); }

inline double _floor_divide(double x, double y) { return std::floor(x / y); }
