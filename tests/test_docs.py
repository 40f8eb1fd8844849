"""The design of record (docs/design.md) is in the repo, and what cites it resolves.

Code cites design sections by number ("docs/design.md §4", formerly "DESIGN §4"
for a file outside the repo).  A citation is only useful if the section exists
in the repo and keeps its number, so every cited number must be a heading of
docs/design.md, and the doc's own relative links must point at real files.
"""

import re
from pathlib import Path

REPO = Path(__file__).parents[1]
DESIGN = REPO / "docs" / "design.md"
SCANNED = ("*.py", "*.md", "*.toml")
SKIPPED_DIRS = {".venv", ".git", "mlruns", "build", "node_modules"}
# "DESIGN §3, §5", "docs/design.md §7", also across a line break inside a docstring.
CITATION = re.compile(r"(?:\bDESIGN\b|docs/design\.md)(?:\s|#)+((?:§\d+(?:\s*,\s*)?)+)")


def _sources():
    for pattern in SCANNED:
        for path in REPO.rglob(pattern):
            parts = path.relative_to(REPO).parts
            if not any(p in SKIPPED_DIRS or p.startswith(".venv") for p in parts) and path != DESIGN:
                yield path


def _sections() -> set[int]:
    return {int(n) for n in re.findall(r"^## §(\d+)\.", DESIGN.read_text(), flags=re.M)}


def test_design_doc_has_sections_1_to_10():
    assert DESIGN.is_file(), f"{DESIGN}: missing (the design of record must live in the repo)"
    assert _sections() == set(range(1, 11))


def test_every_design_citation_names_an_existing_section():
    sections = _sections()
    bad = []
    for path in _sources():
        for match in CITATION.finditer(path.read_text(errors="replace")):
            for n in re.findall(r"§(\d+)", match.group(1)):
                if int(n) not in sections:
                    bad.append(f"{path.relative_to(REPO)}: §{n}")
    assert not bad, "citations of missing design sections: " + ", ".join(bad)


def test_design_doc_relative_links_resolve():
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", DESIGN.read_text())
    missing = [link for link in links if not (DESIGN.parent / link).exists()]
    assert links and not missing, f"{DESIGN}: links to missing files: {missing}"


SHIPPED_BUNDLES = ("costfuse/models", "costfuse/models/groups")
TRAIN_COMMAND = re.compile(r"costfuse-train [^`\n]*--export (costfuse/models(?:/groups)?)/?(?=[\s`]|$)[^`\n]*")


def _without_store(command: str) -> list[str]:
    """The command's words without ``--tracking-uri URI``: where MLflow logs does not change the bundle."""
    words = command.split()
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w == "--tracking-uri":
            skip = True
        else:
            out.append(w)
    return out


def test_documented_training_commands_reproduce_the_shipped_bundles():
    """Every command the docs give for a shipped bundle is the one its metadata.json records (issue #27,
    item 2: the group heads' command lacked --n-estimators 300)."""
    import json

    recorded = {b: _without_store(json.loads((REPO / b / "metadata.json").read_text())["command"])
                for b in SHIPPED_BUNDLES}
    seen, wrong = set(), []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for match in TRAIN_COMMAND.finditer(path.read_text()):
            if "<" in match.group(0):   # a template (data/<dir>), not the shipped bundle's command
                continue
            bundle = match.group(1)
            seen.add(bundle)
            if _without_store(match.group(0)) != recorded[bundle]:
                wrong.append(f"{path.relative_to(REPO)}: {match.group(0)!r} (metadata.json: "
                             f"{' '.join(recorded[bundle])!r})")
    assert seen == set(SHIPPED_BUNDLES), f"no documented command for {set(SHIPPED_BUNDLES) - seen}"
    assert not wrong, "documented training commands that do not reproduce the shipped bundle:\n" + "\n".join(wrong)


# ---------------------------------------------------------------------------
# Figures quoted from experiments/RESULTS_groups.md (issue #26 part 5: every figure quotes its report)

GROUPS_REPORT = REPO / "experiments" / "RESULTS_groups.md"
# A doc table that quotes the report: its header starts "| policy |"; each row names the report's policy
# in its first backticks; columns "issued GB"/"DRAM GB" are the report's MB / 1000, "kernels" as is.
QUOTED_COLUMNS = {"kernels": ("kernels", 1.0), "issued GB": ("issued MB", 1e-3), "DRAM GB": ("DRAM MB", 1e-3)}


def _md_tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of ``text``, as rows of cells (the separator row dropped)."""
    tables, cur = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                cur.append(cells)
        elif cur:
            tables.append(cur)
            cur = []
    return tables


def _report_policy_rows() -> dict[str, dict[str, dict[str, str]]]:
    """The report's "Totals over all workloads" and "Against the optimum" tables: section -> policy -> column
    -> cell (a policy's name without its "(on N of M workloads ...)" note)."""
    text = GROUPS_REPORT.read_text()
    out = {}
    for section in ("## Totals over all workloads", "## Against the optimum"):
        body = text.split(section, 1)[1].split("\n## ", 1)[0]
        (table,) = [t for t in _md_tables(body) if t[0][0] == "policy"]
        out[section] = {row[0].split(" (on ")[0]: dict(zip(table[0], row)) for row in table[1:]}
    return out


def test_documented_group_results_quote_the_report():
    """README's and docs/results.md's policy tables give each policy's kernels and issued/DRAM GB exactly as
    the report's totals (all workloads) or its optimum table (the solved workloads: a table whose title line
    says "solved"), and cite the command the report was generated by."""
    report = _report_policy_rows()
    command = re.search(r"Generated by `([^`]+)`", GROUPS_REPORT.read_text()).group(1)
    checked, wrong = 0, []
    for path in (REPO / "README.md", REPO / "docs" / "results.md"):
        text = path.read_text()
        assert command.removeprefix("python ") in text, f"{path.relative_to(REPO)}: does not cite `{command}`"
        for table in _md_tables(text):
            head = table[0]
            if head[0] != "policy" or not set(QUOTED_COLUMNS) & set(head):
                continue
            solved = "DRAM vs optimum" in head
            rows = report["## Against the optimum" if solved else "## Totals over all workloads"]
            for row in table[1:]:
                name = re.search(r"`([^`]+)`", row[0]).group(1)
                assert name in rows, f"{path.relative_to(REPO)}: `{name}` is no policy of the report's table"
                for col, cell in zip(head, row):
                    if col in QUOTED_COLUMNS:
                        src, scale = QUOTED_COLUMNS[col]
                        want = float(rows[name][src].replace(",", "")) * scale
                        got = float(re.sub(r"[*,]", "", cell))
                        checked += 1
                        if abs(got - want) > (0.051 if scale != 1.0 else 0):
                            wrong.append(f"{path.relative_to(REPO)}: `{name}` {col} {cell}, report {want:g}")
    assert checked >= 20 and not wrong, "documented figures that are not the report's:\n" + "\n".join(wrong)
