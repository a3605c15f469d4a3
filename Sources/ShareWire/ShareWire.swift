// ShareWire: see docs/ARCHITECTURE.md.
