"""The Inductor handler on the workload blocks and on blocks it has not seen, judged by ptxas (issue #25).

    python experiments/inductor_report.py                  # all blocks -> experiments/results/inductor_report.md
    python experiments/inductor_report.py --only Softmax   # a subset (substring of the block name)

For each block (the workloads of ``experiments/workloads/blocks.py`` at their
LLM sizes, and ``experiments/workloads/unseen_blocks.py`` plus the
``examples/torch_blocks.py`` modules), :func:`costfuse.data.inductor_report.report_block`
generates Inductor's sm_90 kernels on this CPU with and without CostFuse's
handler (mode ``pin``), with a persistent probe, and again with Inductor's
max-autotune candidate lists, and compiles every config with ptxas.  The
report states each goal of issue #25 as met or not, with the figures:

* CostFuse's picks spill 0 bytes on every kernel;
* persistent on >= 95% of the row reductions where some persistent config
  (1 to 32 warps) is spill-free under ptxas, looped wherever none is;
* ``prune`` (the heads' spill verdict on Inductor's candidates, default and
  max-autotune lists) drops >= 95% of the spilling ones and <= 5% of the
  spill-free ones;
* one compile per kernel in ``pin`` against Inductor's candidate count (the
  ratio, and the ptxas seconds saved);
* features of a kernel at every config of its space in <= 1 ms;
* <= 2 ms per kernel decision, and <= 10% added to Inductor's codegen time.

It also writes every kernel's record (``--json`` lines of
``costfuse inductor-report``, plus the block) to
``experiments/results/inductor_report_kernels.jsonl``: the seed of the
Inductor-kernel dataset (parts 5 and 6), and a PNG of predicted against
compiled registers.  No GPU figure is involved: latency is ``not measured``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from experiments.bench_report import RESULTS, add_report_arg, command_line, conditions, emit  # noqa: E402


def blocks() -> list[tuple[str, str, str, list[str], str]]:
    """``(name, set, MODULE:FACTORY, shapes, dtype)`` of every block: the workloads (``seen``), the unseen
    compositions and the torch examples (``unseen``)."""
    from examples.torch_blocks import EXAMPLE_SHAPES
    from experiments.workloads.export import LLM, WORKLOADS
    from experiments.workloads.unseen_blocks import SHAPES

    out = [(w.name, "seen", f"experiments/workloads/blocks.py:{w.block}", w.shape_args(LLM), w.dtype)
           for w in WORKLOADS]
    out += [(name, "unseen", f"experiments/workloads/unseen_blocks.py:{name}", shapes, dtype)
            for name, (shapes, dtype) in SHAPES.items()]
    out += [(name, "unseen", f"examples/torch_blocks.py:{name}", ["x".join(map(str, s)) for s in shapes], "f32")
            for name, shapes in EXAMPLE_SHAPES.items()]
    return out


def run(only: str, jobs: int, timeout_s: float, repeats: int, spill_cut: str | None = None,
        persistent_first: bool = True) -> list[dict]:
    """Every block's kernels (one dict per kernel, with the block's name, set and codegen times)."""
    from costfuse.data.compile import CompilePool
    from costfuse.data.inductor_report import MAX_AUTOTUNE, _inputs, report_block
    from costfuse.torch_import import build_module, load_factory, parse_input

    rows = []
    with CompilePool(jobs, timeout_s) as pool:
        for name, which, target, shapes, dtype in blocks():
            if only and not any(o in name for o in only.split(",")):
                continue
            module = build_module(load_factory(target), 0, dtype)
            inputs = _inputs([parse_input(s) for s in shapes], dtype)
            print(f"[{name}] ...", file=sys.stderr, flush=True)
            try:
                block = report_block(module, inputs, "pin", pool=pool, repeats=repeats, spill_cut=spill_cut,
                                     persistent_first=persistent_first)
                wide = report_block(module, inputs, "pin", options=MAX_AUTOTUNE, pool=pool, probe=False,
                                    spill_cut=spill_cut, persistent_first=persistent_first)
            except Exception as err:   # one block's failure is reported, not the end of the run
                rows.append({"block": name, "set": which, "error": f"{type(err).__name__}: {err}"[:300]})
                continue
            wide_by_name = {k.kernel: k for k in wide.kernels}
            for k in block.kernels:
                row = {"block": name, "set": which, "target": target, "shapes": shapes, "dtype": dtype,
                       **k.record(),
                       "codegen_s": block.codegen_s, "handler_codegen_s": block.handler_codegen_s,
                       "hook_s": block.hook_s, "handler_stats": block.handler_stats, "trees": trees_walked()}
                other = wide_by_name.get(k.kernel)
                row["inductor_max_autotune"] = other.inductor if other is not None else []
                rows.append(row)
    return rows


REFERENCE_PICKS = 30


def reference_pick_ms(picks: int = REFERENCE_PICKS) -> float:
    """Milliseconds of one reference decision: ``Decider.pick`` on the first described reduction kernel of
    ``data/sm90_inductor_v1``'s first shard, rebuilt from its description for each pick (nothing cached on
    it), outside Inductor's codegen; the median of ``picks``.  The same work in every run, so the decision
    times of two runs compare in proportion to it: this shared machine's speed moves between runs."""
    import time

    from costfuse.data.store import read_shard, shards
    from costfuse.featurize.inductor_kernel import kernel_from_dict
    from costfuse.inductor.decide import HANDLER_SPILL_CUT, Decider

    table = read_shard(shards(REPO / "data" / "sm90_inductor_v1")[0], 3).to_pandas()
    desc = next(d for d, h in zip(table["kernel_desc"], table["heuristic"]) if d and h == "reduction")
    decider = Decider(spill_cut=HANDLER_SPILL_CUT)
    decider.pick(kernel_from_dict(json.loads(desc)))   # the first pick loads the heads
    times = []
    for _ in range(picks):
        kernel = kernel_from_dict(json.loads(desc))
        t0 = time.perf_counter()
        decider.pick(kernel)
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def _pct(a: int, b: int) -> str:
    return "n/a" if b == 0 else f"{100 * a / b:.1f}%"


