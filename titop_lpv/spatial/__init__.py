"""spatial layer."""
