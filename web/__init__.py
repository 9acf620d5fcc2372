"""Cross-cutting web pieces: JSON errors, authentication, pages."""