def _verdict(ok: bool | None) -> str:
    return "not measurable here" if ok is None else ("met" if ok else "**not met**")


def summarize(rows: list[dict], other_cut: tuple[str, float] | None = None) -> dict:
    """The goal figures over ``rows`` (see the module docstring); ``other_cut``: ``(name, P(spill))`` of a cut
    ``prune`` does not use, for what it would drop there (from each candidate's recorded P(spill))."""
    red = [r for r in rows if r["rnumel"] > 1]
    picks = [r for r in red if r["costfuse"] is not None]
    compiled = [r for r in picks if r["costfuse"].get("spill_bytes") is not None]
    spilling_picks = [r for r in compiled if r["costfuse"]["spill_bytes"] > 0]
    probe_yes = [r for r in picks if r["persistent_spill_free"] is True]
    probe_no = [r for r in picks if r["persistent_spill_free"] is False]
    persistent_yes = [r for r in probe_yes if r["costfuse"]["config"]["persistent"]]
    looped_no = [r for r in probe_no if not r["costfuse"]["config"]["persistent"]]
    cands = [e for r in picks for e in r["inductor"] + r["inductor_max_autotune"]
             if e.get("spill_bytes") is not None and "predicted_spill" in e]
    spill_c = [e for e in cands if e["spill_bytes"] > 0]
    free_c = [e for e in cands if e["spill_bytes"] == 0]
    inductor_s = sum(e.get("compile_s", 0.0) for r in picks for e in r["inductor"])
    pin_s = sum(r["costfuse"].get("compile_s", 0.0) for r in picks)
    n_cands = sum(len(r["inductor"]) for r in picks)
    decisions = [r["decision_s"] for r in picks if r["decision_s"] is not None]
    left = [r["decision_s"] for r in red if r["costfuse"] is None and r["decision_s"] is not None]
    features = [r["features_s"] for r in red if r.get("features_s") is not None]
    blocks = {r["block"]: r["handler_codegen_s"] / r["codegen_s"] - 1 for r in rows if r["codegen_s"]}
    hooks = {r["block"]: r["hook_s"] / r["codegen_s"] for r in rows if r["codegen_s"]}
    per_block = {r["block"]: r.get("handler_stats") or {} for r in rows}
    vetoes = sum(stats.get("fusion vetoed", 0) for stats in per_block.values())
    fallbacks: dict[str, int] = {}
    for r in red:
        if r["costfuse"] is None:
            kind = (r["fallback"] or "").split(" (")[0]
            fallbacks[kind] = fallbacks.get(kind, 0) + 1
    return {
        "kernels": len(rows), "reductions": len(red), "decided": len(picks), "fallbacks": fallbacks,
        "vetoes": vetoes,
        "spilling_picks": spilling_picks, "compiled_picks": len(compiled),
        "pick_spill_bytes": sum(r["costfuse"]["spill_bytes"] for r in spilling_picks),
        "probe_yes": len(probe_yes), "persistent_yes": len(persistent_yes),
        "probe_no": len(probe_no), "looped_no": len(looped_no),
        "spill_c": len(spill_c), "spill_c_dropped": sum(e["predicted_spill"] for e in spill_c),
        "free_c": len(free_c), "free_c_dropped": sum(e["predicted_spill"] for e in free_c),
        "other_cut": _dropped_at(other_cut, spill_c, free_c),
        "candidates": n_cands, "inductor_s": inductor_s, "pin_s": pin_s,
        "decision_ms": (1e3 * statistics.median(decisions), 1e3 * max(decisions)) if decisions else (None, None),
        "decisions_within": sum(d <= 0.002 for d in decisions), "decisions": len(decisions),
        "fallback_ms": (1e3 * statistics.median(left), 1e3 * max(left)) if left else (None, None),
        "features_ms": (1e3 * statistics.median(features), 1e3 * max(features)) if features else (None, None),
        "overhead": (statistics.median(blocks.values()), max(blocks.values())) if blocks else (None, None),
        "hook_overhead": (statistics.median(hooks.values()), max(hooks.values())) if hooks else (None, None),
        "inductor_dropped": sum(bool(e.get("dropped")) for r in red for e in r["inductor"]),
        "inductor_spilling": sum((e.get("spill_bytes") or 0) > 0 for r in red for e in r["inductor"]),
        "inductor_total": sum(len(r["inductor"]) for r in red),
    }


