"""A software prefetch for numba kernels: ``prefetch(array, i)`` asks the CPU to bring the
cache line of the ``i``-th element of a C-contiguous array (flat index) into cache, without
waiting for it (LLVM's ``llvm.prefetch``; a hint, with no effect on results).  Kernels that
walk large tables in an order known a few steps ahead use it to overlap the memory latency of
the next steps' loads with the current step's work."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch ``array.flat[index]`` for reading (high temporal locality)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        i = context.cast(builder, args[1], idxty, types.intp)
        ptr = builder.gep(ary.data, [i])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
