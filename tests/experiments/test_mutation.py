"""``experiments/mutation.py``: the staging tree makes the tests import the mutated copy, and the
report's arithmetic (equivalent mutants excluded, stale equivalences counted as survivors) holds.

No mutmut run here: that is the periodic check itself (CONTRIBUTING.md).
"""

import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

import experiments.mutation as mut

REPO = Path(__file__).resolve().parents[2]


def test_every_stage_names_files_and_tests_that_exist():
    for stage in mut.STAGES:
        for path in stage.files + stage.tests:
            assert (REPO / path).is_file(), f"{stage.name}: {path} does not exist"
    files = [f for s in mut.STAGES for f in s.files]
    assert len(files) == len(set(files)), "a file is mutated by two stages"


def test_installed_path_maps_the_package_dirs():
    assert mut.installed_path("data/store.py") == "costfuse/data/store.py"
    assert mut.installed_path("featurize/liveness.py") == "costfuse/featurize/liveness.py"
    assert mut.installed_path("costfuse/graph.py") == "costfuse/graph.py"
    with pytest.raises(ValueError, match="experiments/x.py: not under"):
        mut.installed_path("experiments/x.py")


def test_staged_data_module_is_the_one_imported(tmp_path):
    """The point of the stage: ``costfuse.data.store`` resolves to the stage's copy, not the editable install
    (mutmut's trampolines only fire when the module's name matches the staged path)."""
    stage = next(s for s in mut.STAGES if s.name == "store")
    root = mut.build_stage(stage, work=tmp_path)
    code = "import sys; sys.path.insert(0, sys.argv[1]); import costfuse.data.store as m; print(m.__file__)"
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True)
    assert Path(out.stdout.strip()) == root / "costfuse" / "data" / "store.py"
    assert not list((root / "data").rglob("*.py")), "data/ in the stage must hold assets only"


def test_restaging_refreshes_the_model_in_mutmuts_copy(tmp_path):
    """mutmut copies the package's non-Python files into mutants/ only once: a re-exported model must
    reach that copy, or the mutants are tested against a stale bundle."""
    stage = next(s for s in mut.STAGES if s.name == "cost_models_learned")
    root = mut.build_stage(stage, work=tmp_path)
    meta = next((root / "costfuse" / "models").rglob("metadata.json")).relative_to(root)
    (root / "mutants" / meta).parent.mkdir(parents=True)
    (root / "mutants" / meta).write_text("{}")  # what mutmut copied before the model was re-exported
    (root / "mutants" / "costfuse" / "graph.py").write_text("# a mutated copy")
    mut.build_stage(stage, work=tmp_path)
    assert (root / "mutants" / meta).read_bytes() == (REPO / meta).read_bytes()
    assert (root / "mutants" / "costfuse" / "graph.py").read_text() == "# a mutated copy"  # mutmut's own


def test_a_changed_test_file_means_the_tests_must_be_mapped_again(tmp_path):
    """mutmut maps each function to the tests that reached it once; an edited test file may reach more."""
    stage = next(s for s in mut.STAGES if s.name == "store")
    copy = tmp_path / stage.name / "mutants" / stage.tests[0]
    copy.parent.mkdir(parents=True)
    assert not mut.tests_changed(stage, work=tmp_path)          # never mapped: nothing to compare
    copy.write_bytes((REPO / stage.tests[0]).read_bytes())
    assert not mut.tests_changed(stage, work=tmp_path)
    copy.write_text("# an older version")
    assert mut.tests_changed(stage, work=tmp_path)


def test_stage_pyproject_names_the_stage_and_keeps_pytest_settings():
    stage = next(s for s in mut.STAGES if s.name == "featurize")
    conf = tomllib.loads(mut.stage_pyproject(stage, (REPO / "pyproject.toml").read_text()))
    mm = conf["tool"]["mutmut"]
    assert mm["only_mutate"] == ["costfuse/featurize/features.py", "costfuse/featurize/liveness.py"]
    assert mm["pytest_add_cli_args_test_selection"] == list(stage.tests)
    assert "not slow and not gpu" in mm["pytest_add_cli_args"]
    assert "markers" in conf["tool"]["pytest"]["ini_options"]
    with pytest.raises(ValueError, match=r"pyproject.toml: has a \[tool.mutmut\] section"):
        mut.stage_pyproject(stage, "[tool.mutmut]\n")


def test_equivalence_needs_the_same_line_else_it_is_stale():
    res = mut.FileResult("costfuse/graph.py", {"a": "survived", "b": "survived", "c": "killed"},
                         {"a": "x = 1", "b": "y = 2"})
    eq = {"a": {"line": "x = 1", "reason": "r"}, "b": {"line": "y = 3", "reason": "r"}}
    assert mut.classify(res, eq) == {"a": "equivalent", "b": "stale equivalence", "c": "killed"}


