"""Pure, deterministic replica-assignment planning (no I/O)."""