def _dropped_at(cut: tuple[str, float] | None, spill_c: list[dict], free_c: list[dict]) -> tuple | None:
    """``(name, spilling dropped, spill-free dropped)`` at ``cut``; ``None`` without a cut or where a run did
    not record the candidates' P(spill)."""
    if cut is None or any("p_spill" not in e for e in spill_c + free_c):
        return None
    name, p = cut
    return name, sum(e["p_spill"] >= p for e in spill_c), sum(e["p_spill"] >= p for e in free_c)


def _cfg(c: dict) -> str:
    mode = "persistent" if c["persistent"] else "looped"
    return f"{mode} x{c['xblock']} r{c['rblock']} w{c['num_warps']}"


def model_text() -> str:
    """The handler's default heads, as the report names them."""
    meta = json.loads((REPO / "costfuse" / "models" / "inductor" / "metadata.json").read_text())
    return (f"the handler's heads (`costfuse/models/inductor/`, trained on {meta['dataset']}: Inductor's own "
            "kernels of the workload kinds, blocks `seen` below, at random sizes, with CostFuse's groups; "
            "the `unseen` blocks are in no dataset)")


def trees_walked() -> str:
    """How the heads' trees are walked in this process, for the report: the decision times depend on it."""
    from costfuse.cost_models.forest_native import DISABLE_ENV, native_walk

    return ("in C (`costfuse/cost_models/forest_native.py`)" if native_walk() is not None else
            f"in NumPy (no C compiler built the compiled walk, or `{DISABLE_ENV}=0`)")


