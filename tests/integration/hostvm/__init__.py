"""The Debian 12 storage host under test (tools/testvm `--flavour host`), from the tests' side.

- `guest.HostGuest`: the running host guest (ssh, QEMU monitor, reboot, boot and login figures);
- `terminal.Terminal`: a tmux pane on this machine (`ssh -t hostvm zconsole`), read and typed
  into like an operator's terminal;
- `faults`: host faults with an undo (slow reverse DNS, slow session setup, frozen logind,
  extra sshd auth methods, the wait-online and ifupdown boot hangs).

The fixtures that hand these out live in tests/integration/conftest.py (`host_guest`,
`host_terminal`, and one fixture per fault). See tools/testvm/README.md, "The host flavour".
"""
