"""The wallet engine shared by the terminal app, the headless CLI and agents' tools."""
