"""zconsole: a terminal operations console for Linux hosts running OpenZFS."""

__version__ = "0.1.0"
