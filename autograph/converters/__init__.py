"""Converters: small AST transformers, each lowering one Python construct to overload calls."""
