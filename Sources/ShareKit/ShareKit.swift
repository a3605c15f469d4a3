// ShareKit: see docs/ARCHITECTURE.md.
