// ShareCLI: see docs/ARCHITECTURE.md.