def markdown(rows: list[dict], s: dict, command: str, png: str, spill_cut: str, errors: list[dict],
             rule: str = "") -> str:
    out = [
        "# CostFuse's Inductor handler against ptxas (issue #25)",
        "",
        f"Command: `{command}`",
        "",
        f"Run: {conditions()}. Inductor's CUDA kernels for sm_90 generated on this CPU "
        "(docs/inductor.md), every config compiled with Triton's ptxas (`costfuse.data.compile`). "
        f"The model is {model_text()}, deciding at the spill head's `{spill_cut}` cut; the rule: {rule}. "
        f"The heads' trees were walked {rows[0].get('trees', '(not recorded)') if rows else '(no kernel)'}. "
        + _speed_text(rows) + "GPU latency: not measured.",
        "",
        "## Goals",
        "",
    ]
    pick_ok = None if not s["compiled_picks"] else not s["spilling_picks"]
    out.append(f"- CostFuse's picks spill 0 bytes: {len(s['spilling_picks'])} of {s['compiled_picks']} compiled picks "
               f"spill ({s['pick_spill_bytes']:,} bytes per thread in all): {_verdict(pick_ok)}.")
    pers = None if not s["probe_yes"] else s["persistent_yes"] / s["probe_yes"] >= 0.95
    out.append(f"- Persistent where some persistent config is spill-free: {s['persistent_yes']} of {s['probe_yes']} "
               f"({_pct(s['persistent_yes'], s['probe_yes'])}, goal >= 95%): {_verdict(pers)}; looped where none is: "
               f"{s['looped_no']} of {s['probe_no']} ({_pct(s['looped_no'], s['probe_no'])}): "
               f"{_verdict(None if not s['probe_no'] else s['looped_no'] == s['probe_no'])}.")
    drop_ok = None if not s["spill_c"] else s["spill_c_dropped"] / s["spill_c"] >= 0.95
    keep_ok = None if not s["free_c"] else s["free_c_dropped"] / s["free_c"] <= 0.05
    out.append(f"- `prune` on Inductor's candidates (default and max-autotune lists of the decided kernels): drops "
               f"{s['spill_c_dropped']} of {s['spill_c']} spilling ({_pct(s['spill_c_dropped'], s['spill_c'])}, goal "
               f">= 95%): {_verdict(drop_ok)}; drops {s['free_c_dropped']} of {s['free_c']} spill-free "
               f"({_pct(s['free_c_dropped'], s['free_c'])}, goal <= 5%): {_verdict(keep_ok)}."
               + ("" if not s.get("other_cut") else
                  f" At the `{s['other_cut'][0]}` cut it would drop {s['other_cut'][1]} of {s['spill_c']} spilling "
                  f"({_pct(s['other_cut'][1], s['spill_c'])}) and {s['other_cut'][2]} of {s['free_c']} spill-free "
                  f"({_pct(s['other_cut'][2], s['free_c'])})."))
    ratio = s["candidates"] / s["decided"] if s["decided"] else float("nan")
    out.append(f"- Compiles per kernel: 1 in `pin` against Inductor's {ratio:.2f} candidates on the {s['decided']} "
               f"decided kernels; ptxas seconds: Inductor's candidates {s['inductor_s']:.1f} s, the pinned configs "
               f"{s['pin_s']:.1f} s, saved {s['inductor_s'] - s['pin_s']:.1f} s (compile seconds of this machine).")
    fmed, fworst = s["features_ms"]
    out.append(f"- Features of a kernel at every config of its space (vectorized, fresh caches): median {fmed:.2f} ms, "
               f"worst {fworst:.2f} ms (goal <= 1 ms): {_verdict(fworst <= 1.0)}." if fmed is not None
               else "- Features: no decided kernel.")
    med, worst = s["decision_ms"]
    fmed_, fworst_ = s["fallback_ms"]
    left = (f"; the kernels left to Inductor (found not covered): median {fmed_:.2f} ms, worst "
            f"{fworst_:.2f} ms" if fmed_ is not None else "")
    out.append(f"- Decision time per kernel (each kernel's median over the codegen runs; goal <= 2 ms each): the "
               f"{s['decisions']} kernels the heads decided: median {med:.2f} ms, worst {worst:.2f} ms, "
               f"{s['decisions_within']} of {s['decisions']} within 2 ms: {_verdict(worst <= 2.0)}{left}."
               if med is not None else "- Decision time: no decision.")
    hm, hw = s["hook_overhead"]
    om, ow = s["overhead"]
    out.append(f"- Codegen time added by the handler per block, as the seconds inside its hooks over Inductor's "
               f"codegen seconds (goal <= 10%): median {100 * hm:.1f}%: {_verdict(hm <= 0.10)}; worst block "
               f"{100 * hw:.1f}%: {_verdict(hw <= 0.10)}; "
               f"as the difference of two codegen runs (noisier on this shared machine): median {100 * om:+.1f}%, "
               f"worst {100 * ow:+.1f}%." if om is not None else "- Codegen overhead: no block.")
    out += [
        "",
        f"Kernels: {s['kernels']} Triton kernels, {s['reductions']} reductions, {s['decided']} decided by the heads; "
        f"fallbacks to Inductor: " + (", ".join(f"{k} {v}" for k, v in sorted(s["fallbacks"].items())) or "none") + ".",
        f"Fusions the handler vetoed (`can_fuse_vertical`): {s['vetoes']}.",
        f"Inductor's own default candidates on the reductions: {s['inductor_spilling']} of {s['inductor_total']} spill "
        f"under ptxas, {s['inductor_dropped']} would be dropped by its spill filter.",
        "",
        *(["Blocks that failed (not counted above): " + "; ".join(f"{e['block']}: {e['error']}" for e in errors), ""]
          if errors else []),
        f"![predicted against compiled registers]({png})",
        "",
        "## Per kernel",
        "",
        "| block | set | kernel | rows x n | Inductor (default) | CostFuse pick | predicted regs | regs | spill B | "
        "persistent spill-free exists | decision ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["rnumel"] <= 1:
            continue
        ind = "; ".join(f"{_cfg(e['config'])} ({e.get('regs')} regs, {e.get('spill_bytes')} B)" for e in r["inductor"])
        c = r["costfuse"]
        pick = _cfg(c["config"]) if c else f"Inductor's ({r['fallback']})"
        pe = {True: "yes", False: "no", None: "-"}[r["persistent_spill_free"]]
        dm = f"{1e3 * r['decision_s']:.2f}" if r["decision_s"] is not None else "-"
        out.append(f"| {r['block']} | {r['set']} | {r['kernel']} | {r['xnumel']} x {r['rnumel']} | {ind} | {pick} | "
                   f"{c['predicted_regs'] if c else '-'} | {c.get('regs') if c else '-'} | "
                   f"{c.get('spill_bytes') if c else '-'} | {pe} | {dm} |")
    return "\n".join(out) + "\n"


def other_prune_cut() -> tuple[str, float]:
    """The spill head's cut ``prune`` does not drop at, and its P(spill), from the handler's heads."""
    from costfuse.cost_models.learned_groups import SPILL_CUTS
    from costfuse.inductor.decide import PRUNE_SPILL_CUT, Decider

    other = next(c for c in SPILL_CUTS if c != PRUNE_SPILL_CUT)
    return other, Decider().heads.cut_threshold(other)


def _speed_text(rows: list[dict]) -> str:
    """The machine's speed in this run (:func:`reference_pick_ms`), where the run recorded it."""
    ref = rows[0].get("reference_pick_ms") if rows else None
    if not ref:
        return ""
    return (f"Machine speed: a reference decision (`Decider.pick` on the first described reduction kernel of "
            f"`data/sm90_inductor_v1`'s first shard, outside Inductor's codegen, median of {REFERENCE_PICKS}) took "
            f"{ref[0]:.2f} ms before the blocks and {ref[1]:.2f} ms after: decision times of two runs compare in "
            "proportion to it. ")


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [(e["predicted_regs"], e["regs"], e["spill_bytes"] > 0) for r in rows
           for e in r["inductor"] + r["inductor_max_autotune"] + ([r["costfuse"]] if r["costfuse"] else [])
           if e.get("regs") is not None and e.get("predicted_regs") is not None]
    fig, ax = plt.subplots(figsize=(5, 5))
    for spills, color, label in ((False, "tab:blue", "spill-free (ptxas)"), (True, "tab:red", "spills (ptxas)")):
        xs = [p for p, _, s in pts if s == spills]
        ys = [a for _, a, s in pts if s == spills]
        ax.scatter(xs, ys, s=12, c=color, label=label)
    ax.plot([0, 260], [0, 260], "k--", lw=0.8)
    ax.set_xlabel("registers predicted by the handler's heads")
    ax.set_ylabel("registers under ptxas (sm_90)")
    ax.set_title("Inductor's kernels: predicted vs compiled")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated substrings of block names (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per compile")
    ap.add_argument("--repeats", type=int, default=3, help="codegen runs timed per side and block")
    ap.add_argument("--spill-cut", choices=("f1", "recall"), default=None, help="the spill head's cut "
                    "(default: the handler's; see costfuse inductor-report --help)")
    ap.add_argument("--fastest", action="store_true", help="the fastest predicted spill-free config of every mode, "
                    "not persistent first (Decider.persistent_first = False)")
    ap.add_argument("--kernels", default=str(RESULTS / "inductor_report_kernels.jsonl"))
    ap.add_argument("--render", action="store_true", help="write the report from the --kernels file a run saved, "
                    "compiling and timing nothing (the figures are that run's)")
    add_report_arg(ap, "inductor_report")
    args = ap.parse_args(argv)
    if args.render:
        rows = [json.loads(line) for line in Path(args.kernels).read_text().splitlines() if line.strip()]
    else:
        before = reference_pick_ms()
        rows = run(args.only, args.jobs, args.timeout, args.repeats, args.spill_cut, not args.fastest)
        speed = {"reference_pick_ms": [round(before, 3), round(reference_pick_ms(), 3)]}
        rows = [{**r, **speed} for r in rows]
        Path(args.kernels).write_text("".join(json.dumps(r) + "\n" for r in rows))
    errors = [r for r in rows if "error" in r]
    rows = [r for r in rows if "error" not in r]
    png = Path(args.report).with_suffix(".png") if args.report != "-" else RESULTS / "inductor_report.png"
    plot(rows, png)
    from costfuse.inductor.decide import HANDLER_SPILL_CUT, PRUNE_SPILL_CUT

    rule = "the fastest predicted spill-free config of every mode" if args.fastest else \
        ("persistent when some persistent config is predicted spill-free, then the mode's config of least expected "
         f"time (docs/inductor.md, \"Decisions\"); `prune` drops candidates at the heads' `{PRUNE_SPILL_CUT}` cut")
    command = command_line("inductor_report.py", argv)
    text = markdown(rows, summarize(rows, other_prune_cut()), command, png.name,
                    args.spill_cut or HANDLER_SPILL_CUT, errors, rule)
    if args.render:
        import datetime

        written = datetime.datetime.fromtimestamp(Path(args.kernels).stat().st_mtime, datetime.timezone.utc)
        text = text.replace(f"Command: `{command}`", f"Command: `{command}`, from the kernels "
                            f"`{Path(args.kernels).name}` that a full run wrote at {written:%Y-%m-%d %H:%M} UTC "
                            "(the figures are that run's; the conditions below are the rendering's)", 1)
    emit(text, args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
