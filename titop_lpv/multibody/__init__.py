"""multibody layer."""
