"""TODO i18n."""
