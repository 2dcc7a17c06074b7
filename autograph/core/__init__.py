"""Shared pieces of conversion: converter base class, conversion options, configuration."""
