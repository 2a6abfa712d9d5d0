"""TODO documents."""
