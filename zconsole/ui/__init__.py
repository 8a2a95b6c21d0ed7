"""The Textual user interface: the only code that imports Textual."""
