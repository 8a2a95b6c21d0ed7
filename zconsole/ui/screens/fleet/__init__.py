"""The Fleet screen: one row per host (`zconsole --host a --host b`, `--hosts`, `--demo-fleet`)."""
