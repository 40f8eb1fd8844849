"""A real tracking server: ``mlflow server`` on 127.0.0.1 with a SQLite
backend and proxied artifacts, trained against over HTTP, the model reloaded
from the registry URI and checked to predict exactly as the trained one.

Marked slow (server start-up + SQLite migrations + a training run take
30-90 s on a shared 2-core machine).  The default suite's fast variant is
``test_train.py::test_cli_logs_to_sqlite_and_registry_roundtrips`` (same
logging code, embedded SQLite store).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow

STARTUP_TIMEOUT_S = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"mlflow server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"mlflow server not healthy after {STARTUP_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def mlflow_server(tmp_path):
    """``http://127.0.0.1:<port>`` of a fresh server; stopped (its process group) at teardown."""
    port = free_port()
    log = tmp_path / "server.log"
    mlflow_bin = Path(sys.executable).with_name("mlflow")
    cmd = [str(mlflow_bin), "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
           "--backend-store-uri", f"sqlite:///{tmp_path / 'server.db'}",
           "--artifacts-destination", str(tmp_path / "artifacts")]
    env = {**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}
    env.pop("MLFLOW_TRACKING_URI", None)
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path, env=env,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)  # uvicorn's graceful shutdown can linger; no state to save here
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_train_against_server_and_reload_from_registry(mlflow_server, tmp_path, monkeypatch):
    import mlflow

    from helpers.synthetic_v1 import write_synthetic_dataset
    from costfuse.train import model_io
    from costfuse.train.dataset import load_table
    from costfuse.train.fit import XGBParams
    from costfuse.train.pipeline import run
    from costfuse.train.tracking import log_run

    monkeypatch.chdir(tmp_path)  # nothing may land in the repo
    write_synthetic_dataset(tmp_path / "data", seeds=2, families=("chain", "tree"))
    table = load_table(tmp_path / "data")
    result = run(table, "spills", XGBParams(n_estimators=20, max_depth=3), holdout=False, log=lambda m: None)
    logged = log_run(result, tracking_uri=mlflow_server, experiment="server-test", command="pytest")
    assert logged.model_uris["spill"] == "models:/costfuse-spill@champion"

    mlflow.set_tracking_uri(mlflow_server)
    boosters, meta = model_io.load_model(logged.model_uris["spill"])
    X = table.X
    served = model_io.predict(boosters, meta, X)["spill"]
    np.testing.assert_allclose(served, result.heads["spill"].head.score(X), rtol=1e-6)
    assert meta["heads"]["spill"]["threshold"] == pytest.approx(result.heads["spill"].head.threshold)
    assert meta["dataset_hash"] == table.dataset_hash

    client = mlflow.MlflowClient(mlflow_server)
    version = client.get_model_version_by_alias("costfuse-spill", "champion")
    assert version.run_id == logged.run_id
    run_data = client.get_run(logged.run_id).data
    assert run_data.tags["feature_schema_version"] and "spill.auc" in run_data.metrics
    assert not (tmp_path / "mlruns").exists()  # artifacts went through the server, not to local disk
