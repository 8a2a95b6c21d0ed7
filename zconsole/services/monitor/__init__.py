"""The headless monitor (the Glances / k9s pattern): hosts followed without Textual.

    member.py   `Member`: one host followed — its name, tags, Host, `HostSession` (which holds
                the readings) and its latest verdict on the one scale (`verdict_at`)
    loop.py     `Monitor`: the members, one refresh loop per host (a thread each, or an
                explicit `step()` / `sample()`), and subscribers told (host name, reading,
                verdict) after every refresh
    report.py   a verdict said for other programs: findings, advice, what is muted, metrics
                (the `zconsole check` result its output formats print)
    metrics.py  the members' readings and verdicts as Prometheus families (prometheus_client
                collector): what `zconsole exporter` serves and `check --prometheus` writes
    metrics_smart.py  each disk's SMART (the session's watch) as families of the same scrape

The faces: the console (ui/app.py records its refreshes here), the Fleet rows
(services/fleet.py), `zconsole check` (one sampled reading; `--hosts`: one per host) and
`zconsole exporter` (a loop per host, served to Prometheus). Judging is
`services/health/severity.judge_host`, the one table: nothing here judges.
This package's `__init__` imports nothing (the console's first frame imports `member`).
"""
