// ShareDiscovery: see docs/ARCHITECTURE.md.
