"""The kernel registry: one spec per kernel, every name in the closed set, every integer kernel a
spec names implemented by the integer simulation, and the facts the analysis reads from them."""
from __future__ import annotations

import subprocess
import sys
from typing import get_args

from vpu_core.hardware.kernels import KERNELS, KernelName, alias_of, kernel_named, spec_of
from vpu_core.hardware.kernels.spec import IntKernel
from vpu_core.hardware.limits import LIMITS, OP_TABLES


def test_every_kernel_name_is_in_the_closed_set_once():
    names = [spec.name for spec in KERNELS]
    assert len(names) == len(set(names))
    assert set(names) == set(get_args(KernelName))


def test_every_integer_kernel_a_spec_names_is_implemented():
    from vpu_core.intsim.executor import IMPLEMENTATIONS

    assert set(IMPLEMENTATIONS) == set(get_args(IntKernel))
    assert {s.int_kernel for s in KERNELS if s.int_kernel} <= set(IMPLEMENTATIONS)


def test_ops_and_aliases_resolve_to_their_spec():
    assert spec_of("max_pool2d_with_indices.default").name == "max_pool2d"
    assert spec_of("relu_.default").name == "relu"            # in-place: its functional op
    assert spec_of("conv1d.default") is None                    # only an alias …
    assert alias_of("conv1d.padding")[0].name == "conv2d"       # … of conv2d
    spec, alias = alias_of("addmm.default")
    assert (spec.name, alias.args.weight, alias.args.bias, alias.args.weight_axis) == ("linear", 2, 0, 1)
    assert spec_of("addmm.default").name == "matmul"            # its own MACs: a matrix product
    assert kernel_named("avg_pool2d").averages and spec_of("cat").list_input


def test_limit_tables_come_from_the_kernels_that_declare_them():
    assert OP_TABLES == ("conv2d", "linear", "max_pool2d", "avg_pool2d")
    for spec in KERNELS:
        assert all(k.table == spec.name for k in spec.limits)
        assert bool(spec.limits) == (spec.quantities is not None)
    assert [k.id for k in LIMITS][-1] == "memory.sram_bytes"


def test_the_specs_and_the_limit_tables_import_no_torch():
    code = "import sys, vpu_core.hardware.limits, vpu_core.hardware.ops; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
