"""A local venue that answers like technocore.chat, for rehearsing deals without the network.

`server.create_app` builds the ASGI app over an in-memory model (`venue.Venue`), and
`runner.start_venue` runs it on a loopback port inside the caller's event loop.
"""
