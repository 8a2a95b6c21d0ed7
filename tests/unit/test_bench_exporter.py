"""bench/exporter_scale.py's floor (issue 31): prometheus_client's own server serving the same
page as the exporter, so the scrape ratio compares pages of one size. The seconds are the
bench's, never a test's: here only that the floor's page holds the exporter's samples."""

from __future__ import annotations

from prometheus_client import generate_latest

from bench.exporter_scale import static_registry, verdicts
from tests.unit.test_metrics import samples
from tests.unit.test_metrics_smart import showcase
from zconsole.services.monitor.metrics import exposition, seen_of_member


def test_the_floor_serves_the_exporters_samples_and_types() -> None:
    mon, m = showcase()
    text = exposition([seen_of_member(mon, m)])
    floor = generate_latest(static_registry(text)).decode()
    assert samples(floor) == samples(text)
    types = sorted(line for line in text.splitlines() if line.startswith("# TYPE"))
    assert sorted(line for line in floor.splitlines() if line.startswith("# TYPE")) == types
    assert "zconsole_smart_attribute_raw{" in floor


def test_the_50_host_budgets_are_ratios_and_a_miss_is_a_fail() -> None:
    size = {"hosts": 50, "series": 1, "body_bytes": 1, "scrape_median_s": 0.9,
            "scrape_max_s": 1.2, "floor_median_s": 0.2, "ratio": 4.5, "timeout_share": 0.12,
            "cpu_s_per_minute": 1.0, "core_pct": 1.7, "rss_growth_bytes": 0}
    rows = verdicts({"sizes": [{**size, "timeout_share": 0.25}]})
    assert [ok for *_, ok in rows] == [True, False, False]
    good = {**size, "ratio": 1.5, "timeout_share": 0.05}
    assert all(ok for *_, ok in verdicts({"sizes": [good]}))
