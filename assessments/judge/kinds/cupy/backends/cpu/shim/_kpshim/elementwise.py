"""cupy.ElementwiseKernel: CuPy's parameter syntax and broadcasting, code generated as CuPy does."""
from __future__ import annotations

import numpy

from . import array, params
from .generated import GeneratedKernel


def _is_array(x) -> bool:
    return isinstance(x, array.ndarray)


def _check_arg(x):
    if _is_array(x):
        return
    if isinstance(x, numpy.ndarray) or not isinstance(x, (bool, int, float, complex,
                                                          numpy.generic)):
        raise TypeError(f"Unsupported type {type(x)}")


def _carray_type(dtype, ndim: int, contiguous: bool) -> str:
    return f"CArray<{params.c_typename(dtype)}, {ndim}, {int(contiguous)}, 1>"


def device_view(arr, dtype=None):
    """A C-contiguous device array for a kernel, and whether results must be copied back."""
    if arr.flags.c_contiguous and (dtype is None or arr.dtype == dtype):
        return arr, False
    tmp = array.empty(arr.shape, arr.dtype if dtype is None else dtype)
    tmp[...] = arr
    return tmp, True


class ElementwiseKernel:
    """User-defined elementwise kernel: one thread per element of the broadcast shape."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, **kwargs):
        if not params.is_valid_kernel_name(name):
            raise ValueError(f'Invalid kernel name: "{name}"')
        self.in_params = params.parse(in_params, True)
        self.out_params = params.parse(out_params, False)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.operation = operation
        self.name = self.__name__ = name
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.no_return = no_return
        self.return_tuple = return_tuple
        self.kwargs = kwargs
        unknown = set(kwargs) - {"options", "loop_prep", "after_loop"}
        if unknown:
            raise TypeError(f"__init__() got an unexpected keyword argument '{unknown.pop()}'")
        if "i" in [p.name for p in self.params]:
            raise ValueError("Can not use 'i' as a parameter name")
        self._kernels: dict = {}

    def __call__(self, *args, **kwargs):
        size = kwargs.pop("size", -1)
        kwargs.pop("stream", None)
        block_size = kwargs.pop("block_size", 128)
        if kwargs:
            raise TypeError(f"Wrong arguments {kwargs}")
        if block_size <= 0:
            raise ValueError("block_size must be greater than zero")
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be either "
                            f"{self.nin} or {self.nargs} (with outputs), but given {len(args)}.")
        for a in args:
            _check_arg(a)
        in_args = list(args[:self.nin])
        out_args = list(args[self.nin:])

        nonraw = [a for a, p in zip(args, self.params) if _is_array(a) and not p.raw]
        if size != -1:
            if nonraw:
                raise ValueError("Specified 'size' can be used only if all of the ndarray are "
                                 "'raw'.")
            shape = (int(size),)
        else:
            if not nonraw:
                raise ValueError("Loop size is undecided.")
            try:
                shape = numpy.broadcast_shapes(*(a.shape for a in nonraw))
            except ValueError:
                raise ValueError("Broadcasting failed: shapes "
                                 + ", ".join(str(a.shape) for a in nonraw)) from None

        in_dtypes = [a.dtype if _is_array(a) else None for a in in_args]
        out_dtypes = [a.dtype if _is_array(a) else None for a in out_args]
        for a in out_args:
            if not _is_array(a):
                raise TypeError("Output arguments type must be cupy.ndarray")
        in_types, out_types, bound = params.decide_types(
            self.in_params, self.out_params, in_dtypes, out_dtypes if out_args else ())

        if out_args:
            for p, a in zip(self.out_params, out_args):
                if not p.raw and a.shape != shape:
                    raise ValueError("Out shape is mismatched")
        else:
            for p in self.out_params:
                if p.raw and size == -1:
                    raise ValueError("Output array size is Undecided")
            out_args = [array.empty(shape, t) for t in out_types]

        if self.no_return:
            ret = None
        elif not self.return_tuple and self.nout == 1:
            ret = out_args[0]
        else:
            ret = tuple(out_args)
        total = 1
        for s in shape:
            total *= s
        if total == 0:
            return ret

        self._launch(in_args, out_args, in_types, shape, bound, block_size)
        return ret

    def _launch(self, in_args, out_args, in_types, shape, bound, block_size):
        loop_shape = (int(numpy.prod(shape)),) if self.reduce_dims else tuple(shape)
        ndim = len(loop_shape)
        kargs, infos, copy_back = [], [], []
        for k, (p, a) in enumerate(zip(self.params, in_args + out_args)):
            is_in = k < self.nin
            if not _is_array(a):
                value = numpy.dtype(in_types[k]).type(a)
                kargs.append(value)
                infos.append(("scalar", value.dtype))
                continue
            if p.raw:
                dev, back = device_view(a)
                kargs.append(dev)
                infos.append(("raw", dev.dtype, dev.ndim))
                if back and not is_in:
                    copy_back.append((a, dev))
                continue
            if is_in:
                src = numpy.broadcast_to(a.view(numpy.ndarray), shape)
                if src.flags.c_contiguous and isinstance(a, array.ndarray) and a.shape == shape:
                    dev = a
                else:
                    dev = array.empty(shape, a.dtype)
                    dev[...] = src
            else:
                dev, back = device_view(a)
                if back:
                    copy_back.append((a, dev))
            kargs.append(dev.reshape(loop_shape))
            infos.append(("array", dev.dtype, ndim))
        key = (tuple(infos), tuple(sorted(bound.items())), ndim)
        kernel = self._kernels.get(key)
        if kernel is None:
            source = self._source(infos, bound, ndim)
            options = tuple(self.kwargs.get("options", ()))
            kernel = self._kernels[key] = GeneratedKernel("ElementwiseKernel", self.name, source,
                                                          options)
        n = int(numpy.prod(loop_shape))
        kargs.append((n, loop_shape))
        grid = (min(0x7FFFFFFF, (n + block_size - 1) // block_size),)
        kernel.launch(grid, (min(block_size, n),), kargs)
        for dst, dev in copy_back:
            dst[...] = dev

    def _source(self, infos, bound, ndim) -> str:
        decls, loads = [], []
        for k, (p, info) in enumerate(zip(self.params, infos)):
            const = "const " if k < self.nin else ""
            if info[0] == "scalar":
                decls.append(f"{const}{params.c_typename(info[1])} {p.name}")
            elif info[0] == "raw":
                decls.append(f"{const}{_carray_type(info[1], info[2], True)} {p.name}")
            else:
                decls.append(f"{const}{_carray_type(info[1], info[2], True)} _raw_{p.name}")
                ref = "const {t} &{n}" if k < self.nin else "{t} &{n}"
                loads.append(ref.format(t=p.ctype, n=p.name) + f" = _raw_{p.name}[_ind.get()];")
        decls.append(f"CIndexer<{ndim}> _ind")
        loop_prep = self.kwargs.get("loop_prep", "")
        after_loop = self.kwargs.get("after_loop", "")
        body = "\n    ".join(loads + [self.operation])
        return (f"{params.typedefs(bound)}{self.preamble}\n"
                f'extern "C" __global__ void {self.name}({", ".join(decls)}) {{\n'
                f"  {loop_prep};\n"
                f"  CUPY_FOR(i, _ind.size()) {{\n"
                f"    _ind.set(i);\n"
                f"    {body};\n"
                f"  }}\n"
                f"  {after_loop};\n"
                f"}}\n")


ElementwiseKernel.__module__ = "cupy"
