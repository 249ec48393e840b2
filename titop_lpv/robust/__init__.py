"""robust layer."""
