"""The Textual terminal app: panes over the wallet engine, themes as data, inert text."""
