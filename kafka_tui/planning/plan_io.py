"""Plan files in and out: CSV / JSON / JSON lines rows -> intents (every bad field reported at
once with file:line:column), and the CSV `plan export` writes. The readers live in
`plan_csv.py` and `plan_json.py`, the rules they share in `plan_rows.py`; the saved plan
document in `plan_saved.py`, the job input the Spark job reads in `plan_prepared.py`.

Parsing works on text the caller has read (no I/O here): `parse_plan(name, text)`. Each
format is read in one pass, in time and memory proportional to the file: a place (line,
column) is counted on from the one before, never from the file's start, and a row's columns
are worked out only when the row has a problem (it is then checked again with them).
"""

from __future__ import annotations

import csv
import io

from kafka_tui.planning.plan_csv import csv_intents
from kafka_tui.planning.plan_json import json_document, json_lines
from kafka_tui.planning.plan_model import Intent
from kafka_tui.planning.plan_rows import COLUMNS


def parse_plan(name: str, text: str) -> list[Intent]:
    """Rows of a CSV (by default), JSON (`.json`: a list, or an object with "topics") or JSON
    lines (`.jsonl`/`.ndjson`) file. Raises PlanFileErrors with every problem found."""
    lowered = name.lower()
    if lowered.endswith((".jsonl", ".ndjson")):
        return json_lines(name, text)
    if lowered.endswith(".json"):
        return json_document(name, text)
    return csv_intents(name, text)


def intents_to_csv(intents: list[Intent]) -> str:
    """The plan file `plan export` writes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for i in intents:
        writer.writerow(
            [
                i.topic,
                i.partitions or "",
                i.replication_factor or "",
                i.min_required or "",
                ";".join(f"{k}={v}" for k, v in i.configs),
            ]
        )
    return out.getvalue()