def test_a_listed_equivalent_is_found_under_its_new_number_by_function_and_line():
    """mutmut renumbers a function's mutants when its file changes: ``f__mutmut_24`` became
    ``f__mutmut_31``, the same mutation.  Another function's mutant with that line is not it."""
    res = mut.FileResult("costfuse/data/store.py",
                         {"m.x_f__mutmut_31": "survived", "m.x_g__mutmut_2": "survived", "m.x_f__mutmut_32": "survived"},
                         {"m.x_f__mutmut_31": "x = None", "m.x_g__mutmut_2": "x = None", "m.x_f__mutmut_32": "y = 0"})
    eq = {"m.x_f__mutmut_24": {"line": "x = None", "reason": "r"}}
    assert mut.classify(res, eq) == {"m.x_f__mutmut_31": "equivalent", "m.x_g__mutmut_2": "survived",
                                     "m.x_f__mutmut_32": "survived"}


def test_score_excludes_equivalent_and_counts_stale_as_survived():
    counts = mut.tally({"a": "killed", "b": "timeout", "c": "equivalent", "d": "stale equivalence",
                        "e": "suspicious", "f": "segfault"})
    assert counts == Counter({"killed": 1, "timeout": 1, "crashed": 1, "equivalent": 1, "survived": 1, "other": 1})
    assert mut.score_text(counts) == "60.0%"  # (1 killed + 1 timeout + 1 crashed) / (6 - 1 equivalent)
    assert mut.score_text(counts + Counter({"not checked": 3})) == "60.0% so far"


def test_a_signal_mutmut_does_not_name_is_a_crash():
    names = {1: "killed", 0: "survived", -24: "timeout", -11: "segfault", None: "not checked"}
    assert [mut.status_of(c, names) for c in (1, 0, -24, -11, -6, None)] == [
        "killed", "survived", "timeout", "segfault", "crashed", "not checked"]


def test_forgetting_survivors_leaves_a_crash_reported_as_a_crash(tmp_path, monkeypatch):
    """mutmut's exit-code names are a defaultdict ('suspicious' for any other code): reading one for a
    signal it does not name would add it, and a later report in the same run (--rerun-survivors) would
    count that crash as 'other'."""
    from collections import defaultdict

    names = defaultdict(lambda: "suspicious", {1: "killed", 0: "survived", None: "not checked"})
    monkeypatch.setattr(mut, "_status_names", lambda: names)
    stage = next(s for s in mut.STAGES if s.name == "store")
    codes = {"costfuse.data.store.x_f__mutmut_1": 0, "costfuse.data.store.x_f__mutmut_2": -6}
    meta = _write_meta(tmp_path, stage, "data/store.py", codes, {"x_f": "aa"})
    assert mut.forget_verdicts(tmp_path / stage.name, stage, ("survived", "no tests")) == 1
    assert json.loads(meta.read_text())["exit_code_by_key"] == {"costfuse.data.store.x_f__mutmut_1": None,
                                                                "costfuse.data.store.x_f__mutmut_2": -6}
    assert mut.status_of(-6, names) == "crashed"


def test_equivalence_list_entries_need_line_and_reason(tmp_path):
    path = tmp_path / "eq.toml"
    path.write_text('["costfuse.graph.x_f__mutmut_1"]\nline = "x"\n')
    with pytest.raises(SystemExit, match="eq.toml: entry 'costfuse.graph.x_f__mutmut_1' needs both"):
        mut.load_equivalent(path)
    assert mut.load_equivalent(tmp_path / "absent.toml") == {}


@pytest.fixture
def fake_mutmut(monkeypatch):
    """mutmut's exit-code names and diffs, without mutmut (a dev extra, not installed in CI)."""
    monkeypatch.setattr(mut, "_status_names", lambda: {0: "killed", 1: "survived", None: "not checked"})
    monkeypatch.setattr(mut, "_mutated_line", lambda root, installed, name: f"line of {name.rpartition('.')[2]}")
    monkeypatch.setattr(mut, "version", lambda package: "3.8.1")


def _write_meta(work, stage, f, codes, hashes):
    meta = mut._meta_path(stage, f, work)
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": hashes,
                                "type_check_error_by_key": {}, "durations_by_key": {}, "estimated_durations_by_key": {}}))
    return meta


