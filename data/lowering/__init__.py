"""The Triton lowering: a ``linalg.generic`` or a kernel function -> one self-contained Triton kernel file.

A package rather than one file because the lowering is several concepts that
change for different reasons; each module holds one (docs/lowering.md):

* ``generic.py``: one generic -> one kernel (v1), and a whole module's generics;
* ``kernel.py``: one kernel function -> one kernel in pointwise, persistent or
  looped mode (v2); ``kernel_function.py``: what a kernel function holds;
* ``generic_info.py``: the static facts of a generic the kernel is built from;
* ``kernel_args.py``: the kernel's pointer arguments and the bytes they move;
* ``index_space.py``: indices, offsets, loads and stores over one loop space;
* ``body.py``: a generic's scalar body -> Triton expressions
  (``jit_helpers.py``: the ``@triton.jit`` helpers those may call);
* ``reduction.py``: recognising reductions and emitting their code;
* ``source.py``: the kernel file template and what a caller needs to compile
  or run it; ``report.py``: the result of lowering every kernel of a module;
* ``reference_functions.py``: the IREE oracle's view of the same computation;
* ``walk.py``: the one way the lowering walks the IR;
* ``element_types.py``, ``unsupported.py``: element types, and the error for
  whatever is not lowered.

Nothing is re-exported here: import from the module that owns the name.
"""
