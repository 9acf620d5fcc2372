"""The `python` kind: a function called on hidden inputs in the run sandbox's child; its folder
also holds what the `cpp` kind shares with it (the child, the stages). Imports nothing."""
