"""TODO tablet."""
