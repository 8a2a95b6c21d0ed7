"""Issue 31: the shipped alert rules (docs/prometheus/zconsole-rules.yml) pass `promtool check
rules` and their unit tests (`promtool test rules`, docs/prometheus/zconsole-rules.test.yml);
they mirror zconsole's severity scale; the Grafana dashboard is a classic importable model
whose every target uses the `${DS_PROMETHEUS}` input (its queries are run against a real
Prometheus in test_prometheus_real.py)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.unit._prometheus import tool

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULES = DOCS / "prometheus" / "zconsole-rules.yml"
RULE_TESTS = DOCS / "prometheus" / "zconsole-rules.test.yml"
DASHBOARD = DOCS / "grafana" / "zconsole.json"
DS = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}


def promtool(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("promtool"), *argv], capture_output=True, text=True,
                          timeout=120, cwd=RULES.parent)


def test_promtool_check_rules_is_clean_and_lint_fatal() -> None:
    p = promtool("check", "rules", "--lint-fatal", str(RULES))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SUCCESS: 9 rules found" in p.stdout


def test_promtool_test_rules_pass() -> None:
    p = promtool("test", "rules", str(RULE_TESTS))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SUCCESS" in p.stdout


def test_rules_mirror_the_scale_and_advice_never_pages() -> None:
    text = RULES.read_text()
    severities = re.findall(r"^\s+severity: (\w+)$", text, re.M)
    assert set(severities) == {"critical", "warning", "unknown"}
    exprs = re.findall(r"^\s+expr: (.+)$", text, re.M)
    assert not [e for e in exprs if "info" in e or "advice" in e]
    # each rule uses a family the collector exports
    from zconsole.services.monitor.metrics import exposition

    families = set(re.findall(r"^# TYPE (\w+) ", exposition([]), re.M))
    used = {n for e in exprs for n in re.findall(r"\b(zconsole_\w+)", e)}
    assert used and used <= families, used - families


def panels(doc: dict[str, object]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for p in doc.get("panels", []):  # type: ignore[union-attr]
        out.append(p)
        out.extend(panels(p))  # a row's own panels
    return out


def test_dashboard_is_a_classic_model_on_the_ds_prometheus_input() -> None:
    doc = json.loads(DASHBOARD.read_text())
    assert [i["name"] for i in doc["__inputs"]] == ["DS_PROMETHEUS"]
    assert doc["uid"] and doc["title"] and isinstance(doc["schemaVersion"], int)
    ps = panels(doc)
    targets = [t for p in ps for t in p.get("targets", [])]  # type: ignore[attr-defined]
    assert len(targets) >= 8
    assert all(p.get("datasource") == DS for p in ps if p.get("type") != "row")
    assert all(t["datasource"] == DS and "zconsole_" in t["expr"] for t in targets)
    ids = [p["id"] for p in ps]
    assert len(ids) == len(set(ids))
    for v in doc["templating"]["list"]:
        assert v["datasource"] == DS and v["query"].startswith("label_values(")
