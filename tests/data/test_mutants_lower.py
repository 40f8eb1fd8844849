"""What ``data/lower.py``'s own lowering tests did not pin down (issue #15: survivors of mutation
testing): the module report's exact text and the per-generic configs of :func:`lower_module`.
"""

from __future__ import annotations

from lowering_cases import elementwise, row_reduction

from costfuse.data.launch_config import LaunchConfig
from costfuse.data.lower import analyze, generics_of, lower_module
from costfuse.ir import parse_module


def _module(*bodies: list[str]) -> str:
    """One function per body, each an elementwise generic on 8 f32 values."""
    return "".join(elementwise((8,), "f32", body).replace("@main", f"@f{i}") for i, body in enumerate(bodies))


def test_the_report_counts_each_refusal_reason_most_frequent_first():
    atan = ["%y = math.atan %a0 : f32", "yield %y"]
    acos = ["%y = math.acos %a0 : f32", "yield %y"]
    module = parse_module(_module(["%y = math.exp %a0 : f32", "yield %y"], acos, atan, atan))
    report = lower_module(module)
    assert [i for i, _ in report.kernels] == [0] and [i for i, _ in report.unsupported] == [1, 2, 3]
    assert report.total == 4
    atan_reason, acos_reason = str(report.unsupported[1][1]), str(report.unsupported[0][1])
    assert report.summary() == (f"1/4 generics lowered, 3 unsupported\n  2 x {atan_reason}\n  1 x {acos_reason}")


def test_the_report_of_a_fully_lowered_module_has_one_line():
    module = parse_module(_module(["%y = math.exp %a0 : f32", "yield %y"]))
    assert lower_module(module).summary() == "1/1 generics lowered, 0 unsupported"


def test_config_for_sees_each_generic_and_picks_its_config():
    """``config_for(info)`` is called with each generic's own :func:`analyze` facts, and the
    kernel is lowered at the config it returns."""
    text = (elementwise((4, 16), "f32", ["%y = math.exp %a0 : f32", "yield %y"])
            + row_reduction((4, 64), "f32", "arith.addf").replace("@main", "@other"))
    module = parse_module(text)
    seen = []

    def config_for(info):
        seen.append(info)
        return LaunchConfig(2, 1, 1) if info.iterators == ("parallel", "parallel") else LaunchConfig(2, 16, 1)

    report = lower_module(module, config_for)
    assert seen == [analyze(g) for g in generics_of(module)]
    assert [k.config for _, k in report.kernels] == [LaunchConfig(2, 1, 1), LaunchConfig(2, 16, 1)]
