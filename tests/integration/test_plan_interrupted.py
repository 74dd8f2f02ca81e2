"""`plan apply` when the whole cluster goes out of reach between two batches (every broker
stopped, on the real KRaft cluster): every result so far is printed, then the topics not sent
and the exact command that resumes; exit 2. The resume finishes the plan."""

from __future__ import annotations

import json
import shlex
import uuid
from pathlib import Path
from typing import Any

import pytest

from kafka_tui.admin.protocol import CreateTopicsRequest
from kafka_tui.admin.transport import Transport
from kafka_tui.cli import main

from ..conftest import Cluster


@pytest.mark.timeout(300)
def test_a_cluster_lost_mid_apply_prints_what_was_done_and_how_to_resume(
    kraft_cluster: Cluster,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cluster = kraft_cluster
    cluster.restore()
    prefix = f"lost-plan-{uuid.uuid4().hex[:6]}"
    plan = tmp_path / "plan.csv"
    rows = [f"{prefix}-{n:02d},1,1" for n in range(40)]
    plan.write_text("topic,partitions,replication_factor\n" + "\n".join(rows) + "\n")
    base = ["--bootstrap-server", cluster.bootstrap_servers, "--output", "json"]
    monkeypatch.setenv("KAFKA_TUI_PLANS", str(tmp_path / "plans"))

    # The fault: once the first batch's CreateTopics is answered, every broker stops.
    original = Transport.send
    stopped: list[bool] = []

    async def send(self: Transport, node_id: int, request: Any, *a: Any, **k: Any) -> Any:
        answer = await original(self, node_id, request, *a, **k)
        if isinstance(request, CreateTopicsRequest) and not request.validate_only and not stopped:
            stopped.append(True)
            for broker in (1, 2, 3):
                cluster.dev.stop_broker(broker, kill=True)
        return answer

    monkeypatch.setattr(Transport, "send", send)
    try:
        code = main([*base, "plan", "apply", str(plan), "--yes", "--batch-size", "10"])
        out, err = capsys.readouterr()
    finally:
        monkeypatch.setattr(Transport, "send", original)
        cluster.restore()
    assert stopped and code == 2, err
    done = json.loads(out)
    assert [r["topic"] for r in done if r["ok"]] == [f"{prefix}-{n:02d}" for n in range(10)]
    assert "30 not sent or not confirmed" in err, err
    resume = err.strip().splitlines()[-1]
    assert resume.startswith("Resume with: kafka-tui ")
    argv = shlex.split(resume.removeprefix("Resume with: kafka-tui "))
    saved = Path(argv[argv.index("apply") + 1])
    assert saved.parent == tmp_path / "plans" and json.loads(saved.read_text())["topics"]
    assert "--yes" in argv and "--batch-size" in argv

    # The resume sends exactly the saved plan: the first 10 are skipped as already planned.
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    results = json.loads(out)
    assert len(results) == 40 and all(r["ok"] for r in results)
    assert sum("already created as planned" in r["message"] for r in results) >= 10
    assert main([*base, "topics", "delete", "--topic", f"{prefix}-.*", "--yes"]) == 0
