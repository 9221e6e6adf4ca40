"""Secrets as the engine sees them: the profile's identity key, which secret belongs to which
deal (the keeper), and the vault's gates (the seed's backup and restore, a secret shown).

Nothing is imported here: import the module you need, so a light caller stays light.
"""
