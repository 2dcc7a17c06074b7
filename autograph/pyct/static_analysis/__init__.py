"""Static analyses over gast ASTs: activity (scopes), liveness, reaching definitions."""
