"""Generic Python source transformation: parsing, analysis, templates, loading. Knows nothing about tensors."""
