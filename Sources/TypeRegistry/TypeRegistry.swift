// TypeRegistry: see docs/ARCHITECTURE.md.
