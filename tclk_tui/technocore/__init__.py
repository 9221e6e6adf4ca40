"""The technocore venue binding: identity, signed lane, venue client."""
