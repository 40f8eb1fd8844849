"""``--executor ray`` gives the same rows as the local executor (on a local Ray instance).

Slow (Ray starts a local cluster: ~30-60 s here) and needs ``pip install -e .[ray]``;
run with ``make test-slow``.
"""

import pytest
from helpers.job import LABELS, generate

from costfuse.data.store import read_dataset

pytestmark = pytest.mark.slow


def test_ray_matches_local(tmp_path):
    pytest.importorskip("ray")
    extra = ["--programs", "2"]
    generate(tmp_path / "local", tmp_path / "cache-local", extra=extra)
    generate(tmp_path / "ray", tmp_path / "cache-ray", extra=extra + ["--executor", "ray"])
    local, ray = (read_dataset(tmp_path / d)[LABELS].sort_values("kernel_id").reset_index(drop=True)
                  for d in ("local", "ray"))
    assert len(local) > 0
    assert ray.equals(local)
