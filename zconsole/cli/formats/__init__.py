"""`zconsole check`'s output formats, one module each, over a `services.monitor.report.Report`:

    nagios.py       the monitoring-plugin text: `STATE: summary | perfdata`, a line per finding;
                    several hosts: the worst state and a section per host
    json_out.py     the stable JSON shape (version 1), one host or several

(node_exporter's textfile is services/monitor/metrics.py, through prometheus_client.)
Pure text from a report: no host is touched, nothing is judged.
"""