def test_kept_verdicts_seed_a_new_checkout(tmp_path, fake_mutmut):
    """build/ is not committed: the verdicts a stage found must reach a new checkout through the kept file,
    as mutmut's own .meta (mutmut then keeps each unchanged function's verdicts)."""
    stage = next(s for s in mut.STAGES if s.name == "store")
    codes = {"costfuse.data.store.x_f__mutmut_1": 0, "costfuse.data.store.x_f__mutmut_2": 1,
             "costfuse.data.store.x_g__mutmut_1": None}
    hashes = {"x_f": "aa", "x_g": "bb"}
    _write_meta(tmp_path / "old", stage, "data/store.py", codes, hashes)
    kept = tmp_path / "verdicts.json"
    assert mut.keep_verdicts(stage, tmp_path / "old", kept) == 1  # atomic.py has no verdicts: not kept
    entry = mut.load_verdicts(kept)["data/store.py"]
    assert entry["exit_codes"] == {"x_f": [0, 1], "x_g": [None]}
    assert entry["lines"] == {"x_f__mutmut_2": "line of x_f__mutmut_2"}  # judged and not killed only
    assert len(kept.read_text().splitlines()) == 3  # one line per file, between the braces

    assert mut.seed_verdicts(stage, tmp_path / "new", kept) == ["data/store.py"]
    meta = json.loads(mut._meta_path(stage, "data/store.py", tmp_path / "new").read_text())
    assert meta["exit_code_by_key"] == codes and meta["hash_by_function_name"] == hashes
    assert not mut._meta_path(stage, "costfuse/atomic.py", tmp_path / "new").exists()
    assert mut.seed_verdicts(stage, tmp_path / "new", kept) == []  # never over verdicts on disk

    [res] = mut.collect(stage, tmp_path / "empty", kept=mut.load_verdicts(kept))  # a checkout that ran nothing
    assert res.status == {"costfuse.data.store.x_f__mutmut_1": "killed", "costfuse.data.store.x_f__mutmut_2": "survived",
                          "costfuse.data.store.x_g__mutmut_1": "not checked"}
    assert res.line["costfuse.data.store.x_f__mutmut_2"] == "line of x_f__mutmut_2"
    assert mut.collect(stage, tmp_path / "empty") == []


def test_keeping_refuses_mutants_not_numbered_from_one(tmp_path, fake_mutmut):
    stage = next(s for s in mut.STAGES if s.name == "store")
    _write_meta(tmp_path, stage, "data/store.py", {"costfuse.data.store.x_f__mutmut_2": 0}, {"x_f": "aa"})
    with pytest.raises(SystemExit, match=r"store.py.meta: x_f's mutants are not numbered 1..1"):
        mut.keep_verdicts(stage, tmp_path, tmp_path / "verdicts.json")


def test_a_row_without_verdicts_is_carried_over_with_its_first_date(fake_mutmut):
    """A new checkout that has run only some stages must not drop the other rows from the report."""
    old = mut.render({}, {}, "cmd").replace("Written ", "Written 2026-01-01; was ", 1)
    row = "| `data/store.py` | test_store.py | 2 | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 50.0% |"
    old = old.replace("\n\n## Survivors per module",
                      f"\n{row}\n\n## Survivors per module\n\n### `data/store.py`\n\nNot killed yet (status, mutated line):\n\n- `x` survived: `y`")
    new = mut.render({}, {}, "cmd", old)
    assert row in new.splitlines()
    assert new.endswith("### `data/store.py`\n\nNot killed yet (status, mutated line):\n\n- `x` survived: `y`\n")
    carried = [ln for ln in new.splitlines() if ln.startswith(mut.CARRIED)]
    assert carried == [f"{mut.CARRIED}2026-01-01 (their verdicts predate experiments/results/mutation_verdicts.json; "
                       "rerunning their stages refreshes them): `data/store.py`."]
    again = mut.render({}, {}, "cmd", new)  # written on a later day: the row keeps its first date
    assert mut.previous_rows(again)["data/store.py"][2] == "2026-01-01"
    [not_run] = [ln for ln in again.splitlines() if ln.startswith("Not run yet: ")]
    assert "`data/store.py`" not in not_run and "`costfuse/atomic.py`" in not_run


def test_tests_added_to_a_stage_keep_its_verdicts_and_retry_its_survivors():
    stage = next(s for s in mut.STAGES if s.name == "store")
    old = mut.stage_pyproject(stage, "")
    more = mut.stage_pyproject(mut.Stage(stage.name, stage.files, stage.tests + ("tests/data/test_job.py",)), "")
    fewer = mut.stage_pyproject(mut.Stage(stage.name, stage.files, stage.tests[:1]), "")
    assert mut.tests_only_added(old, more)
    assert not mut.tests_only_added(old, old) and not mut.tests_only_added(old, fewer)
    assert not mut.tests_only_added(None, more)   # a new stage: nothing to keep
