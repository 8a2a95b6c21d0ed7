"""Orchestration without Textual: collect a host snapshot, sample metrics, analyse them.

Services call hosts (through the Host protocol) and parsers; they never import Textual.
"""
