"""Two ``prioris import`` processes writing one PostgreSQL library at once, searched
meanwhile: nothing is lost and no work is stored twice (writers take turns on an advisory
lock, so "find the work by id or alias, else insert it" cannot race)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

pytestmark = pytest.mark.slow  # three processes load the real embedding model


def _records(numbers: range) -> str:
    lines = [
        json.dumps(
            {
                "_id": f"doi:10.5555/shared.{i}",
                "title": f"Glacier mass balance station {i}",
                "text": f"Station {i} measured ablation and accumulation over the season.",
                "year": 1990 + i % 30,
            }
        )
        for i in numbers
    ]
    return "\n".join(lines) + "\n"


def _env(data_dir: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update(
        {
            "PRIORIS_MCP_DATA_DIR": str(data_dir),
            "PRIORIS_MCP_DB": url,
            "PRIORIS_MCP_ENRICH": "off",
            "OMP_NUM_THREADS": "1",
        }
    )
    return env


def test_two_importing_processes_lose_nothing_and_duplicate_nothing(
    pg_url: str, tmp_path: Path, data_dir: Path
) -> None:
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    # the same 90 records in the same order in both, so the two race on every one of them
    first.write_text(_records(range(0, 90)), encoding="utf-8")
    second.write_text(_records(range(0, 135)), encoding="utf-8")
    env = _env(data_dir, pg_url)
    prioris = [sys.executable, "-m", "prioris"]
    # the schema and vector table exist before the race, as on a library in use
    subprocess.run([*prioris, "status"], env=env, check=True, capture_output=True, timeout=300)
    writers = [
        subprocess.Popen(
            [*prioris, "import", str(path), "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path in (first, second)
    ]
    searches = 0
    while any(w.poll() is None for w in writers):  # readers are never blocked by writers
        found = subprocess.run(
            [*prioris, "search", "glacier ablation", "--mode", "hybrid", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert found.returncode == 0, found.stderr
        json.loads(found.stdout)
        searches += 1
        time.sleep(0.1)
    outputs = [w.communicate(timeout=300) for w in writers]
    assert [w.returncode for w in writers] == [0, 0], [err for _, err in outputs]
    summaries = [json.loads(out) for out, _ in outputs]
    ingested = [{r["id"] for r in s["ingested"]} for s in summaries]
    skipped = [{r["id"] for r in s["skipped"]} for s in summaries]
    assert not ingested[0] & ingested[1]  # each shared record stored by one process only
    assert ingested[0] | ingested[1] == {f"doi:10.5555/shared.{i}" for i in range(135)}
    assert len(skipped[0]) + len(skipped[1]) == 90
    assert searches >= 1
    with psycopg.connect(pg_url) as conn:
        one = conn.execute
        assert one("SELECT count(*), count(DISTINCT id) FROM works").fetchone() == (135, 135)
        assert one("SELECT count(*) FROM documents").fetchone() == (135,)
        per_work = one("SELECT count(*) FROM chunks GROUP BY work_id").fetchall()
        assert len(per_work) == 135 and {n for (n,) in per_work} == {1}
        assert one("SELECT count(*) FROM chunk_vectors").fetchone() == (135,)
        assert one("SELECT count(*) FROM chunks WHERE embedding_model IS NULL").fetchone() == (0,)
